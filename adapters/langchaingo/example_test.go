package langchaingo_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// exampleModel stands in for an LLM: an llms.Model that makes the given
// calls, one a turn (tool name, arguments), then answers "Done.",
// printing on its first turn the tools it was sent and on the others the
// tool result it received, by call ID.
type exampleModel struct {
	calls [][2]string
	turn  int
}

func (m *exampleModel) GenerateContent(_ context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	if m.turn == 0 {
		var names []string
		for _, t := range o.Tools {
			names = append(names, t.Function.Name)
		}
		fmt.Println("tools:", strings.Join(names, " "))
	} else {
		for _, part := range messages[len(messages)-1].Parts {
			if r, ok := part.(llms.ToolCallResponse); ok {
				fmt.Printf("model received for %s: %s\n", r.ToolCallID, r.Content)
			}
		}
	}
	if m.turn == len(m.calls) {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Done.", StopReason: "stop"}}}, nil
	}
	c := m.calls[m.turn]
	m.turn++
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason: "tool_calls",
		ToolCalls: []llms.ToolCall{{
			ID: fmt.Sprint("call_", m.turn), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: c[0], Arguments: c[1]},
		}},
	}}}, nil
}

func (m *exampleModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// exampleWorkspace is an in-memory workspace with a notes file under
// /workspace, on a clock stopped at 2026-01-01 so that the mtimes the
// tools report are stable.
func exampleWorkspace(ctx context.Context) *vfs.Workspace {
	stopped := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ws := vfs.New(memfs.New(memfs.WithClock(func() time.Time { return stopped })))
	if err := ws.WriteFile(ctx, "/workspace/notes.txt", []byte("status: draft\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		log.Fatal(err)
	}
	return ws
}

// The tools in langchaingo's functions agent and executor, the model
// wrapped by WithDefinitions so that it is sent the tools' exact JSON
// Schemas: a read, an edit, an ls, then the model's answer.
func Example() {
	ctx := context.Background()
	set, err := langchaingo.New(exampleWorkspace(ctx), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	model := &exampleModel{calls: [][2]string{
		{"read", `{"path":"/workspace/notes.txt"}`},
		{"edit", `{"path":"/workspace/notes.txt","edits":[{"oldText":"draft","newText":"final"}]}`},
		{"ls", `{"path":"/workspace"}`},
	}}
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(model, set.Definitions()), set.All())
	executor := agents.NewExecutor(agent, agents.WithMaxIterations(5))
	answer, err := chains.Run(ctx, executor, "Mark the notes final.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", answer)
	// Output:
	// tools: read ls find grep write edit delete
	// model received for call_1: status: draft
	// model received for call_2: {"path":"/workspace/notes.txt","editsApplied":1,"diff":"-1 status: draft\n+1 status: final","patch":"Index: /workspace/notes.txt\n===================================================================\n--- /workspace/notes.txt\n+++ /workspace/notes.txt\n@@ -1,1 +1,1 @@\n-status: draft\n+status: final\n","firstChangedLine":1}
	// model received for call_3: {"path":"/workspace","count":1,"entries":[{"name":"notes.txt","size":14,"mtime":1767225600000,"isFile":true,"isDirectory":false,"isSymbolicLink":false}]}
	// answer: Done.
}

// A tool called directly, as an executor calls it: the model's JSON
// arguments in, the text the model must see out, a failure included.
func ExampleTool_Call() {
	ctx := context.Background()
	set, err := langchaingo.New(exampleWorkspace(ctx), agenttools.Options{Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	grep, _ := set.Grep()
	for _, args := range []string{`{"query":"status"}`, `{"query":"status","path":"/nowhere"}`} {
		text, err := grep.Call(ctx, args)
		if err != nil {
			log.Fatal(err) // only a cancelled context
		}
		fmt.Printf("%s %s: %s\n", grep.Name(), args, text)
	}
	// Output:
	// grep {"query":"status"}: {"path":"/workspace","query":"status","count":1,"matches":[{"path":"/workspace/notes.txt","line":1,"text":"status: draft"}]}
	// grep {"query":"status","path":"/nowhere"}: {"error":"no such path: /nowhere"}
}
