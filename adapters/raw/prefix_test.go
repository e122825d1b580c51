package raw_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// A prefixed raw set: the definitions carry the prefixed names, exec's
// description names the prefixed tools, Execute runs the prefixed names
// (a write's message names the prefixed edit) and not the spec's.
func TestPrefixedTools(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	opts.Prefix = "ws_"
	opts.Write.MaxBytes = 4
	tools, err := raw.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range tools.Definitions() {
		names = append(names, d.Name)
		if d.Name == "ws_exec" && !strings.Contains(d.Description, "which the ws_read and ws_grep tools can open") {
			t.Errorf("ws_exec's description does not name the prefixed tools:\n%s", d.Description)
		}
	}
	if got, want := strings.Join(names, " "), "ws_read ws_ls ws_find ws_grep ws_write ws_edit ws_delete ws_exec ws_publish"; got != want {
		t.Errorf("definitions %q, want %q", got, want)
	}
	out, err := tools.Execute(t.Context(), "ws_write", []byte(`{"path":"/workspace/a.txt","content":"abc"}`))
	if err != nil || string(raw.ModelOutput(out)) != `{"type":"json","value":{"path":"/workspace/a.txt","bytesWritten":3}}` {
		t.Errorf("ws_write: %s, %v", raw.ModelOutput(out), err)
	}
	out, err = tools.Execute(t.Context(), "ws_read", []byte(`{"path":"/workspace/a.txt"}`))
	if err != nil || out.Text != "abc" {
		t.Errorf("ws_read: %q, %v", out.Text, err)
	}
	out, err = tools.Execute(t.Context(), "ws_write", []byte(`{"path":"/workspace/b.txt","content":"too long"}`))
	if err != nil || !strings.Contains(string(out.JSON), "Use the ws_edit tool for incremental changes") {
		t.Errorf("ws_write over the cap: %s, %v", out.JSON, err)
	}
	var unknown *toolspec.UnknownToolError
	if _, err := tools.Execute(t.Context(), "read", []byte(`{"path":"/workspace/a.txt"}`)); !errors.As(err, &unknown) {
		t.Errorf("read, unprefixed: %v, want *toolspec.UnknownToolError", err)
	}
}
