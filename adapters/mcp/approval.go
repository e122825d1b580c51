package mcp

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/toolspec"
)

// approvalRequest is the id of the approval question among a call's
// input requests (the go-sdk's multi round-trip requests, SEP-2322), and
// approveField the yes/no field of its form.
const (
	approvalRequest = "approval"
	approveField    = "approve"
)

// askingKey marks the context of a call that may still ask its client.
type askingKey struct{}

// approvalContext is ctx for a call req of a tool that needs approval:
// with the client's answer when req is the retry that carries it, with a
// refusal when the client cannot answer a form (it declared no
// elicitation capability, or only the URL mode), else marked so that
// elicitor asks.
func approvalContext(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req.Params != nil && req.Params.InputResponses != nil {
		// An answer that is not an accepted form with approve true, or no
		// answer to our question, refuses: nothing runs unapproved.
		res, _ := req.Params.InputResponses[approvalRequest].(*sdk.ElicitResult)
		approved := res != nil && res.Action == "accept" && res.Content[approveField] == true
		return core.WithApproval(ctx, approved)
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || caps.Elicitation.Form == nil && caps.Elicitation.URL != nil {
		return core.WithApproval(ctx, false)
	}
	return context.WithValue(ctx, askingKey{}, true)
}

// elicitation is the question a call must put to its client before it
// can run: the Approver's way to stop core.Executor.Call (its error).
type elicitation struct{ params *sdk.ElicitParams }

func (*elicitation) Error() string { return "mcp: the call waits for the client's approval" }

// elicitor is the tool set's core.Approver when the options give none.
// Within a call that may ask (approvalContext), it stops the call with
// the question; the handler returns it as an input request, and the
// go-sdk asks the client (elicitation/create, by the client on protocol
// 2026-07-28, by the server's middleware before) and calls the handler
// again with the answer. Anywhere else (the Executor called directly) it
// refuses.
type elicitor struct{}

func (elicitor) Approve(ctx context.Context, req core.ApprovalRequest) (bool, error) {
	if ctx.Value(askingKey{}) == nil {
		return false, nil
	}
	return false, &elicitation{params: &sdk.ElicitParams{
		Message: toolspec.MsgApprovalQuestion(req.Tool, string(req.Arguments)),
		RequestedSchema: &jsonschema.Schema{
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{approveField: {Type: "boolean", Title: toolspec.MsgApprovalApproveField}},
			Required:   []string{approveField},
		},
	}}
}
