package raw_test

import (
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// TestApproval: with Options.Approve and an Approver, Execute runs the
// approved write and answers the refused one with the refusal, which
// changes nothing.
func TestApproval(t *testing.T) {
	ws, opts := agentcase.ApprovalWorkspace(t)
	tools, err := raw.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, c := range agentcase.ApprovalCalls {
		out, err := tools.Execute(t.Context(), c.Tool, []byte(c.Args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.Tool, c.Args, err)
		}
		results = append(results, string(raw.Value(out)))
	}
	agentcase.CheckApproval(t, ws, results)
}
