package local_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/publish/local"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// newClock is a clock for Options.Now, set by the test.
func newClock() *storetest.Clock {
	return storetest.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
}

// advance moves clk on by d.
func advance(clk *storetest.Clock, d time.Duration) { clk.Set(clk.Now().Add(d)) }

// serve starts a Publisher with opts behind a real HTTP server on
// loopback (BaseURL is the server's, plus basePath).
func serve(t *testing.T, basePath string, opts local.Options) (*local.Publisher, *httptest.Server) {
	t.Helper()
	var p *local.Publisher
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	opts.BaseURL = srv.URL + basePath
	p, err := local.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p, srv
}

// memFile is a File whose Open serves data, as a workspace file at
// path.
func memFile(path string, data []byte) publish.File {
	return publish.NewFile(path, func(context.Context) (io.ReadCloser, publish.Info, error) {
		return io.NopCloser(bytes.NewReader(data)), publish.Info{Path: path, Size: int64(len(data))}, nil
	})
}

// response is what a GET or HEAD answered.
type response struct {
	status  int
	body    string
	headers http.Header
}

func fetch(t *testing.T, method, link string, header ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, string(body), res.Header}
}

func publishOK(t *testing.T, p *local.Publisher, f publish.File, opts publish.Options) string {
	t.Helper()
	link, err := p.Publish(t.Context(), f, opts)
	if err != nil {
		t.Fatalf("Publish(%s): %v", f.Path, err)
	}
	return link
}

func TestPublishThenFetch(t *testing.T) {
	clk := newClock()
	p, srv := serve(t, "", local.Options{Now: clk.Now})
	content := "quarterly numbers\n"
	link := publishOK(t, p, memFile("/workspace/reports/q4 summary.txt", []byte(content)), publish.Options{ExpiresAfter: time.Hour, Prefix: "agent-s1"})
	if want := srv.URL + "/agent-s1/workspace/reports/q4%20summary.txt?"; !strings.HasPrefix(link, want) {
		t.Errorf("link %s, want it to start with %s", link, want)
	}
	u, _ := url.Parse(link)
	if q := u.Query(); q.Get("id") == "" || q.Get("sig") == "" || q.Get("exp") != fmt.Sprint(clk.Now().Add(time.Hour).UnixMilli()) {
		t.Errorf("link query %v: want id, sig and exp the expiry in Unix ms", q)
	}

	got := fetch(t, http.MethodGet, link)
	want := map[string]string{
		"Content-Type":        "text/plain; charset=utf-8",
		"Content-Length":      fmt.Sprint(len(content)),
		"Content-Disposition": `inline; filename="q4 summary.txt"`,
		"Cache-Control":       "private, max-age=3600",
	}
	if got.status != http.StatusOK || got.body != content {
		t.Fatalf("GET: %d %q, want 200 %q", got.status, got.body, content)
	}
	for k, v := range want {
		if got.headers.Get(k) != v {
			t.Errorf("GET %s: %q, want %q", k, got.headers.Get(k), v)
		}
	}

	head := fetch(t, http.MethodHead, link)
	if head.status != http.StatusOK || head.body != "" || head.headers.Get("Content-Length") != want["Content-Length"] {
		t.Errorf("HEAD: %d %q Content-Length %q", head.status, head.body, head.headers.Get("Content-Length"))
	}
	part := fetch(t, http.MethodGet, link, "Range", "bytes=10-16")
	if part.status != http.StatusPartialContent || part.body != "numbers" {
		t.Errorf("Range: %d %q, want 206 %q", part.status, part.body, "numbers")
	}
	advance(clk, 59*time.Minute)
	if got := fetch(t, http.MethodGet, link).headers.Get("Cache-Control"); got != "private, max-age=60" {
		t.Errorf("Cache-Control a minute before expiry: %q", got)
	}
	if got := fetch(t, http.MethodPost, link); got.status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", got.status)
	}
}

// TestContentType: the extension's type, or the bytes' without a known
// extension; and Content-Security-Policy sandbox, so that a page the
// model publishes (HTML by its name or its bytes, SVG) never runs its
// scripts on the publisher's origin, but on a PDF (browsers' PDF viewers
// refuse a sandboxed document).
func TestContentType(t *testing.T) {
	p, _ := serve(t, "", local.Options{})
	for path, want := range map[string][2]string{
		"/workspace/chart.png": {"image/png", "sandbox"},
		"/workspace/page":      {"text/html; charset=utf-8", "sandbox"},
		"/workspace/page.html": {"text/html; charset=utf-8", "sandbox"},
		"/workspace/logo.svg":  {"image/svg+xml", "sandbox"},
		"/workspace/data.json": {"application/json", "sandbox"},
		"/workspace/doc.pdf":   {"application/pdf", ""},
	} {
		link := publishOK(t, p, memFile(path, []byte("<html><body>hi<script>fetch('/')</script></body></html>")), publish.Options{ExpiresAfter: time.Minute})
		h := fetch(t, http.MethodGet, link).headers
		if got := [2]string{h.Get("Content-Type"), h.Get("Content-Security-Policy")}; got != want {
			t.Errorf("%s: Content-Type, Content-Security-Policy %q, want %q", path, got, want)
		}
	}
}

// TestTamperedLinks: a link with any part changed, or signed with
// another key, is refused with 403.
func TestTamperedLinks(t *testing.T) {
	p, srv := serve(t, "", local.Options{})
	link := publishOK(t, p, memFile("/workspace/a.txt", []byte("secret a")), publish.Options{ExpiresAfter: time.Hour})
	other := publishOK(t, p, memFile("/workspace/b.txt", []byte("secret b")), publish.Options{ExpiresAfter: time.Hour})
	stranger, _ := serve(t, "", local.Options{})
	foreign := publishOK(t, stranger, memFile("/workspace/a.txt", []byte("secret a")), publish.Options{ExpiresAfter: time.Hour})
	u, _ := url.Parse(link)
	q := u.Query()
	ou, _ := url.Parse(other)
	fu, _ := url.Parse(foreign)
	with := func(path, key, value string) string {
		v := url.Values{}
		for k := range q {
			v.Set(k, q.Get(k))
		}
		if value == "" {
			v.Del(key)
		} else if key != "" {
			v.Set(key, value)
		}
		return srv.URL + path + "?" + v.Encode()
	}
	sig := []byte(q.Get("sig"))
	sig[0] ^= 1
	cases := map[string]string{
		"signature changed":        with(u.Path, "sig", string(sig)),
		"signature missing":        with(u.Path, "sig", ""),
		"path changed":             with("/workspace/b.txt", "", ""),
		"prefix added":             with("/agent-x"+u.Path, "", ""),
		"expiry moved later":       with(u.Path, "exp", fmt.Sprint(mustInt(t, q.Get("exp"))+3_600_000)),
		"expiry not a number":      with(u.Path, "exp", "soon"),
		"another copy's id":        with(u.Path, "id", ou.Query().Get("id")),
		"another publisher's link": srv.URL + fu.Path + "?" + fu.RawQuery,
		"no query":                 srv.URL + u.Path,
	}
	for name, bad := range cases {
		if got := fetch(t, http.MethodGet, bad); got.status != http.StatusForbidden || strings.Contains(got.body, "secret") {
			t.Errorf("%s: %d %q, want 403", name, got.status, got.body)
		}
	}
	if got := fetch(t, http.MethodGet, link); got.status != http.StatusOK || got.body != "secret a" {
		t.Errorf("the link itself: %d %q", got.status, got.body)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestExpiry: a link works until its expiry, then answers 410, and the
// next sweep deletes the copy and frees its bytes.
func TestExpiry(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	p, _ := serve(t, "", local.Options{Now: clk.Now, Dir: dir, MaxTotalBytes: 10})
	link := publishOK(t, p, memFile("/workspace/a.txt", []byte("12345678")), publish.Options{ExpiresAfter: 1500 * time.Millisecond})
	if _, err := p.Publish(t.Context(), memFile("/workspace/b.txt", []byte("12345")), publish.Options{ExpiresAfter: time.Hour}); errno.CodeOf(err) != errno.ENOSPC ||
		err.Error() != toolspec.MsgPublishLocalFull("/workspace/b.txt", 5, 10) {
		t.Errorf("a publish past the total: %v, want ENOSPC %q", err, toolspec.MsgPublishLocalFull("/workspace/b.txt", 5, 10))
	}
	advance(clk, 1499*time.Millisecond)
	if got := fetch(t, http.MethodGet, link); got.status != http.StatusOK || got.headers.Get("Cache-Control") != "private, max-age=0" {
		t.Errorf("1 ms before expiry: %d %q", got.status, got.headers.Get("Cache-Control"))
	}
	advance(clk, time.Millisecond)
	if got := fetch(t, http.MethodGet, link); got.status != http.StatusGone || strings.Contains(got.body, "1234") {
		t.Errorf("at expiry: %d %q, want 410", got.status, got.body)
	}
	if n, used := p.Live(); n != 1 || used != 8 {
		t.Errorf("before a sweep: %d copies, %d bytes, want 1, 8", n, used)
	}
	// Publish sweeps first: the expired copy's bytes make room.
	link2 := publishOK(t, p, memFile("/workspace/b.txt", []byte("12345")), publish.Options{ExpiresAfter: time.Hour})
	if n, used := p.Live(); n != 1 || used != 5 {
		t.Errorf("after the sweep: %d copies, %d bytes, want 1, 5", n, used)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("copies on disk after the sweep: %v, want one", entries)
	}
	if got := fetch(t, http.MethodGet, link2); got.body != "12345" {
		t.Errorf("the new link: %d %q", got.status, got.body)
	}
}

// TestBounds: the per-file cap (on the size Open reports and on the
// bytes actually read) and the longest expiry refuse the publish and
// keep nothing.
func TestBounds(t *testing.T) {
	dir := t.TempDir()
	p, _ := serve(t, "", local.Options{Dir: dir, MaxFileBytes: 4})
	grows := publish.NewFile("/workspace/log.txt", func(context.Context) (io.ReadCloser, publish.Info, error) {
		// Open saw 3 bytes; the file grew before it was copied.
		return io.NopCloser(strings.NewReader("abcdef")), publish.Info{Path: "/workspace/log.txt", Size: 3}, nil
	})
	huge := publish.NewFile("/workspace/huge.iso", func(context.Context) (io.ReadCloser, publish.Info, error) {
		// Refused by its size, before a byte is read.
		return io.NopCloser(iotest.ErrReader(errors.New("read"))), publish.Info{Path: "/workspace/huge.iso", Size: 1 << 40}, nil
	})
	cases := []struct {
		name string
		f    publish.File
		opts publish.Options
		code errno.Code
		msg  string
	}{
		{"over the file cap", memFile("/workspace/big.bin", []byte("12345")), publish.Options{ExpiresAfter: time.Hour},
			errno.EFBIG, toolspec.MsgPublishLocalTooLarge(5, 4, "/workspace/big.bin")},
		{"over the file cap by its size", huge, publish.Options{ExpiresAfter: time.Hour},
			errno.EFBIG, toolspec.MsgPublishLocalTooLarge(1<<40, 4, "/workspace/huge.iso")},
		{"grew past the cap while copied", grows, publish.Options{ExpiresAfter: time.Hour},
			errno.EFBIG, toolspec.MsgPublishLocalTooLarge(5, 4, "/workspace/log.txt")},
		{"expiry past 7 days", memFile("/workspace/a.txt", []byte("a")), publish.Options{ExpiresAfter: 7*24*time.Hour + time.Millisecond},
			errno.EINVAL, toolspec.MsgPublishLocalExpiryTooLong(7*24*3600*1000+1, 7*24*3600*1000)},
	}
	for _, c := range cases {
		_, err := p.Publish(t.Context(), c.f, c.opts)
		if errno.CodeOf(err) != c.code || err.Error() != c.msg {
			t.Errorf("%s: %v, want %s %q", c.name, err, c.code, c.msg)
		}
	}
	if n, used := p.Live(); n != 0 || used != 0 {
		t.Errorf("after refused publishes: %d copies, %d bytes", n, used)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left in the directory: %v", entries)
	}
	publishOK(t, p, memFile("/workspace/ok.bin", []byte("1234")), publish.Options{ExpiresAfter: 7 * 24 * time.Hour})
}

// TestOpenError: what File.Open fails with is what Publish fails with,
// the text the model sees.
func TestOpenError(t *testing.T) {
	p, _ := serve(t, "", local.Options{})
	want := errno.New(errno.ENOENT, toolspec.MsgNoSuchFile("/workspace/gone.txt"), "/workspace/gone.txt")
	f := publish.NewFile("/workspace/gone.txt", func(context.Context) (io.ReadCloser, publish.Info, error) {
		return nil, publish.Info{}, want
	})
	if _, err := p.Publish(t.Context(), f, publish.Options{ExpiresAfter: time.Hour}); !errors.Is(err, want) && err != error(want) {
		t.Errorf("Publish: %v, want %v", err, want)
	}
}

// TestCopyIsTaken: the link serves the bytes the file had at publish
// time, whatever happens to the file afterwards.
func TestCopyIsTaken(t *testing.T) {
	p, _ := serve(t, "", local.Options{})
	host := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(host, []byte("version 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := publish.NewFile("/workspace/notes.md", func(context.Context) (io.ReadCloser, publish.Info, error) {
		file, err := os.Open(host)
		if err != nil {
			return nil, publish.Info{}, err
		}
		fi, _ := file.Stat()
		return file, publish.Info{Path: "/workspace/notes.md", Size: fi.Size()}, nil
	})
	link := publishOK(t, p, f, publish.Options{ExpiresAfter: time.Hour})
	if err := os.WriteFile(host, []byte("version 2, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := fetch(t, http.MethodGet, link); got.body != "version 1" {
		t.Errorf("after the file changed: %q, want %q", got.body, "version 1")
	}
	if err := os.Remove(host); err != nil {
		t.Fatal(err)
	}
	if got := fetch(t, http.MethodGet, link); got.body != "version 1" {
		t.Errorf("after the file was removed: %q, want %q", got.body, "version 1")
	}
}

// TestConcurrentPublishes: publishes from many goroutines each get
// their own copy and link (run with -race).
func TestConcurrentPublishes(t *testing.T) {
	p, _ := serve(t, "", local.Options{})
	const n = 16
	links := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			link, err := p.Publish(context.Background(), memFile(fmt.Sprintf("/workspace/f%d.txt", i), []byte(strings.Repeat(fmt.Sprint(i), i+1))), publish.Options{ExpiresAfter: time.Hour})
			if err != nil {
				t.Error(err)
			}
			links[i] = link
			if got := fetch(t, http.MethodGet, link); got.body != strings.Repeat(fmt.Sprint(i), i+1) {
				t.Errorf("link %d: %q", i, got.body)
			}
		})
	}
	wg.Wait()
	var total int64
	for i := range n {
		total += int64(len(strings.Repeat(fmt.Sprint(i), i+1)))
	}
	if copies, used := p.Live(); copies != n || used != total {
		t.Errorf("%d copies, %d bytes, want %d, %d", copies, used, n, total)
	}
}

// TestRestart: with the same Dir and Key, a new Publisher serves the
// links of the one before; with another key, it refuses them. Close of
// a Publisher that made its own directory removes it.
func TestRestart(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	dir := t.TempDir()
	var p *local.Publisher
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.ServeHTTP(w, r) }))
	defer srv.Close()
	p, err := local.New(local.Options{BaseURL: srv.URL, Dir: dir, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	link := publishOK(t, p, memFile("/workspace/a.txt", []byte("kept")), publish.Options{ExpiresAfter: time.Hour})
	p.Close()
	if p, err = local.New(local.Options{BaseURL: srv.URL, Dir: dir, Key: key}); err != nil {
		t.Fatal(err)
	}
	if got := fetch(t, http.MethodGet, link); got.status != http.StatusOK || got.body != "kept" {
		t.Errorf("after a restart with the key: %d %q", got.status, got.body)
	}
	if n, used := p.Live(); n != 1 || used != 4 {
		t.Errorf("copies taken over: %d, %d bytes", n, used)
	}
	p.Close()
	if p, err = local.New(local.Options{BaseURL: srv.URL, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if got := fetch(t, http.MethodGet, link); got.status != http.StatusForbidden {
		t.Errorf("after a restart with another key: %d, want 403", got.status)
	}
	p.Close()

	if p, err = local.New(local.Options{BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	link = publishOK(t, p, memFile("/workspace/a.txt", []byte("gone")), publish.Options{ExpiresAfter: time.Hour})
	p.Close()
	if got := fetch(t, http.MethodGet, link); got.status == http.StatusOK {
		t.Errorf("after Close: %d %q", got.status, got.body)
	}
}

// TestBasePath: behind a proxy at a path, the link carries the path,
// and the handler answers whether or not the proxy strips it.
func TestBasePath(t *testing.T) {
	p, srv := serve(t, "/files/", local.Options{})
	link := publishOK(t, p, memFile("/workspace/a.txt", []byte("A")), publish.Options{ExpiresAfter: time.Hour, Prefix: "agent-1"})
	if want := srv.URL + "/files/agent-1/workspace/a.txt?"; !strings.HasPrefix(link, want) {
		t.Fatalf("link %s, want it to start with %s", link, want)
	}
	stripped := strings.Replace(link, "/files/", "/", 1)
	for _, l := range []string{link, stripped} {
		if got := fetch(t, http.MethodGet, l); got.status != http.StatusOK || got.body != "A" {
			t.Errorf("%s: %d %q", l, got.status, got.body)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	for name, opts := range map[string]local.Options{
		"no BaseURL":      {},
		"relative":        {BaseURL: "/files"},
		"ftp":             {BaseURL: "ftp://host/"},
		"query":           {BaseURL: "http://host/?a=b"},
		"short key":       {BaseURL: "http://host", Key: []byte("short")},
		"negative cap":    {BaseURL: "http://host", MaxFileBytes: -1},
		"negative expiry": {BaseURL: "http://host", MaxExpiry: -time.Second},
	} {
		if p, err := local.New(opts); err == nil {
			p.Close()
			t.Errorf("%s: New succeeded", name)
		}
	}
}

// TestSweepBetweenPublishes: an expired copy is deleted by the sweep that
// runs every SweepEvery, with no publish to trigger it (the README's
// "deleted on every publish and every minute"); Close stops that sweep.
func TestSweepBetweenPublishes(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	p, _ := serve(t, "", local.Options{Now: clk.Now, Dir: dir, SweepEvery: time.Millisecond})
	publishOK(t, p, memFile("/workspace/a.txt", []byte("12345678")), publish.Options{ExpiresAfter: time.Second})
	advance(clk, time.Second)
	// A guard against a hang, not a speed target: the sweep runs every
	// millisecond, so the copy goes long before the deadline.
	deadline := time.Now().Add(30 * time.Second)
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if n, used := p.Live(); n == 0 && used == 0 && len(entries) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after expiry, with no publish: %d files on disk (%v), want none", len(entries), entries)
		}
		runtime.Gosched()
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}
