package s3_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/publish"
	s3pub "github.com/agenttools/agenttools/core/publish/s3"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// workspaceFile is the File a publish call names in ws: Open resolves
// and opens it as the workspace does for every tool. seekable makes its
// reader an io.Seeker (as a host file is), which the SDK hashes before
// sending; otherwise it is one that only reads, as a store streams.
func workspaceFile(ws *vfs.Workspace, p string, seekable bool) publish.File {
	return publish.NewFile(p, func(ctx context.Context) (io.ReadCloser, publish.Info, error) {
		r, info, err := ws.Open(ctx, p, 0)
		if err != nil {
			return nil, publish.Info{}, err
		}
		if seekable {
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				return nil, publish.Info{}, err
			}
			r = readSeekCloser{bytes.NewReader(data)}
		} else {
			r = struct{ io.ReadCloser }{r}
		}
		return r, publish.Info{Path: p, Size: info.Size, ModTime: time.UnixMilli(info.MTime), Mode: info.Mode}, nil
	})
}

type readSeekCloser struct{ *bytes.Reader }

func (readSeekCloser) Close() error { return nil }

func hostWorkspace(t *testing.T, files map[string]string) *vfs.Workspace {
	t.Helper()
	fs, err := hostfs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := vfs.New(fs)
	for p, content := range files {
		if err := ws.WriteFile(t.Context(), p, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// keyRE matches a link's path: /<bucket>/<key>, the key being
// [KeyPrefix/][prefix/]<16 hex digits>/<path>.
var keyRE = regexp.MustCompile(`^/links/pub/agent-s1/([0-9a-f]{16})/(.*)$`)

func TestPublishServesTheBytes(t *testing.T) {
	g := startGateway(t, "links")
	ws := hostWorkspace(t, map[string]string{"/workspace/out/report.txt": "first\n", "/workspace/out/chart.png": "\x89PNG\r\n\x1a\n...",
		"/workspace/out/page.html": "<script>alert(1)</script>", "/workspace/out/logo.svg": "<svg onload=\"alert(1)\"/>"})
	p := s3pub.New(g.client, s3pub.Options{Bucket: "links", KeyPrefix: "/pub/"})
	opts := publish.Options{ExpiresAfter: time.Hour, Prefix: "agent-s1"}

	for _, tc := range []struct {
		path, body, contentType string
		seekable                bool
		// disposition is the Content-Disposition the link is served
		// with: a page or an image with scripts is the model's, and is
		// downloaded rather than run on the bucket's origin.
		disposition string
	}{
		{"/workspace/out/report.txt", "first\n", "text/plain; charset=utf-8", true, ""},
		{"/workspace/out/chart.png", "\x89PNG\r\n\x1a\n...", "image/png", false, ""},
		{"/workspace/out/page.html", "<script>alert(1)</script>", "text/html; charset=utf-8", true, "attachment"},
		{"/workspace/out/logo.svg", "<svg onload=\"alert(1)\"/>", "image/svg+xml", false, "attachment"},
	} {
		link, err := p.Publish(t.Context(), workspaceFile(ws, tc.path, tc.seekable), opts)
		if err != nil {
			t.Fatalf("Publish %s: %v", tc.path, err)
		}
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		if m := keyRE.FindStringSubmatch(u.Path); m == nil || "/"+m[2] != tc.path {
			t.Errorf("link path %q: want /links/pub/agent-s1/<id>%s", u.Path, tc.path)
		}
		if got := u.Query().Get("X-Amz-Expires"); got != "3600" {
			t.Errorf("X-Amz-Expires = %q, want 3600", got)
		}
		// A body that seeks is signed with its SHA-256; one that cannot
		// goes unsigned rather than read into memory.
		want := "UNSIGNED-PAYLOAD"
		if tc.seekable {
			sum := sha256.Sum256([]byte(tc.body))
			want = hex.EncodeToString(sum[:])
		}
		if got := g.uploads.last(); got != want {
			t.Errorf("%s uploaded with payload hash %q, want %q", tc.path, got, want)
		}
		status, body, header := getWithHeader(t, link)
		if status != 200 || body != tc.body {
			t.Errorf("GET %s: %d %q, want 200 %q", tc.path, status, body, tc.body)
		}
		if got := header.Get("Content-Type"); got != tc.contentType {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.path, got, tc.contentType)
		}
		if got := header.Get("Content-Disposition"); got != tc.disposition {
			t.Errorf("GET %s: Content-Disposition %q, want %q", tc.path, got, tc.disposition)
		}
	}

	// Publishing a path again makes a new object: the first link still
	// serves what it published.
	first, err := p.Publish(t.Context(), workspaceFile(ws, "/workspace/out/report.txt", false), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(t.Context(), "/workspace/out/report.txt", []byte("second\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	second, err := p.Publish(t.Context(), workspaceFile(ws, "/workspace/out/report.txt", false), opts)
	if err != nil {
		t.Fatal(err)
	}
	for link, want := range map[string]string{first: "first\n", second: "second\n"} {
		if status, body := get(t, link); status != 200 || body != want {
			t.Errorf("GET %s: %d %q, want 200 %q", link, status, body, want)
		}
	}
}

func TestTamperedLinkRefused(t *testing.T) {
	g := startGateway(t, "links")
	ws := hostWorkspace(t, map[string]string{"/a.txt": "secret a", "/b.txt": "secret b"})
	p := s3pub.New(g.client, s3pub.Options{Bucket: "links"})
	link, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", false), publish.Options{ExpiresAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if status, body := get(t, link); status != 200 || body != "secret a" {
		t.Fatalf("GET the link: %d %q, want 200 %q", status, body, "secret a")
	}
	other, err := p.Publish(t.Context(), workspaceFile(ws, "/b.txt", false), publish.Options{ExpiresAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	otherKey := mustParse(t, other).Path

	for name, tamper := range map[string]func(u *url.URL){
		"signature": func(u *url.URL) {
			q := u.Query()
			sig := []byte(q.Get("X-Amz-Signature"))
			sig[0] = "01"[sig[0]&1] // another hex digit
			if string(sig) == q.Get("X-Amz-Signature") {
				sig[0] = 'f'
			}
			q.Set("X-Amz-Signature", string(sig))
			u.RawQuery = q.Encode()
		},
		"key": func(u *url.URL) { u.Path = otherKey; u.RawPath = "" },
		"expiry": func(u *url.URL) {
			q := u.Query()
			q.Set("X-Amz-Expires", "604800")
			u.RawQuery = q.Encode()
		},
	} {
		u := mustParse(t, link)
		tamper(u)
		status, body := get(t, u.String())
		if status != 403 || strings.Contains(body, "secret") {
			t.Errorf("%s tampered: %d %q, want 403 without the file", name, status, body)
		}
	}
}

func TestExpiredLinkRefused(t *testing.T) {
	g := startGateway(t, "links")
	ws := hostWorkspace(t, map[string]string{"/a.txt": "hello"})
	// Links signed ten seconds ago: the server's clock says a 1 s link
	// is long expired, a 60 s one still live.
	p := s3pub.New(g.client, s3pub.Options{Bucket: "links", Presign: []func(*awss3.PresignOptions){signedAgo(10 * time.Second)}})

	live, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", false), publish.Options{ExpiresAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if status, body := get(t, live); status != 200 || body != "hello" {
		t.Errorf("GET a 60 s link signed 10 s ago: %d %q, want 200 %q", status, body, "hello")
	}
	expired, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", false), publish.Options{ExpiresAfter: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustParse(t, expired).Query().Get("X-Amz-Expires"); got != "1" {
		t.Errorf("X-Amz-Expires = %q, want 1 (1.5 s in whole seconds)", got)
	}
	if status, body := get(t, expired); status != 403 || !strings.Contains(body, "expired") {
		t.Errorf("GET a 1 s link signed 10 s ago: %d %q, want 403 (expired)", status, body)
	}
}

func TestExpiryOutOfRange(t *testing.T) {
	g := startGateway(t, "links")
	ws := hostWorkspace(t, map[string]string{"/a.txt": "hello"})
	p := s3pub.New(g.client, s3pub.Options{Bucket: "links"})
	for _, d := range []time.Duration{500 * time.Millisecond, 999 * time.Millisecond, 8 * 24 * time.Hour, s3pub.MaxExpiry + time.Second} {
		_, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", false), publish.Options{ExpiresAfter: d})
		want := toolspec.MsgPublishS3ExpiryRange(d.Milliseconds(), 1000, 604800000)
		if errno.CodeOf(err) != errno.EINVAL || err.Error() != want {
			t.Errorf("ExpiresAfter %v: %v, want EINVAL %q", d, err, want)
		}
	}
	if n := objectCount(t, g, "links"); n != 0 {
		t.Errorf("%d objects uploaded, want none", n)
	}
	for _, d := range []time.Duration{s3pub.MinExpiry, s3pub.MaxExpiry} {
		if _, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", false), publish.Options{ExpiresAfter: d}); err != nil {
			t.Errorf("ExpiresAfter %v: %v", d, err)
		}
	}
}

func TestServerRefusal(t *testing.T) {
	g := startGateway(t, "links")
	ws := hostWorkspace(t, map[string]string{"/a.txt": "hello"})
	wrongKey := awss3.New(awss3.Options{
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, "not-the-secret-key", ""),
		BaseEndpoint: aws.String(g.endpoint),
		UsePathStyle: true,
	})
	for _, tc := range []struct {
		name   string
		client *awss3.Client
		bucket string
		want   string
	}{
		{"no such bucket", g.client, "no-such-bucket", toolspec.MsgPublishS3Failed("/a.txt", "no-such-bucket", "NoSuchBucket: The specified bucket does not exist.")},
		{"wrong secret", wrongKey, "links", toolspec.MsgPublishS3Failed("/a.txt", "links", "SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. Check your key and signing method.")},
	} {
		p := s3pub.New(tc.client, s3pub.Options{Bucket: tc.bucket})
		_, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", false), publish.Options{ExpiresAfter: time.Minute})
		if errno.CodeOf(err) != errno.EIO || err.Error() != tc.want {
			t.Errorf("%s: %v, want EIO %q", tc.name, err, tc.want)
		}
		var api smithy.APIError
		if !errors.As(err, &api) {
			t.Errorf("%s: %v does not unwrap to the SDK's smithy.APIError", tc.name, err)
		}
		if err != nil && (strings.Contains(err.Error(), testSecretKey) || strings.Contains(err.Error(), "not-the-secret-key") || strings.Contains(err.Error(), "Signature=")) {
			t.Errorf("%s: the error shows credentials: %v", tc.name, err)
		}
	}
}

// TestUnreachableServer publishes to an address nobody listens on: the
// model is told why in the SDK's words (connection refused), for a body
// the SDK can rewind and retry and for one it cannot.
func TestUnreachableServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client := awss3.New(awss3.Options{
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		BaseEndpoint: aws.String("http://" + addr),
		UsePathStyle: true,
	})
	ws := hostWorkspace(t, map[string]string{"/a.txt": "hello"})
	p := s3pub.New(client, s3pub.Options{Bucket: "links"})
	for _, seekable := range []bool{true, false} {
		_, err := p.Publish(t.Context(), workspaceFile(ws, "/a.txt", seekable), publish.Options{ExpiresAfter: time.Minute})
		prefix := toolspec.MsgPublishS3Failed("/a.txt", "links", "")
		if errno.CodeOf(err) != errno.EIO || err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("seekable %v: %v, want EIO %q... naming the refused connection", seekable, err, prefix)
		}
	}
}

func objectCount(t *testing.T, g *gateway, bucket string) int {
	t.Helper()
	out, err := g.client.ListObjectsV2(t.Context(), &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Contents)
}

func mustParse(t *testing.T, link string) *url.URL {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
