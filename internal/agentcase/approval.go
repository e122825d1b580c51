package agentcase

import (
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Notes is the session's notes file, which ApprovalWrite rewrites.
const Notes = "/workspace/notes.txt"

// ApprovalWrite is a call of the approval tests of frameworks that ask
// the human themselves: a write of Notes that waits for a human
// (ApprovalWorkspace).
var ApprovalWrite = Call{ID: "call_1", Tool: "write", Args: `{"path":"/workspace/notes.txt","content":"status: approved\n"}`}

// ApprovalAnswer is what core answers for c, approved or refused (a
// decision on the context, which the Approver does not override), on a
// fresh ApprovalWorkspace: the tool's result, or the refusal in its
// failure form.
func ApprovalAnswer(tb testing.TB, c Call, approved bool) string {
	tb.Helper()
	ws, opts := ApprovalWorkspace(tb)
	ex, err := core.New(ws, opts)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := ex.Call(core.WithApproval(tb.Context(), approved), c.Tool, []byte(c.Args))
	if err != nil {
		tb.Fatal(err)
	}
	text := out.AsText()
	if refused := strings.Contains(text, toolspec.MsgApprovalRefused(c.Tool)); refused == approved {
		tb.Fatalf("core's answer for %s approved=%t: %q", c.Tool, approved, text)
	}
	return text
}

// CheckApprovalWrite checks what a resumed ApprovalWrite left: the model
// received core's answer (received), and Notes holds the new content
// only when approved.
func CheckApprovalWrite(tb testing.TB, ws *vfs.Workspace, received string, approved bool) {
	tb.Helper()
	if want := ApprovalAnswer(tb, ApprovalWrite, approved); received != want {
		tb.Errorf("the model received %q, want core's %q", received, want)
	}
	want := string(Files[Notes])
	if approved {
		want = "status: approved\n"
	}
	if got := FileText(tb, ws, Notes); got != want {
		tb.Errorf("approved=%t: %s holds %q, want %q", approved, Notes, got, want)
	}
}
