package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a bytes.Buffer a subprocess writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMCPPublish: the built `agenttools mcp --publish-addr 127.0.0.1:0`,
// driven by the SDK's client as a subprocess, offers publish, says on
// stderr where it serves, and the link publish returns serves the
// file's bytes (as published) to a plain HTTP client; a changed link is
// refused; a missing file and a directory are ok:false.
func TestMCPPublish(t *testing.T) {
	dir := t.TempDir()
	report := []byte("%PDF-1.4 quarterly report\n")
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), report, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cs, cmd, served, stderr := startPublishing(ctx, t, dir)
	defer cs.Close()
	call := func(args string) (map[string]any, bool) { return callPublish(ctx, t, cs, args) }
	out, isError := call(`{"path":"/workspace/report.pdf","expiresAfterMs":60000}`)
	link, _ := out["url"].(string)
	if isError || out["ok"] != true || !strings.HasPrefix(link, served+"/workspace/report.pdf?") {
		t.Fatalf("publish: %v (isError %v), want ok and a link under %s", out, isError, served)
	}
	// Changed after publish: the link serves the copy.
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	get := func(link string) (int, []byte, http.Header) { return httpGet(t, link) }
	status, body, h := get(link)
	if status != http.StatusOK || !bytes.Equal(body, report) || h.Get("Content-Type") != "application/pdf" {
		t.Errorf("GET %s: %d %q %q, want 200 application/pdf %q", link, status, h.Get("Content-Type"), body, report)
	}
	u, _ := url.Parse(link)
	q := u.Query()
	q.Set("exp", q.Get("exp")+"0")
	u.RawQuery = q.Encode()
	if status, body, _ := get(u.String()); status != http.StatusForbidden || bytes.Contains(body, report) {
		t.Errorf("GET with a later expiry: %d %q, want 403", status, body)
	}
	for args, want := range map[string]string{
		`{"path":"/workspace/missing.pdf"}`: "no such file: /workspace/missing.pdf",
		`{"path":"/workspace/sub"}`:         "path is a directory: /workspace/sub",
	} {
		if out, _ := call(args); out["ok"] != false || out["error"] != want {
			t.Errorf("publish %s: %v, want ok:false with %q", args, out, want)
		}
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("the server did not exit cleanly: %v\n%s", cmd.ProcessState, stderr.String())
	}
	// The links die with the server.
	if _, err := http.Get(link); err == nil {
		t.Errorf("the link still answers after the server exited")
	}
}

// startPublishing starts the built `agenttools mcp` on dir with
// --publish-addr 127.0.0.1:0 and more flags, connects the SDK's client
// and returns where stderr says it publishes.
func startPublishing(ctx context.Context, t *testing.T, dir string, flags ...string) (*sdk.ClientSession, *osexec.Cmd, string, *syncBuffer) {
	t.Helper()
	args := append([]string{"mcp", "--dir", dir, "--db", filepath.Join(t.TempDir(), "ws.db"), "--publish-addr", "127.0.0.1:0"}, flags...)
	cmd := osexec.Command(agenttoolsBinary(t), args...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := toolNames(ctx, t, cs); !slices.Contains(names, "publish") {
		t.Fatalf("tools %v: no publish with --publish-addr", names)
	}
	// The server has answered, so its stderr line is written.
	served := regexp.MustCompile(`agenttools mcp: publishing files on (http://127\.0\.0\.1:[1-9][0-9]*)[ \n]`).FindStringSubmatch(stderr.String())
	if served == nil {
		t.Fatalf("stderr does not say where it publishes: %q", stderr.String())
	}
	return cs, cmd, served[1], stderr
}

// callPublish calls publish and decodes its JSON result.
func callPublish(ctx context.Context, t *testing.T, cs *sdk.ClientSession, args string) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "publish", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("publish %s: %v", args, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	return out, res.IsError
}

// httpGet fetches link with a plain HTTP client.
func httpGet(t *testing.T, link string) (int, []byte, http.Header) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body, res.Header
}

// TestMCPPublishBaseURL: with --publish-base-url, links start with that
// URL (a proxy in front), stderr says so, and the server answers the
// link's path with the URL's path or without it.
func TestMCPPublishBaseURL(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	const base = "https://files.example.com/agent"
	cs, _, served, stderr := startPublishing(ctx, t, dir, "--publish-base-url", base)
	defer cs.Close()
	if !strings.Contains(stderr.String(), served+" (links start with "+base+")\n") {
		t.Errorf("stderr does not name the base URL: %q", stderr.String())
	}
	out, _ := callPublish(ctx, t, cs, `{"path":"/workspace/a.txt"}`)
	link, _ := out["url"].(string)
	rest, ok := strings.CutPrefix(link, base+"/workspace/a.txt?")
	if out["ok"] != true || !ok {
		t.Fatalf("publish: %v, want a link under %s", out, base)
	}
	for _, direct := range []string{served + "/agent/workspace/a.txt?" + rest, served + "/workspace/a.txt?" + rest} {
		if status, body, _ := httpGet(t, direct); status != http.StatusOK || string(body) != "A" {
			t.Errorf("GET %s: %d %q", direct, status, body)
		}
	}
}

// TestPublishAddrInUse: an address that cannot be listened on fails the
// command before the workspace database is made.
func TestPublishAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	db := filepath.Join(t.TempDir(), "ws.db")
	got := runCLI(t, "", "mcp", "--db", db, "--publish-addr", ln.Addr().String())
	if got.code != 2 || !strings.Contains(got.stderr, "agenttools mcp: --publish-addr: listen tcp "+ln.Addr().String()) {
		t.Errorf("mcp on an address in use: %+v", got)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("the database was made")
	}
}
