package eino

import (
	"context"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
)

func init() {
	// A checkpoint keeps each interrupt's info, encoded with gob, which
	// must know the type behind the interface.
	schema.RegisterName[*agenttools.ApprovalRequest]("agenttools_approval_request")
}

// interrupter is the Approver of a set whose options have none: a call
// that needs approval and comes with no decision interrupts the run
// (tool.Interrupt), its info the *agenttools.ApprovalRequest. core asks
// it only once the arguments are valid, so invalid arguments are
// answered, never sent to a human.
func interrupter(ctx context.Context, req agenttools.ApprovalRequest) (bool, error) {
	return false, tool.Interrupt(ctx, &req)
}

// decision is ctx with the decision a resumed call was given, when it is
// the target of the resume (see ResumeTargets): approved only when its
// resume data is true. A call that was interrupted but is not a target
// gets no decision and interrupts again, as eino asks of an interrupted
// tool that a resume does not name.
func decision(ctx context.Context) context.Context {
	if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
		return ctx
	}
	target, _, approved := tool.GetResumeContext[bool](ctx)
	if !target {
		return ctx
	}
	return core.WithApproval(ctx, approved)
}

// ResumeTargets is the resume data that answers the approval requests
// among contexts, the interrupt contexts of an interrupted run (an adk
// AgentEvent's Action.Interrupted.InterruptContexts, or
// compose.ExtractInterruptInfo's for a graph): each request's interrupt
// ID mapped to decide's decision. Pass it to adk's
// Runner.ResumeWithParams as ResumeParams.Targets, or to
// compose.BatchResumeWithData for a graph compiled with a checkpoint
// store. The resumed call runs (true) or answers core's refusal, "The
// user did not approve this <tool> call; nothing was changed." in the
// tool's failure form, which the model receives as the tool's result.
// Contexts of other interrupts are left out: those interrupt again.
func ResumeTargets(contexts []*compose.InterruptCtx, decide func(agenttools.ApprovalRequest) bool) map[string]any {
	targets := map[string]any{}
	for _, ic := range contexts {
		if req, ok := ic.Info.(*agenttools.ApprovalRequest); ok && ic.IsRootCause {
			targets[ic.ID] = decide(*req)
		}
	}
	return targets
}
