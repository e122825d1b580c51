package genkit

import (
	"context"
	"errors"
	"fmt"

	"github.com/firebase/genkit/go/ai"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
)

// ApprovedKey is the key of the decision in the resumed metadata of a
// restarted call (ai.RestartOptions.ResumedMetadata, which Restart
// fills): true runs the call, anything else refuses it.
const ApprovedKey = "approved"

// interrupter is the Approver of a set whose options have none: a call
// that needs approval and comes with no decision interrupts the
// generation (Genkit's tool interrupt), its metadata the
// agenttools.ApprovalRequest. core asks it only once the arguments are valid,
// so invalid arguments are answered, never sent to a human.
func interrupter(ctx context.Context, req agenttools.ApprovalRequest) (bool, error) {
	return false, ai.InterruptWith(&ai.ToolContext{Context: ctx}, req)
}

// decision is ctx with the decision a restarted call carries (see
// Restart) when the call needs approval: its resumed metadata's
// ApprovedKey, refused when that is not true (a restart without a
// decision never runs the call).
func (s *Tools) decision(tc *ai.ToolContext, name string) context.Context {
	if !tc.IsResumed() || !s.set.Executor().NeedsApproval(name) {
		return tc
	}
	approved, _ := ai.ResumedValue[bool](tc, ApprovedKey)
	return core.WithApproval(tc, approved)
}

// Request is the approval request an interrupted call carries (a part of
// resp.Interrupts()), and false when part is not a call of this set
// waiting for approval.
func (s *Tools) Request(part *ai.Part) (agenttools.ApprovalRequest, bool) {
	req, ok := ai.InterruptAs[agenttools.ApprovalRequest](part)
	if !ok || req.Tool != part.ToolRequest.Name || !s.set.Executor().NeedsApproval(req.Tool) {
		return agenttools.ApprovalRequest{}, false
	}
	return req, true
}

// Restart is the restart part that resumes an interrupted call of this
// set (a part of resp.Interrupts() for which Request reports true) with
// the human's decision, for ai.WithToolRestarts: Genkit's own restart of
// the tool (ai.Tool.Restart) with the resumed metadata
// {ApprovedKey: approved}. Resumed, the call runs (approved) or answers
// core's refusal, "The user did not approve this <tool> call; nothing
// was changed." in the tool's failure form, which the model receives as
// the call's output. It fails when part is not such a call.
func (s *Tools) Restart(part *ai.Part, approved bool) (*ai.Part, error) {
	if _, ok := s.Request(part); !ok {
		return nil, errors.New("genkit: the part is not a call of this tool set waiting for approval")
	}
	return s.restart(part, approved), nil
}

func (s *Tools) restart(part *ai.Part, approved bool) *ai.Part {
	t, _ := s.set.Named(part.ToolRequest.Name)
	return t.Restart(part, &ai.RestartOptions{ResumedMetadata: map[string]any{ApprovedKey: approved}})
}

// Approve is the option that resumes resp, a generation Genkit ended
// because calls of this set wait for approval (resp.FinishReason is
// ai.FinishReasonInterrupted), with decide's decision on each:
// ai.WithToolRestarts with the Restart of every interrupt. Pass it to
// the Generate that resumes, with resp's history and the same tools:
//
//	opt, err := set.Approve(resp, func(req agenttools.ApprovalRequest) bool { return ask(req) })
//	resp, err = agentgenkit.Generate(ctx, g, ai.WithMessages(resp.History()...), ai.WithTools(set.Refs()...), opt)
//
// It fails when resp has no interrupt, or has one that is not such a
// call (another tool's: build every restart yourself then, with Restart
// for this set's).
func (s *Tools) Approve(resp *ai.ModelResponse, decide func(agenttools.ApprovalRequest) bool) (ai.GenerateOption, error) {
	if resp == nil {
		return nil, errors.New("genkit: no response to resume")
	}
	parts := resp.Interrupts()
	if len(parts) == 0 {
		return nil, errors.New("genkit: the response has no interrupted call")
	}
	restarts := make([]*ai.Part, len(parts))
	for i, p := range parts {
		req, ok := s.Request(p)
		if !ok {
			return nil, fmt.Errorf("genkit: the interrupted call %q (%s) is not a call of this tool set waiting for approval", p.ToolRequest.Ref, p.ToolRequest.Name)
		}
		restarts[i] = s.restart(p, decide(req))
	}
	return ai.WithToolRestarts(restarts...), nil
}
