package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
)

// The S3 server the tests run on loopback: versitygw, a Go S3 gateway,
// with its POSIX backend (metadata in a sidecar directory, so the
// filesystem needs no extended attributes). It checks SigV4 signatures,
// presigned ones included, and their expiry against its own clock.
//
// It is built from the module proxy by `go install` into the user's
// cache directory, in its own module (so this module's go.mod does not
// take its dependencies), once: later runs find it up to date. Setting
// AGENTTOOLS_VERSITYGW to a versitygw binary skips the build.
const versitygwPackage = "github.com/versity/versitygw/cmd/versitygw@v1.8.0"

const (
	testAccessKey = "AKIAAGENTTOOLSTEST"
	testSecretKey = "agenttools-test-secret-key"
	testRegion    = "us-east-1"
)

// versitygw returns the path of the versitygw binary, building it the
// first time.
func versitygw(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTTOOLS_VERSITYGW"); p != "" {
		return p
	}
	p, err := buildVersitygw()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var buildVersitygw = sync.OnceValues(func() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "agenttools", "versitygw-v1.8.0")
	cmd := exec.Command("go", "install", versitygwPackage)
	// Its own module, whatever the environment says of this one.
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s: %v\n%s", versitygwPackage, err, out)
	}
	if runtime.GOOS == "windows" {
		return filepath.Join(dir, "versitygw.exe"), nil
	}
	return filepath.Join(dir, "versitygw"), nil
})

// gateway is a running versitygw and a client of it.
type gateway struct {
	// endpoint is the server's base URL, http://127.0.0.1:PORT.
	endpoint string
	client   *awss3.Client
	// uploads sees the client's requests.
	uploads uploadRecorder
}

// uploadRecorder is the client's HTTP client: it records the payload
// hash each PUT was signed with (X-Amz-Content-Sha256).
type uploadRecorder struct {
	mu     sync.Mutex
	hashes []string
}

func (u *uploadRecorder) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut {
		u.mu.Lock()
		u.hashes = append(u.hashes, req.Header.Get("X-Amz-Content-Sha256"))
		u.mu.Unlock()
	}
	return http.DefaultClient.Do(req)
}

// last returns the payload hash of the last PUT.
func (u *uploadRecorder) last() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.hashes) == 0 {
		return ""
	}
	return u.hashes[len(u.hashes)-1]
}

// startGateway runs a versitygw of the test's own on a free loopback
// port, with bucket created, and stops it when the test ends.
func startGateway(t *testing.T, bucket string) *gateway {
	t.Helper()
	bin := versitygw(t)
	// A port that was free a moment ago: versitygw reports no port it
	// chose itself.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	var out bytes.Buffer
	cmd := exec.Command(bin, "--access", testAccessKey, "--secret", testSecretKey, "--region", testRegion,
		"--port", addr, "--quiet", "posix", "--sidecar", t.TempDir(), t.TempDir())
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	// Ready when it accepts a connection; it prints its banner before it
	// listens, so there is nothing to wait on but the port.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited before listening on %s: %v\n%s", addr, err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw does not listen on %s after 30 s:\n%s", addr, out.String())
		}
	}

	g := &gateway{endpoint: "http://" + addr}
	g.client = awss3.New(awss3.Options{
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		BaseEndpoint: aws.String(g.endpoint),
		UsePathStyle: true,
		HTTPClient:   &g.uploads,
	})
	if bucket != "" {
		if _, err := g.client.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			t.Fatalf("CreateBucket %s: %v", bucket, err)
		}
	}
	return g
}

// skewedPresigner signs links as a clock off by skew would: the
// server's clock cannot be set, so a link is made to look as old as a
// test needs instead of waiting for it to age.
type skewedPresigner struct {
	signer *v4.Signer
	skew   time.Duration
}

func (p skewedPresigner) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string, signingTime time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return p.signer.PresignHTTP(ctx, creds, r, payloadHash, service, region, signingTime.Add(p.skew), optFns...)
}

// signedAgo returns presign options that sign links as if it were ago
// earlier, with the S3 client's own signer settings.
func signedAgo(ago time.Duration) func(*awss3.PresignOptions) {
	return func(o *awss3.PresignOptions) {
		o.Presigner = skewedPresigner{
			signer: v4.NewSigner(func(so *v4.SignerOptions) { so.DisableURIPathEscaping = true }),
			skew:   -ago,
		}
	}
}

// get fetches url with a plain HTTP client, as a person or a browser
// would, and returns the status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	status, body, _ := getWithHeader(t, url)
	return status, body
}

func getWithHeader(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body.String(), resp.Header
}
