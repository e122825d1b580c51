package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools/internal/agentcase"
)

// Through the SDK's client, a prefixed set lists the prefixed names (exec's
// description naming the prefixed tools) and runs the calls of those
// names; the spec's names are unknown to it.
func TestPrefixedSession(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	opts.Prefix = "ws_"
	cs := connect(t, ws, opts, nil)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		// The title and hints are the spec tool's, whatever the prefix.
		if tool.Annotations == nil || tool.Title == "" {
			t.Errorf("%s is listed without its title and annotations", tool.Name)
		} else if (tool.Name == "ws_read") != tool.Annotations.ReadOnlyHint && (tool.Name == "ws_read" || tool.Name == "ws_write") {
			t.Errorf("%s: readOnlyHint %v", tool.Name, tool.Annotations.ReadOnlyHint)
		}
		if tool.Name == "ws_exec" && !strings.Contains(tool.Description, "Prefer the dedicated ws_read, ws_write, and ws_edit tools") {
			t.Errorf("ws_exec's description does not name the prefixed tools:\n%s", tool.Description)
		}
	}
	// The SDK lists tools in name order.
	if got, want := strings.Join(names, " "), "ws_delete ws_edit ws_exec ws_find ws_grep ws_ls ws_publish ws_read ws_write"; got != want {
		t.Errorf("listed %q, want %q", got, want)
	}
	text := func(name, args string) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		if res.IsError {
			t.Errorf("%s %s: an error", name, args)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	if got := text("ws_write", `{"path":"/workspace/out.txt","content":"done\n"}`); got != `{"path":"/workspace/out.txt","bytesWritten":5}` {
		t.Errorf("ws_write: %s", got)
	}
	if got := text("ws_read", `{"path":"/workspace/out.txt"}`); got != "done" {
		t.Errorf("ws_read: %q", got)
	}
	if got := text("ws_exec", `{"command":"go test ./...","cwd":"/workspace"}`); !strings.Contains(got, `"exitCode":0`) {
		t.Errorf("ws_exec: %s", got)
	}
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/workspace/out.txt"}}); err == nil {
		t.Error("a call of read, unprefixed, succeeded")
	}
}
