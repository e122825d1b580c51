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
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
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

// FileText is the content of the file at path in ws; it fails the test
// when the file cannot be read.
func FileText(tb testing.TB, ws *vfs.Workspace, path string) string {
	tb.Helper()
	r, _, err := ws.Open(tb.Context(), path, 0)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return string(data)
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
	path := filepath.Join(goldentest.RepoRoot(t), "golden", "testdata", "adapters", framework, "agent.txtar")
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

// ApprovalCalls are the scripted calls of a session whose tool set asks
// for approval of every tool that changes the workspace (Options.Approve
// "mutating"): two writes, the first to be approved, the second refused.
var ApprovalCalls = []Call{
	{ID: "call_1", Tool: "write", Args: `{"path":"/workspace/approved.txt","content":"approved\n"}`},
	{ID: "call_2", Tool: "write", Args: `{"path":"/workspace/refused.txt","content":"refused\n"}`},
}

// ApprovalResults are what the model must receive for ApprovalCalls, as
// text: the first write's result and the second's refusal.
var ApprovalResults = []string{
	`{"path":"/workspace/approved.txt","bytesWritten":9}`,
	string(toolspec.ResultOutput(toolspec.ErrorResult{Error: toolspec.MsgApprovalRefused(toolspec.ToolWrite)}).JSON),
}

// Approves reports whether a human approves the call req of
// ApprovalCalls: the write to approved.txt only.
func Approves(req core.ApprovalRequest) bool {
	var args struct{ Path string }
	return json.Unmarshal(req.Arguments, &args) == nil && args.Path == "/workspace/approved.txt"
}

// Approver is Approves as a core.Approver (Options.Approver).
var Approver = core.ApproverFunc(func(_ context.Context, req core.ApprovalRequest) (bool, error) {
	return Approves(req), nil
})

// ApprovalWorkspace is Workspace with options that ask for approval of
// every change (Approve "mutating") of Approver. An adapter whose
// framework asks the human itself sets Approver to nil.
func ApprovalWorkspace(tb testing.TB) (*vfs.Workspace, agenttools.Options) {
	ws, opts := Workspace(tb)
	opts.Approve = core.ApproveList{core.ApproveMutating}
	opts.Approver = Approver
	return ws, opts
}

// CheckApproval fails tb unless the model received results (text, one
// per call of ApprovalCalls, in order: ApprovalResults) and ws shows that
// the calls ran as approved: approved.txt written, refused.txt never
// created.
func CheckApproval(tb testing.TB, ws *vfs.Workspace, results []string) {
	tb.Helper()
	if len(results) != len(ApprovalCalls) {
		tb.Fatalf("the model received %d results, want %d", len(results), len(ApprovalCalls))
	}
	for i, c := range ApprovalCalls {
		if results[i] != ApprovalResults[i] {
			tb.Errorf("the model received %q for %s %s, want %q", results[i], c.Tool, c.Args, ApprovalResults[i])
		}
	}
	r, _, err := ws.Open(tb.Context(), "/workspace/approved.txt", 0)
	if err != nil {
		tb.Fatalf("the approved write did not happen: %v", err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(got) != "approved\n" {
		tb.Errorf("approved.txt = %q, %v; want %q", got, err, "approved\n")
	}
	if _, err := ws.Stat(tb.Context(), "/workspace/refused.txt"); !errors.Is(err, fs.ErrNotExist) {
		tb.Errorf("the refused write changed the workspace: stat refused.txt: %v", err)
	}
}
