// Package agentcase is the scripted agent session that every framework
// adapter's end-to-end test replays inside its framework's own agent
// loop: a workspace, a prompt, and the tool calls a scripted model makes,
// one per turn, covering every tool (a text read, an image read, a
// failing read, ls, find, grep, write, edit, delete, exec, publish), then
// its answer. Record checks what the model received against
// golden/testdata/adapters/<framework>/agent.txtar.
//
// Only tests import it.
package agentcase

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// Prompt is what the user asks; Answer is the scripted model's last
// message.
const (
	Prompt = "Tidy up the workspace and run the tests."
	Answer = "Done: notes are final, the scratch file is gone, tests pass."
)

// Call is one tool call of the scripted model.
type Call struct {
	ID   string // the tool call's id, call_1, call_2, ...
	Tool string
	Args string // JSON text, as the model sends it
}

// Calls are the scripted model's tool calls, in order, one per turn.
var Calls = func() []Call {
	list := []struct{ tool, args string }{
		{"read", `{"path":"/workspace/notes.txt"}`},
		{"read", `{"path":"/workspace/pixel.png"}`},
		{"read", `{"path":"/workspace/missing.txt"}`},
		{"ls", `{"path":"/workspace"}`},
		{"find", `{"pattern":"**/*.go"}`},
		{"grep", `{"query":"func main","path":"/workspace"}`},
		{"write", `{"path":"/workspace/scratch.txt","content":"temporary\n"}`},
		{"edit", `{"path":"/workspace/notes.txt","edits":[{"oldText":"status: draft","newText":"status: final"}]}`},
		{"delete", `{"path":"/workspace/scratch.txt"}`},
		{"exec", `{"command":"go test ./...","cwd":"/workspace"}`},
		{"publish", `{"path":"/workspace/notes.txt","expiresAfterMs":600000}`},
	}
	var calls []Call
	for i, c := range list {
		calls = append(calls, Call{ID: "call_" + strconv.Itoa(i+1), Tool: c.tool, Args: c.args})
	}
	return calls
}()

// Pixel is the 1x1 PNG at /workspace/pixel.png.
var Pixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

// Files are the workspace's files at the start of the session, by
// absolute path.
var Files = map[string][]byte{
	"/workspace/notes.txt":   []byte("# Notes\nstatus: draft\nowner: team\n"),
	"/workspace/pixel.png":   Pixel,
	"/workspace/cmd/main.go": []byte("package main\n\nfunc main() {}\n"),
	"/workspace/lib/lib.go":  []byte("package lib\n"),
}

// Clock is the workspace's fixed time (the oracle's).
const Clock = 1767225600000

// SessionID is the workspace's session id, which publish's links carry
// (agent-<id>).
const SessionID = "s1"

// Workspace is the session's workspace, in memory on a fixed clock, with
// SessionID, and the options every adapter is built with: exec on one
// scripted backend, "shell", on which go test ./... passes, and publish
// through a scripted publisher (the oracle's, https://assets.example/).
func Workspace(tb testing.TB) (*vfs.Workspace, agenttools.Options) {
	tb.Helper()
	ws := vfs.New(memfs.New(memfs.WithClock(func() time.Time { return time.UnixMilli(Clock) })))
	for p, content := range Files {
		if err := ws.WriteFile(tb.Context(), p, content, vfs.WriteOptions{CreateParents: true}); err != nil {
			tb.Fatal(err)
		}
	}
	scripts := execbackend.NewScripts(map[string]execbackend.Script{
		"go test ./...": {Stdout: []byte("ok  \texample/cmd\t0.01s\nok  \texample/lib\t0.01s\n")},
	})
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell", Description: "fast shell"}, scripts)
	ws.SetSessionID(SessionID)
	return ws, agenttools.Options{Backends: []execbackend.Backend{shell}, Publisher: &publish.Scripted{}}
}

// Session is what the model received in one run of the session.
type Session struct {
	// Tools are the tool definitions the model was sent, each as the JSON
	// the framework puts in its request (or the closest the framework
	// exposes), in the order sent.
	Tools []string
	// Results are what the model received for each of Calls, in order, as
	// text (the framework's tool message content).
	Results []string
	// Answer is the final answer the agent loop returned.
	Answer string
}

// Record checks s against golden/testdata/adapters/<framework>/agent.txtar
// (or writes it under -update), and that the session is complete: one
// definition per tool, one result per call, the scripted answer.
func Record(t *testing.T, framework string, s Session) {
	t.Helper()
	if len(s.Tools) != len(toolspec.ToolNames) {
		t.Errorf("the model was sent %d tool definitions, want %d", len(s.Tools), len(toolspec.ToolNames))
	}
	if len(s.Results) != len(Calls) {
		t.Fatalf("the model received %d tool results, want %d", len(s.Results), len(Calls))
	}
	if s.Answer != Answer {
		t.Errorf("answer %q, want %q", s.Answer, Answer)
	}
	path := filepath.Join(goldentest.ModuleRoot(t), "golden", "testdata", "adapters", framework, "agent.txtar")
	if *goldentest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := goldentest.Load(t, path)
	for i, def := range s.Tools {
		a.Check(t, "tool "+strconv.Itoa(i+1), def)
	}
	for i, c := range Calls {
		a.Check(t, "call "+c.ID, c.Tool+" "+c.Args)
		a.Check(t, "result "+c.ID, s.Results[i])
	}
	a.Check(t, "answer", s.Answer)
	a.Save(t, nil)
}

// ReadArgs is the call the adapters' benchmarks time: a read of the
// session's small notes file.
const ReadArgs = `{"path":"/workspace/notes.txt"}`

// BenchReadCore times ReadArgs through ex alone, the baseline each
// adapter's BenchmarkRead is measured against: the difference is the
// adapter's (and its framework's) cost per call.
func BenchReadCore(b *testing.B, ex *core.Executor) {
	args := []byte(ReadArgs)
	b.ReportAllocs()
	for b.Loop() {
		out, err := ex.Call(b.Context(), "read", args)
		if err != nil || out.Kind != toolspec.OutputText {
			b.Fatal(out, err)
		}
	}
}
