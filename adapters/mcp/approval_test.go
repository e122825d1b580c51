package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools/adapters/mcp/mcptest"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// The protocol versions the approval tests speak: the go-sdk's latest,
// where the client answers the server's input requests (multi round-trip
// requests), and the one before, where the server sends elicitation/create
// itself.
var approvalProtocols = []string{"", "2025-11-25"}

// callText runs a tool call through cs and returns its text and IsError.
func callText(t *testing.T, cs *sdk.ClientSession, c agentcase.Call) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(c.Args)})
	if err != nil {
		t.Fatalf("%s %s: %v", c.Tool, c.Args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s %s: %d contents", c.Tool, c.Args, len(res.Content))
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// TestApprovalElicitation: with approve "mutating", the server asks the
// go-sdk client's user about each write (elicitation, with the spec's
// question naming the tool and the arguments); the write the user
// accepts runs, the one declined is refused, and only the first file
// exists.
func TestApprovalElicitation(t *testing.T) {
	for _, version := range approvalProtocols {
		t.Run("protocol "+version, func(t *testing.T) {
			ws, opts := agentcase.ApprovalWorkspace(t)
			opts.Approver = nil
			var mu sync.Mutex
			var asked []string
			cs := mcptest.ConnectVersion(t, ws, opts, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params.Message)
				mu.Unlock()
				if strings.Contains(req.Params.Message, "approved.txt") {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				}
				return &sdk.ElicitResult{Action: "decline"}, nil
			}}, version)
			var results []string
			for i, c := range agentcase.ApprovalCalls {
				text, isError := callText(t, cs, c)
				if isError != (i == 1) {
					t.Errorf("%s %s: IsError %v", c.Tool, c.Args, isError)
				}
				results = append(results, text)
			}
			agentcase.CheckApproval(t, ws, results)
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != len(agentcase.ApprovalCalls) {
				t.Fatalf("the user was asked %d times, want %d: %q", len(asked), len(agentcase.ApprovalCalls), asked)
			}
			for i, c := range agentcase.ApprovalCalls {
				if want := toolspec.MsgApprovalQuestion(c.Tool, c.Args); asked[i] != want {
					t.Errorf("question %q, want %q", asked[i], want)
				}
			}
		})
	}
}

// TestApprovalRefusals: every answer but an accepted form with approve
// true refuses (cancel, accept with false, accept with no content), a client without an
// elicitation handler is refused without being asked, and arguments that
// fail the schema get the usual message without a question. Nothing is
// written.
func TestApprovalRefusals(t *testing.T) {
	write := agentcase.ApprovalCalls[0]
	refused := string(toolspec.ResultOutput(toolspec.ErrorResult{Error: toolspec.MsgApprovalRefused(write.Tool)}).JSON)
	answer := func(res *sdk.ElicitResult) *sdk.ClientOptions {
		return &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return res, nil }}
	}
	for _, version := range approvalProtocols {
		for _, c := range []struct {
			name  string
			copts *sdk.ClientOptions
		}{
			{"cancel", answer(&sdk.ElicitResult{Action: "cancel"})},
			{"accept false", answer(&sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}})},
			{"accept without content", answer(&sdk.ElicitResult{Action: "accept"})},
			{"no elicitation", nil},
		} {
			t.Run(c.name+" protocol "+version, func(t *testing.T) {
				ws, opts := agentcase.ApprovalWorkspace(t)
				opts.Approver = nil
				cs := mcptest.ConnectVersion(t, ws, opts, c.copts, version)
				if text, isError := callText(t, cs, write); text != refused || !isError {
					t.Errorf("%s: %q (IsError %v), want the refusal %q", write.Args, text, isError, refused)
				}
				if _, err := ws.Stat(t.Context(), "/workspace/approved.txt"); err == nil {
					t.Errorf("the refused write created the file")
				}
			})
		}
	}
	ws, opts := agentcase.ApprovalWorkspace(t)
	opts.Approver = nil
	cs := mcptest.ConnectVersion(t, ws, opts, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		t.Error("the user was asked about invalid arguments")
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}, "")
	text, isError := callText(t, cs, agentcase.Call{Tool: "write", Args: `{"path":"/workspace/approved.txt"}`})
	if want := toolspec.MsgArgumentsInvalid("write", toolspec.MsgArgumentsMissing("content")); text != want || !isError {
		t.Errorf("invalid arguments: %q, want %q", text, want)
	}
}

// TestApprovalApprover: an Approver in the options decides instead of
// the client, which is not asked.
func TestApprovalApprover(t *testing.T) {
	ws, opts := agentcase.ApprovalWorkspace(t)
	cs := mcptest.ConnectVersion(t, ws, opts, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		t.Error("the client was asked despite the Approver")
		return &sdk.ElicitResult{Action: "decline"}, nil
	}}, "")
	var results []string
	for _, c := range agentcase.ApprovalCalls {
		text, _ := callText(t, cs, c)
		results = append(results, text)
	}
	agentcase.CheckApproval(t, ws, results)
}
