package langchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/internal/agentcase"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// scriptedModel is an llms.Model that makes the scripted calls, one per
// turn, then answers, and keeps what it was sent.
type scriptedModel struct {
	calls []agentcase.Call
	// wrapArgs sends each call's arguments inside __arg1, as a model told
	// the functions agent's one-string schema would.
	wrapArgs bool
	turn     int
	// sent are the call options of each turn; results what came back for
	// each call, by id.
	sent    []llms.CallOptions
	results map[string]string
	order   []string
}

func (m *scriptedModel) GenerateContent(_ context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	m.sent = append(m.sent, o)
	for _, msg := range messages {
		for _, part := range msg.Parts {
			if r, ok := part.(llms.ToolCallResponse); ok {
				if _, seen := m.results[r.ToolCallID]; !seen {
					m.results[r.ToolCallID] = r.Content
					m.order = append(m.order, r.ToolCallID)
				}
			}
		}
	}
	if m.turn == len(m.calls) {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: agentcase.Answer, StopReason: "stop"}}}, nil
	}
	c := m.calls[m.turn]
	m.turn++
	args := c.Args
	if m.wrapArgs {
		wrapped, _ := json.Marshal(map[string]string{"__arg1": c.Args})
		args = string(wrapped)
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason: "tool_calls",
		ToolCalls:  []llms.ToolCall{{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.Tool, Arguments: args}}},
	}}}, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// run drives langchaingo's functions agent and executor over the
// session's workspace.
func run(t *testing.T, model *scriptedModel, wrap bool) (string, *langchaingo.Tools) {
	t.Helper()
	ws, opts := agentcase.Workspace(t)
	set, err := langchaingo.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	var llm llms.Model = model
	if wrap {
		llm = langchaingo.WithDefinitions(model, set.Definitions())
	}
	agent := agents.NewOpenAIFunctionsAgent(llm, set.All())
	executor := agents.NewExecutor(agent, agents.WithMaxIterations(len(agentcase.Calls)+2))
	answer, err := chains.Run(t.Context(), executor, agentcase.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	return answer, set
}

// TestAgentSession runs the scripted session through langchaingo's
// functions agent and executor, with the model wrapped to send the exact
// definitions, and pins what the model received.
func TestAgentSession(t *testing.T) {
	model := &scriptedModel{calls: agentcase.Calls, results: map[string]string{}}
	answer, _ := run(t, model, true)

	first := model.sent[0]
	if len(first.Functions) != 0 {
		t.Errorf("the wrapped model still sent %d __arg1 functions", len(first.Functions))
	}
	var session agentcase.Session
	for _, tool := range first.Tools {
		data, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		session.Tools = append(session.Tools, string(data))
	}
	for i, c := range agentcase.Calls {
		if i >= len(model.order) || model.order[i] != c.ID {
			t.Fatalf("tool results arrived in the order %v", model.order)
		}
		session.Results = append(session.Results, model.results[c.ID])
	}
	session.Answer = answer
	agentcase.Record(t, "langchaingo", session)
}

// Without the wrapper the agent sends its one-string schema and the model
// answers with the JSON inside __arg1; the tools take it all the same.
func TestAgentSessionWithoutDefinitions(t *testing.T) {
	model := &scriptedModel{calls: agentcase.Calls, results: map[string]string{}, wrapArgs: true}
	run(t, model, false)
	if got := len(model.sent[0].Functions); got != len(toolspec.ToolNames) || model.sent[0].Tools != nil {
		t.Fatalf("the unwrapped agent sent %d functions and tools %v", got, model.sent[0].Tools)
	}
	if params, _ := json.Marshal(model.sent[0].Functions[0].Parameters); !strings.Contains(string(params), "__arg1") {
		t.Errorf("langchaingo's functions agent no longer sends __arg1 (%s); revisit WithDefinitions", params)
	}
	wrapped := &scriptedModel{calls: agentcase.Calls, results: map[string]string{}}
	run(t, wrapped, true)
	for _, c := range agentcase.Calls {
		if model.results[c.ID] != wrapped.results[c.ID] {
			t.Errorf("%s %s: through __arg1 %q, direct %q", c.Tool, c.Args, model.results[c.ID], wrapped.results[c.ID])
		}
	}
}

// A cancelled context stops the executor with the context's error; the
// tools never turn it into a result.
func TestCallCancelled(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	set, err := langchaingo.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	read, ok := set.Read()
	if !ok {
		t.Fatal("no read tool")
	}
	if _, err := read.Call(ctx, `{"path":"/workspace/notes.txt"}`); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
}
