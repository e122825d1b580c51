package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/toolspec"
)

// TestPrefix: a set with a prefix offers every tool under the prefixed
// name, answers calls of that name only, and names other tools with the
// prefix wherever its texts name them.
func TestPrefix(t *testing.T) {
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell"}, execbackend.NewScripts(nil))
	ex := newExec(t, core.Options{Prefix: "ws_", Backends: []execbackend.Backend{shell}, Write: core.WriteOptions{MaxBytes: 4}},
		map[string]string{"/workspace/a.txt": "hello\n", "/workspace/latin1.txt": "caf\xe9 au lait\n"})
	var names []string
	for _, tool := range ex.Tools() {
		names = append(names, tool.Name)
		if tool.Name != "ws_"+tool.Spec {
			t.Errorf("tool %s: spec name %q", tool.Name, tool.Spec)
		}
		if got, ok := ex.Tool(tool.Name); !ok || got.Name != tool.Name {
			t.Errorf("Tool(%q) = %v, %v", tool.Name, got.Name, ok)
		}
	}
	if got, want := strings.Join(names, " "), "ws_read ws_ls ws_find ws_grep ws_write ws_edit ws_delete ws_exec"; got != want {
		t.Errorf("names %q, want %q", got, want)
	}
	exec, _ := ex.Tool("ws_exec")
	if want := "Prefer the dedicated ws_read, ws_write, and ws_edit tools"; !strings.Contains(exec.Description, want) {
		t.Errorf("exec's description does not say %q:\n%s", want, exec.Description)
	}
	if want := "which the ws_read and ws_grep tools can open."; !strings.Contains(exec.Description, want) {
		t.Errorf("exec's description does not say %q:\n%s", want, exec.Description)
	}

	checkOutput(t, call(t, ex, "ws_read", `{"path":"/workspace/a.txt"}`), textOut("hello"))
	checkOutput(t, call(t, ex, "ws_read", `{"path":3}`), invalid("ws_read", toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameNumber)))
	checkOutput(t, call(t, ex, "ws_write", `{"path":"/workspace/b.txt","content":"too long"}`),
		errJSON("Content too large: 8 bytes exceeds the 4-byte write cap. Use the ws_edit tool for incremental changes to existing files, or split the write into smaller pieces."))
	checkOutput(t, call(t, ex, "ws_edit", `{"path":"/workspace/latin1.txt","edits":[{"oldText":"caf\uFFFD au","newText":"coffee"}]}`),
		errJSON("The text to replace in /workspace/latin1.txt covers bytes that are not valid UTF-8 (ws_read shows them as \uFFFD); they are never rewritten. Edit the text around them, or rewrite the whole file with the ws_write tool."))
	out, err := ex.CallUnchecked(t.Context(), "ws_ls", []byte(`{"path":"/workspace"}`))
	if err != nil || !strings.Contains(string(out.JSON), `"name":"a.txt"`) {
		t.Errorf("unchecked ws_ls: %v, %v", out.JSON, err)
	}
	for _, name := range []string{toolspec.ToolRead, "ws_", "ws_ws_read"} {
		_, err := ex.Call(t.Context(), name, []byte(`{"path":"/workspace/a.txt"}`))
		var unknown *toolspec.UnknownToolError
		if !errors.As(err, &unknown) {
			t.Errorf("%s: got error %v, want *toolspec.UnknownToolError", name, err)
		}
	}
}

// TestPrefixRefused: New refuses a prefix that would make a name some
// model provider refuses, and takes the longest one that does not.
func TestPrefixRefused(t *testing.T) {
	for _, prefix := range []string{"1ws_", "-ws", "ws.", "ws:", "ws ", "wś_", "ws/", strings.Repeat("p", 58)} {
		if err := core.CheckPrefix(prefix); err == nil {
			t.Errorf("CheckPrefix(%q) accepted it", prefix)
		}
		if _, err := core.New(newExec(t, core.Options{}, nil).Workspace(), core.Options{Prefix: prefix}); err == nil || !strings.Contains(err.Error(), "prefix") {
			t.Errorf("New with prefix %q: %v, want an error about the prefix", prefix, err)
		}
	}
	for _, prefix := range []string{"", "ws_", "_", "A-b_9-", strings.Repeat("p", 57)} {
		ex, err := core.New(newExec(t, core.Options{}, nil).Workspace(), core.Options{Prefix: prefix})
		if err != nil {
			t.Errorf("New with prefix %q: %v", prefix, err)
			continue
		}
		for _, tool := range ex.Tools() {
			if len(tool.Name) > 64 {
				t.Errorf("prefix %q: name %q is %d bytes", prefix, tool.Name, len(tool.Name))
			}
		}
	}
}
