package eino_test

import (
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// With a prefix, eino's react agent binds the prefixed names (exec's
// description naming the prefixed tools) and its ToolsNode runs the
// prefixed calls on the set's workspace.
func TestPrefixedAgent(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	opts.Prefix = "ws_"
	set, err := eino.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := newModel([]agentcase.Call{
		{ID: "call_1", Tool: "ws_write", Args: `{"path":"/workspace/out.txt","content":"done\n"}`},
		{ID: "call_2", Tool: "ws_read", Args: `{"path":"/workspace/out.txt"}`},
		{ID: "call_3", Tool: "ws_exec", Args: `{"command":"go test ./...","cwd":"/workspace"}`},
	})
	if _, err := reactAgent(t, m, set).Generate(t.Context(), []*schema.Message{schema.UserMessage(agentcase.Prompt)}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, info := range m.state.tools {
		names = append(names, info.Name)
		if info.Name == "ws_exec" && !strings.Contains(info.Desc, "Prefer the dedicated ws_read, ws_write, and ws_edit tools") {
			t.Errorf("ws_exec's description does not name the prefixed tools:\n%s", info.Desc)
		}
	}
	if got, want := strings.Join(names, " "), "ws_read ws_ls ws_find ws_grep ws_write ws_edit ws_delete ws_exec ws_publish"; got != want {
		t.Errorf("bound %q, want %q", got, want)
	}
	want := map[string]string{"call_1": `{"path":"/workspace/out.txt","bytesWritten":5}`, "call_2": "done"}
	for id, text := range want {
		if msg := m.state.results[id]; msg == nil || messageText(msg, 0) != text {
			t.Errorf("%s: the model received %v, want %q", id, msg, text)
		}
	}
	if msg := m.state.results["call_3"]; msg == nil || !strings.Contains(msg.Content, `"exitCode":0`) {
		t.Errorf("ws_exec: %v", msg)
	}
}
