package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/toolspec"
)

// approvalFiles is the workspace of the approval tests.
var approvalFiles = map[string]string{"/workspace/a.txt": "old\n", "/workspace/b.txt": "keep\n"}

// checkFile fails unless the workspace file at p holds want.
func checkFile(t *testing.T, ex *core.Executor, p, want string) {
	t.Helper()
	if got := readString(t, ex.Workspace(), p); got != want {
		t.Errorf("%s = %q, want %q", p, got, want)
	}
}

// TestApprovalFailsClosed: with Approve "mutating" and no Approver nor
// decision, every tool that changes the workspace is refused in its own
// failure form and changes nothing; the others run.
func TestApprovalFailsClosed(t *testing.T) {
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell"}, execbackend.NewScripts(map[string]execbackend.Script{"touch x": {}}))
	pub := &publish.Scripted{}
	ex := newExec(t, core.Options{Approve: core.ApproveList{core.ApproveMutating}, Backends: []execbackend.Backend{shell}, Publisher: pub}, approvalFiles)
	if _, ok := ex.Tool("publish"); !ok {
		t.Fatal("no publish tool")
	}
	for _, tool := range ex.Tools() {
		info, _ := toolspec.Info(tool.Spec)
		if got := ex.NeedsApproval(tool.Name); got != info.Mutates {
			t.Errorf("NeedsApproval(%s) = %v, want %v (the spec's mutates)", tool.Name, got, info.Mutates)
		}
	}
	refused := func(tool string) string {
		b, _ := json.Marshal(toolspec.MsgApprovalRefused(tool))
		return string(b)
	}
	for _, c := range []struct{ tool, args, want string }{
		{"write", `{"path":"/workspace/a.txt","content":"new"}`, `{"error":` + refused("write") + `}`},
		{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"old","newText":"new"}]}`, `{"error":` + refused("edit") + `}`},
		{"delete", `{"path":"/workspace/b.txt"}`, `{"error":` + refused("delete") + `}`},
		{"exec", `{"command":"touch x","cwd":"/workspace"}`, `{"command":"touch x","cwd":"/workspace","backend":"shell","error":` + refused("exec") + `}`},
		{"publish", `{"path":"/workspace/a.txt"}`, `{"ok":false,"error":` + refused("publish") + `}`},
	} {
		checkOutput(t, call(t, ex, c.tool, c.args), toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(c.want)})
	}
	checkFile(t, ex, "/workspace/a.txt", "old\n")
	checkFile(t, ex, "/workspace/b.txt", "keep\n")
	if shares := pub.Shares(); len(shares) != 0 {
		t.Errorf("a refused publish reached the publisher: %+v", shares)
	}
	if out := call(t, ex, "read", `{"path":"/workspace/a.txt"}`); out.Kind != toolspec.OutputText || out.Text != "old" {
		t.Errorf("read without approval: %+v", out)
	}
}

// TestApprovalApprover: the Approver is asked for each call Approve names,
// with the name as called, the spec name and the checked arguments; its
// answer decides whether the call runs. read's refusal is its error text.
func TestApprovalApprover(t *testing.T) {
	var mu sync.Mutex
	var asked []core.ApprovalRequest
	approver := core.ApproverFunc(func(ctx context.Context, req core.ApprovalRequest) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return !strings.Contains(string(req.Arguments), "b.txt"), nil
	})
	ex := newExec(t, core.Options{Prefix: "ws_", Approve: core.ApproveList{"write", "read"}, Approver: approver}, approvalFiles)
	for name, want := range map[string]bool{"ws_write": true, "ws_read": true, "ws_edit": false, "ws_delete": false, "write": false} {
		if got := ex.NeedsApproval(name); got != want {
			t.Errorf("NeedsApproval(%s) = %v, want %v", name, got, want)
		}
	}
	checkOutput(t, call(t, ex, "ws_write", `{"path":"/workspace/a.txt","content":"new"}`),
		toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"path":"/workspace/a.txt","bytesWritten":3}`)})
	checkOutput(t, call(t, ex, "ws_write", `{"content":"gone","path":"/workspace/b.txt"}`),
		toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"error":"The user did not approve this ws_write call; nothing was changed."}`)})
	checkOutput(t, call(t, ex, "ws_read", `{"path":"/workspace/b.txt"}`),
		toolspec.Output{Kind: toolspec.OutputErrorText, Text: "The user did not approve this ws_read call; nothing was changed."})
	checkOutput(t, call(t, ex, "ws_delete", `{"path":"/workspace/b.txt"}`),
		toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"deleted":"/workspace/b.txt"}`)})
	checkFile(t, ex, "/workspace/a.txt", "new")
	want := []core.ApprovalRequest{
		{Tool: "ws_write", Spec: "write", Arguments: json.RawMessage(`{"path":"/workspace/a.txt","content":"new"}`)},
		{Tool: "ws_write", Spec: "write", Arguments: json.RawMessage(`{"path":"/workspace/b.txt","content":"gone"}`)},
		{Tool: "ws_read", Spec: "read", Arguments: json.RawMessage(`{"path":"/workspace/b.txt"}`)},
	}
	if diff := cmp.Diff(want, asked, cmp.Transformer("string", func(m json.RawMessage) string { return string(m) })); diff != "" {
		t.Errorf("approval requests (-want +got):\n%s", diff)
	}
}

// TestApprovalDecisionOnContext: a decision on the context (WithApproval)
// wins over the Approver, which is not asked.
func TestApprovalDecisionOnContext(t *testing.T) {
	approver := core.ApproverFunc(func(ctx context.Context, req core.ApprovalRequest) (bool, error) {
		t.Errorf("Approver asked about %s despite the decision on the context", req.Tool)
		return false, nil
	})
	ex := newExec(t, core.Options{Approve: core.ApproveList{core.ApproveMutating}, Approver: approver}, approvalFiles)
	out, err := ex.Call(core.WithApproval(t.Context(), false), "write", []byte(`{"path":"/workspace/a.txt","content":"new"}`))
	if err != nil || !strings.Contains(string(out.JSON), "did not approve") {
		t.Errorf("refused on the context: %s, %v", out.JSON, err)
	}
	checkFile(t, ex, "/workspace/a.txt", "old\n")
	out, err = ex.Call(core.WithApproval(t.Context(), true), "write", []byte(`{"path":"/workspace/a.txt","content":"new"}`))
	if err != nil || string(out.JSON) != `{"path":"/workspace/a.txt","bytesWritten":3}` {
		t.Errorf("approved on the context: %s, %v", out.JSON, err)
	}
	checkFile(t, ex, "/workspace/a.txt", "new")
}

// TestApprovalInvalidArguments: arguments that fail the schema get the
// usual message; nobody is asked.
func TestApprovalInvalidArguments(t *testing.T) {
	approver := core.ApproverFunc(func(ctx context.Context, req core.ApprovalRequest) (bool, error) {
		t.Errorf("Approver asked about invalid arguments %s", req.Arguments)
		return true, nil
	})
	ex := newExec(t, core.Options{Approve: core.ApproveList{"write"}, Approver: approver}, approvalFiles)
	out := call(t, ex, "write", `{"path":"/workspace/a.txt"}`)
	if want := toolspec.MsgArgumentsInvalid("write", toolspec.MsgArgumentsMissing("content")); out.Kind != toolspec.OutputErrorText || out.Text != want {
		t.Errorf("invalid arguments: %+v, want error text %q", out, want)
	}
}

// TestApprovalApproverError: an Approver that cannot decide fails the call
// with its error (a Go error, not a result) and nothing changes.
func TestApprovalApproverError(t *testing.T) {
	gone := errors.New("the human went away")
	approver := core.ApproverFunc(func(ctx context.Context, req core.ApprovalRequest) (bool, error) { return true, gone })
	ex := newExec(t, core.Options{Approve: core.ApproveList{"delete"}, Approver: approver}, approvalFiles)
	if _, err := ex.Call(t.Context(), "delete", []byte(`{"path":"/workspace/a.txt"}`)); !errors.Is(err, gone) {
		t.Errorf("Call error = %v, want the Approver's", err)
	}
	checkFile(t, ex, "/workspace/a.txt", "old\n")
}

// TestApproveOption: the option's JSON forms, and New refusing a name that
// is no tool.
func TestApproveOption(t *testing.T) {
	for _, c := range []struct {
		json string
		want core.ApproveList
		err  string
	}{
		{`{"approve":"mutating"}`, core.ApproveList{"mutating"}, ""},
		{`{"approve":["write","exec"]}`, core.ApproveList{"write", "exec"}, ""},
		{`{"approve":"write"}`, nil, `got "write"`},
		{`{"approve":3}`, nil, "list of tool names"},
	} {
		var o core.Options
		err := json.Unmarshal([]byte(c.json), &o)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.json, err, c.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(o.Approve, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.json, o.Approve, err, c.want)
		}
	}
	for _, names := range []core.ApproveList{{"wirte"}, {"ws_write"}} {
		_, err := core.New(newExec(t, core.Options{}, nil).Workspace(), core.Options{Prefix: "ws_", Approve: names})
		if err == nil || !strings.Contains(err.Error(), "not a tool") {
			t.Errorf("New with Approve %q: %v, want an error", names, err)
		}
	}
}
