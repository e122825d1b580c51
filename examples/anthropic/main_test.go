package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// replies are the stand-in model's Messages API responses: it lists
// /workspace, reads hello.txt, then answers.
var replies = []string{
	`{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"tool_use","id":"toolu_01","name":"ls","input":{"path":"/workspace"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`,
	`{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"Reading it."},{"type":"tool_use","id":"toolu_02","name":"read","input":{"path":"/workspace/hello.txt"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":5}}`,
	`{"id":"msg_03","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"It says hello."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":5}}`,
}

// TestRun runs the example against a local stand-in for the Messages API
// (no network, no key): it prints the model's answer, declares the
// read-only tools, and sends each call's result, as the raw adapter
// answers it, for the tool_use id it answers.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var bodies []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/messages" || n >= len(replies) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unexpected request"}}`)
			return
		}
		io.WriteString(w, replies[n])
	}))
	defer api.Close()
	t.Setenv("ANTHROPIC_API_KEY", "test")

	var out bytes.Buffer
	if err := run(t.Context(), []string{"-base-url", api.URL, "-dir", dir, "-max-retries", "0"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "It says hello.\n" {
		t.Errorf("printed %q", out.String())
	}
	if len(bodies) != len(replies) {
		t.Fatalf("%d requests, want %d", len(bodies), len(replies))
	}

	var first struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(bodies[0]), &first); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range first.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "read ls find grep" {
		t.Errorf("tools %s, want the read-only ones", got)
	}

	ref := reference(t, dir)
	for i, call := range []struct{ id, tool, args string }{
		{"toolu_01", "ls", `{"path":"/workspace"}`},
		{"toolu_02", "read", `{"path":"/workspace/hello.txt"}`},
	} {
		o, err := ref.Execute(t.Context(), call.tool, []byte(call.args))
		if err != nil {
			t.Fatal(err)
		}
		text, _ := json.Marshal(o.AsText())
		want := `{"tool_use_id":"` + call.id + `","is_error":false,"content":[{"text":` + string(text) + `,"type":"text"}],"type":"tool_result"}`
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(bodies[i+1]), &req); err != nil {
			t.Fatal(err)
		}
		if last := string(req.Messages[len(req.Messages)-1]); last != `{"content":[`+want+`],"role":"user"}` {
			t.Errorf("request %d ends with %s, want the result of %s %s: %s", i+2, last, call.tool, call.args, want)
		}
	}
}

// reference is the raw adapter over dir at /workspace, read-only.
func reference(t *testing.T, dir string) *raw.Tools {
	t.Helper()
	host, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	ws := vfs.New(memfs.New())
	if err := ws.Mount(t.Context(), "/workspace", host, vfs.MountOptions{}); err != nil {
		t.Fatal(err)
	}
	ref, err := raw.New(ws, agenttools.Options{Readonly: true})
	if err != nil {
		t.Fatal(err)
	}
	return ref
}
