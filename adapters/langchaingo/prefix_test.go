package langchaingo_test

import (
	"strings"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// With a prefix, langchaingo's executor runs the prefixed tools the model
// calls, on the set's workspace, and the model is sent the prefixed
// names, exec's description naming the prefixed tools.
func TestPrefixedAgent(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	opts.Prefix = "ws_"
	set, err := langchaingo.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if read, ok := set.Read(); !ok || read.Name() != "ws_read" {
		t.Errorf("Read() is %v, %v; want ws_read", read, ok)
	}
	model := &scriptedModel{results: map[string]string{}, calls: []agentcase.Call{
		{ID: "call_1", Tool: "ws_read", Args: `{"path":"/workspace/notes.txt"}`},
		{ID: "call_2", Tool: "ws_write", Args: `{"path":"/workspace/out.txt","content":"done\n"}`},
		{ID: "call_3", Tool: "ws_read", Args: `{"path":"/workspace/out.txt"}`},
		{ID: "call_4", Tool: "ws_exec", Args: `{"command":"go test ./...","cwd":"/workspace"}`},
	}}
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(model, set.Definitions()), set.All())
	executor := agents.NewExecutor(agent, agents.WithMaxIterations(len(model.calls)+2))
	if _, err := chains.Run(t.Context(), executor, agentcase.Prompt); err != nil {
		t.Fatal(err)
	}
	if got := model.results["call_1"]; got != "# Notes\nstatus: draft\nowner: team" {
		t.Errorf("ws_read of notes.txt: %q", got)
	}
	if got := model.results["call_2"]; got != `{"path":"/workspace/out.txt","bytesWritten":5}` {
		t.Errorf("ws_write: %q", got)
	}
	if got := model.results["call_3"]; got != "done" {
		t.Errorf("ws_read of what ws_write wrote: %q", got)
	}
	if got := model.results["call_4"]; !strings.Contains(got, `"exitCode":0`) {
		t.Errorf("ws_exec: %q", got)
	}
	var names []string
	var exec *llms.FunctionDefinition
	for _, tool := range model.sent[0].Tools {
		names = append(names, tool.Function.Name)
		if tool.Function.Name == "ws_exec" {
			exec = tool.Function
		}
	}
	if got, want := strings.Join(names, " "), "ws_read ws_ls ws_find ws_grep ws_write ws_edit ws_delete ws_exec ws_publish"; got != want {
		t.Errorf("the model was sent %q, want %q", got, want)
	}
	if exec == nil || !strings.Contains(exec.Description, "Prefer the dedicated ws_read, ws_write, and ws_edit tools") ||
		!strings.Contains(exec.Description, "which the ws_read and ws_grep tools can open") {
		t.Errorf("ws_exec's description does not name the prefixed tools: %+v", exec)
	}
}
