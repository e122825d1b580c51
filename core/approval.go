package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// ApproveMutating, in Options.Approve, stands for every tool the spec
// marks as changing the workspace (write, edit, delete, exec, ...), as the
// reference's approve: "mutating" does.
const ApproveMutating = "mutating"

// ApproveList is Options.Approve: spec tool names (read, write, ...,
// without the set's prefix) and ApproveMutating. In JSON it is an array
// of those names or, as the reference's option allows, the string
// "mutating" alone.
type ApproveList []string

// UnmarshalJSON accepts an array of names or the string "mutating".
func (l *ApproveList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		if one != ApproveMutating {
			return fmt.Errorf("core: option approve is a list of tool names or %q, got %q", ApproveMutating, one)
		}
		*l = ApproveList{one}
		return nil
	}
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("core: option approve is a list of tool names or %q: %w", ApproveMutating, err)
	}
	*l = names
	return nil
}

// Check reports an entry of l that is neither a spec tool nor
// ApproveMutating, as New would.
func (l ApproveList) Check() error {
	_, err := l.tools()
	return err
}

// tools resolves the list to the spec names it covers. An entry that is
// neither a spec tool nor ApproveMutating is an error.
func (l ApproveList) tools() (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range l {
		if name == ApproveMutating {
			for _, info := range toolspec.Tools {
				if info.Mutates {
					out[info.Name] = true
				}
			}
			continue
		}
		if _, ok := toolspec.Info(name); !ok {
			return nil, fmt.Errorf("core: option approve names %q, which is not a tool (%s, or %q)", name, strings.Join(toolspec.ToolNames, ", "), ApproveMutating)
		}
		out[name] = true
	}
	return out, nil
}

// ApprovalRequest is one call waiting for a human's approval.
type ApprovalRequest struct {
	// Tool is the tool's name as the model called it (with the set's
	// prefix).
	Tool string
	// Spec is the spec's name of the tool (toolspec.ToolWrite, ...).
	Spec string
	// Arguments are the call's arguments as the tool will run them:
	// checked against the schema, defaults applied, as one JSON object.
	Arguments json.RawMessage
}

// Approver decides whether a call may run (Options.Approver). Approve
// may block while a human decides; it gets the call's context and should
// give up when that is cancelled. It may be called for several calls at
// once. true runs the call; false refuses it (the model sees
// toolspec.MsgApprovalRefused and nothing changes). An error means no
// decision could be had: the call fails with that error, as a Go error,
// not as a result the model sees.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (bool, error)
}

// ApproverFunc is a function as an Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (bool, error) {
	return f(ctx, req)
}

type approvalKey struct{}

// WithApproval returns ctx carrying a decision on the calls made with it,
// for an adapter whose framework has its own way to ask a human (a
// resumed interrupt, an answered MCP elicitation): Executor.Call then
// runs (approved) or refuses a call that needs approval without asking
// Options.Approver. It has no effect on a call that needs no approval.
func WithApproval(ctx context.Context, approved bool) context.Context {
	return context.WithValue(ctx, approvalKey{}, approved)
}

// NeedsApproval reports whether a call of the tool the model calls name
// (with the set's prefix) waits for approval (Options.Approve). It is
// false for a tool the set does not offer.
func (e *Executor) NeedsApproval(name string) bool {
	t, ok := e.byName[name]
	return ok && t.approve
}

// refusedError carries a refused call's output out of toolspec.Invoke's
// decode step, so that the tool never runs.
type refusedError struct{ out toolspec.Output }

func (*refusedError) Error() string { return "core: call not approved" }

// approve lets a call whose arguments decoded into dst run (nil), refuses
// it (a *refusedError) or fails (the Approver's error). The decision is
// ctx's (WithApproval), else the Approver's; with neither, the call is
// refused: a call that needs approval never runs unapproved.
func (e *Executor) approve(ctx context.Context, t *Tool, dst any) error {
	ok, err := e.decide(ctx, t, dst)
	if err != nil || ok {
		return err
	}
	return &refusedError{out: e.refusal(t, dst)}
}

// decide reports whether the call of t with arguments args may run: true
// when Options.Approve does not cover t, else ctx's decision
// (WithApproval), else the Approver's, else false.
func (e *Executor) decide(ctx context.Context, t *Tool, args any) (bool, error) {
	if !t.approve {
		return true, nil
	}
	ok, decided := ctx.Value(approvalKey{}).(bool)
	if !decided && e.approver != nil {
		raw, err := MarshalJSON(args)
		if err != nil {
			return false, err
		}
		ok, err = e.approver.Approve(ctx, ApprovalRequest{Tool: t.Name, Spec: t.Spec, Arguments: raw})
		if err != nil {
			return false, fmt.Errorf("core: approval of a %s call: %w", t.Name, err)
		}
	}
	return ok, nil
}

// CheckApproval decides a change that code outside Call makes for a
// model on the tools' behalf (the Eino filesystem backend's write_file,
// edit_file and execute): spec is the spec tool whose approval covers it
// (toolspec.ToolWrite, ...), path the workspace path it changes (empty
// for exec), args its arguments as it will run them, which the Approver
// gets as JSON. It returns nil when Options.Approve does not cover spec
// or the change is approved, as Call decides (WithApproval on ctx, else
// Options.Approver); a refusal, failing closed as Call does, is an
// *errno.Error EPERM with toolspec.MsgApprovalRefused's text, and the
// change must not be made. The Approver's error is returned wrapped.
func (e *Executor) CheckApproval(ctx context.Context, spec, path string, args any) error {
	for _, t := range e.byName {
		if t.Spec != spec {
			continue
		}
		ok, err := e.decide(ctx, t, args)
		if err != nil || ok {
			return err
		}
		return errno.New(errno.EPERM, toolspec.MsgApprovalRefused(t.Name), path)
	}
	return nil
}

// refusal is the refused call's output in the tool's own failure form:
// read's error text, exec's ExecErrorResult, publish's PublishFailure,
// {"error": ...} for the others.
func (e *Executor) refusal(t *Tool, dst any) toolspec.Output {
	msg := toolspec.MsgApprovalRefused(t.Name)
	switch a := dst.(type) {
	case *toolspec.ReadArgs:
		return errorText(msg)
	case *toolspec.ExecArgs:
		b, _ := e.exec.backend(a.Backend)
		return jsonOutput(toolspec.ExecErrorResult{Command: a.Command, Cwd: a.Cwd, Backend: b.ID, Error: msg})
	case *toolspec.PublishArgs:
		return jsonOutput(toolspec.PublishFailure{Error: msg})
	}
	return errorJSON(msg)
}

// invoke runs tool t with arguments decode fills in, once approved.
func (e *Executor) invoke(ctx context.Context, t *Tool, decode func(dst any) error) (toolspec.Output, error) {
	out, err := toolspec.Invoke(ctx, e, t.Spec, func(dst any) error {
		if err := decode(dst); err != nil {
			return err
		}
		return e.approve(ctx, t, dst)
	})
	if refused, ok := errors.AsType[*refusedError](err); ok {
		out, err = refused.out, nil
	}
	recordJSON(ctx, out)
	return out, err
}
