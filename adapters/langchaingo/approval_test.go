package langchaingo_test

import (
	"testing"

	"github.com/tmc/langchaingo/agents"

	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// TestApproval runs langchaingo's functions agent in its executor, on
// its openai provider talking to a local stand-in for the API, over a tool
// set that asks Options.Approver about every change: the model writes
// twice, the first write is approved and done, the second refused; the
// model is sent the result and the refusal, and only the first file
// exists.
func TestApproval(t *testing.T) {
	replies := []string{}
	for _, c := range agentcase.ApprovalCalls {
		replies = append(replies, openAIToolCall(c.ID, c.Tool, c.Args))
	}
	api := serveAPI(t, append(replies, openAIReply)...)
	ws, opts := agentcase.ApprovalWorkspace(t)
	set, err := langchaingo.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(openAIModel(t, api), set.Definitions()), set.All())
	runExecutor(t, agent, "write two files", "ok")

	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.bodies) != len(agentcase.ApprovalCalls)+1 {
		t.Fatalf("the API received %d requests, want %d", len(api.bodies), len(agentcase.ApprovalCalls)+1)
	}
	sent := agentcase.ChatToolMessages(t, api.bodies[len(api.bodies)-1])
	var results []string
	for _, c := range agentcase.ApprovalCalls {
		results = append(results, sent[c.ID])
	}
	agentcase.CheckApproval(t, ws, results)
}
