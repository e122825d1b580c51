package genkit_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// received is the output the model received for the call id, as text.
func (m *scriptedModel) received(t *testing.T, id string) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.results[id]
	if !ok {
		t.Fatalf("the model received no response for %s", id)
	}
	return resultText(t, r)
}

// approvalRun is one generation of the approval tests: the tools of a
// set over the session's workspace whose options approve the mutating
// tools, registered on g (Define) or not (New), and a way to generate.
type approvalRun struct {
	g     *genkit.Genkit
	ws    *vfs.Workspace
	set   *agentgenkit.Tools
	model ai.Model
	// bound runs agentgenkit.Generate rather than genkit.Generate.
	bound bool
}

func newApprovalRun(t *testing.T, m *scriptedModel, registered, bound bool) *approvalRun {
	t.Helper()
	g := initGenkit(t)
	ws, opts := agentcase.ApprovalWorkspace(t)
	opts.Approver = nil // Genkit's interrupts ask the human
	return &approvalRun{g: g, ws: ws, set: newSet(t, g, ws, opts, registered), model: m.define(g), bound: bound}
}

// generate runs Genkit's loop with the model and the set's tools, and
// fails the test when it does not return within a generous deadline (a
// call that never hands Genkit its result hangs it).
func (r *approvalRun) generate(t *testing.T, opts ...ai.GenerateOption) *ai.ModelResponse {
	t.Helper()
	opts = append([]ai.GenerateOption{ai.WithModel(r.model), ai.WithTools(r.set.Refs()...), ai.WithMaxTurns(4)}, opts...)
	type result struct {
		resp *ai.ModelResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		if r.bound {
			res.resp, res.err = agentgenkit.Generate(t.Context(), r.g, opts...)
		} else {
			res.resp, res.err = genkit.Generate(t.Context(), r.g, opts...)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("Generate: %v", res.err)
		}
		return res.resp
	case <-time.After(30 * time.Second):
		t.Fatal("Generate did not return within 30 s")
		return nil
	}
}

// A write that needs approval, in Genkit's own loop (genkit.Generate or
// agentgenkit.Generate, tools registered or not): the generation ends
// interrupted (Genkit's tool interrupt) with the call's
// core.ApprovalRequest as the interrupt's metadata, the file unchanged
// and the model not called again. Resumed with the decision (Approve:
// Genkit's restart of the call), an approved write changes the file and
// the model receives core's result; a refused one leaves the file and
// the model receives core's refusal.
func TestApprovalThroughGenerate(t *testing.T) {
	before := string(agentcase.Files[agentcase.Notes])
	for _, registered := range []bool{true, false} {
		for _, bound := range []bool{true, false} {
			for _, approved := range []bool{true, false} {
				t.Run(fmt.Sprintf("registered=%t/bound=%t/approved=%t", registered, bound, approved), func(t *testing.T) {
					m := newScriptedModel([]agentcase.Call{agentcase.ApprovalWrite})
					run := newApprovalRun(t, m, registered, bound)
					resp := run.generate(t, ai.WithPrompt(agentcase.Prompt))
					if resp.FinishReason != ai.FinishReasonInterrupted {
						t.Fatalf("finish reason %q, want %q", resp.FinishReason, ai.FinishReasonInterrupted)
					}
					if got := agentcase.FileText(t, run.ws, agentcase.Notes); got != before {
						t.Fatalf("the interrupted write changed the file: %q", got)
					}
					if len(m.sent) != 1 || len(m.results) != 0 {
						t.Fatalf("the model was called %d times and received %d responses before the decision", len(m.sent), len(m.results))
					}
					interrupts := resp.Interrupts()
					if len(interrupts) != 1 {
						t.Fatalf("%d interrupts, want 1", len(interrupts))
					}
					req, ok := run.set.Request(interrupts[0])
					if !ok {
						t.Fatalf("the interrupt is not an approval request: %+v", interrupts[0].Metadata)
					}
					if req.Tool != "write" || req.Spec != toolspec.ToolWrite {
						t.Errorf("the request names %q (spec %q), want write", req.Tool, req.Spec)
					}
					if diff := cmp.Diff(decode(t, agentcase.ApprovalWrite.Args), decode(t, string(req.Arguments))); diff != "" {
						t.Errorf("the request's arguments (-model +request):\n%s", diff)
					}

					var asked []core.ApprovalRequest
					opt, err := run.set.Approve(resp, func(r core.ApprovalRequest) bool {
						asked = append(asked, r)
						return approved
					})
					if err != nil {
						t.Fatal(err)
					}
					if len(asked) != 1 || asked[0].Tool != "write" {
						t.Errorf("decide was asked %+v", asked)
					}
					resp = run.generate(t, ai.WithMessages(resp.History()...), opt)
					if got := resp.Text(); got != agentcase.Answer {
						t.Errorf("answer %q (finish reason %q)", got, resp.FinishReason)
					}
					agentcase.CheckApprovalWrite(t, run.ws, m.received(t, "call_1"), approved)
				})
			}
		}
	}
}

// Calls of one turn, the shared approval session's two writes and a
// read: the read runs at once (Genkit keeps its output while the others
// wait), the writes interrupt, and the generation waits for both;
// resumed with the session's decisions (one approved, one refused), only
// the approved one writes, and the model receives all three answers. agentgenkit.Generate must not take the second interrupt for a
// failure that ended Genkit's wait (it would end that call and hang
// Generate).
func TestApprovalSeveralCalls(t *testing.T) {
	read := agentcase.Call{ID: "call_3", Tool: "read", Args: agentcase.ReadArgs}
	calls := append(slices.Clone(agentcase.ApprovalCalls), read)
	for _, bound := range []bool{true, false} {
		t.Run(fmt.Sprintf("bound=%t", bound), func(t *testing.T) {
			m := &scriptedModel{calls: calls, batch: true, results: map[string]*ai.ToolResponse{}}
			run := newApprovalRun(t, m, true, bound)
			resp := run.generate(t, ai.WithPrompt(agentcase.Prompt))
			if resp.FinishReason != ai.FinishReasonInterrupted || len(resp.Interrupts()) != 2 {
				t.Fatalf("finish reason %q with %d interrupts, want 2", resp.FinishReason, len(resp.Interrupts()))
			}
			opt, err := run.set.Approve(resp, agentcase.Approves)
			if err != nil {
				t.Fatal(err)
			}
			run.generate(t, ai.WithMessages(resp.History()...), opt)
			agentcase.CheckApproval(t, run.ws, []string{m.received(t, "call_1"), m.received(t, "call_2")})
			if got, want := m.received(t, read.ID), agentcase.ApprovalAnswer(t, read, true); got != want {
				t.Errorf("read: the model received %q, want %q", got, want)
			}
		})
	}
}

// Invalid arguments are answered, never sent to a human: a write that
// needs approval but whose arguments core refuses does not interrupt,
// and the model receives core's invalid-arguments text.
func TestApprovalInvalidArguments(t *testing.T) {
	c := agentcase.Call{ID: "call_1", Tool: "write", Args: `{"path":"/workspace/notes.txt"}`}
	m := newScriptedModel([]agentcase.Call{c})
	run := newApprovalRun(t, m, true, true)
	resp := run.generate(t, ai.WithPrompt(agentcase.Prompt))
	if resp.FinishReason == ai.FinishReasonInterrupted {
		t.Fatal("invalid arguments interrupted the generation")
	}
	got := m.received(t, "call_1")
	if !strings.HasPrefix(got, toolspec.MsgArgumentsInvalid("write", "")) {
		t.Errorf("the model received %q, want core's invalid-arguments text", got)
	}
}

// A restart that carries no decision (Genkit's plain restart of the
// call, resumed metadata true) refuses the call: only an explicit
// approval runs it.
func TestApprovalRestartWithoutDecision(t *testing.T) {
	m := newScriptedModel([]agentcase.Call{agentcase.ApprovalWrite})
	run := newApprovalRun(t, m, true, true)
	resp := run.generate(t, ai.WithPrompt(agentcase.Prompt))
	interrupts := resp.Interrupts()
	if len(interrupts) != 1 {
		t.Fatalf("%d interrupts, want 1", len(interrupts))
	}
	write, _ := run.set.Write()
	run.generate(t, ai.WithMessages(resp.History()...), ai.WithToolRestarts(write.Restart(interrupts[0], nil)))
	if got, want := m.received(t, "call_1"), agentcase.ApprovalAnswer(t, agentcase.ApprovalWrite, false); got != want {
		t.Errorf("the model received %q, want core's refusal %q", got, want)
	}
	if got := agentcase.FileText(t, run.ws, agentcase.Notes); got != string(agentcase.Files[agentcase.Notes]) {
		t.Errorf("the file changed to %q", got)
	}
}
