package mcp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// wantAnnotations are the annotations issue 16 asks of each tool, written
// out here rather than read from the spec so that a change to the spec
// fails this test. A pointer hint that is nil is one the server must not
// send (MCP's default holds); readOnlyHint and idempotentHint are plain
// booleans in the go-sdk, always sent.
var wantAnnotations = map[string]*sdk.ToolAnnotations{
	"read":   {Title: "Read file", ReadOnlyHint: true, OpenWorldHint: new(false)},
	"ls":     {Title: "List directory", ReadOnlyHint: true, OpenWorldHint: new(false)},
	"find":   {Title: "Find files", ReadOnlyHint: true, OpenWorldHint: new(false)},
	"grep":   {Title: "Search file contents", ReadOnlyHint: true, OpenWorldHint: new(false)},
	"write":  {Title: "Write file", DestructiveHint: new(true), IdempotentHint: true},
	"edit":   {Title: "Edit file", DestructiveHint: new(true), IdempotentHint: false},
	"delete": {Title: "Delete file or directory", DestructiveHint: new(true), IdempotentHint: true},
	"exec":   {Title: "Run command", DestructiveHint: new(true), OpenWorldHint: new(true)},
	// issue 17: publish changes no workspace file but hands one to the
	// outside world, overwrites nothing, and makes a new link each time.
	"publish": {Title: "Publish file", DestructiveHint: new(false), IdempotentHint: false, OpenWorldHint: new(true)},
}

// The go-sdk client lists every tool with exactly its annotations, and
// its title both as the tool's title and as annotations.title; a
// read-only set lists the read-only tools only, annotations and all. (The
// bytes on the wire are pinned by TestWire.)
func TestAnnotations(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	for _, c := range []struct {
		name  string
		opts  agenttools.Options
		tools []string
	}{
		{"all", opts, []string{"delete", "edit", "exec", "find", "grep", "ls", "publish", "read", "write"}},
		{"readonly", agenttools.Options{Readonly: true, Backends: opts.Backends, Publisher: opts.Publisher}, []string{"find", "grep", "ls", "read"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := connect(t, ws, c.opts, nil)
			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				want := wantAnnotations[tool.Name]
				if diff := cmp.Diff(want, tool.Annotations); diff != "" {
					t.Errorf("%s: annotations (-want +got):\n%s", tool.Name, diff)
				}
				if want != nil && tool.Title != want.Title {
					t.Errorf("%s: title %q, want %q", tool.Name, tool.Title, want.Title)
				}
				if c.opts.Readonly && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
					t.Errorf("%s: listed by a read-only set without readOnlyHint", tool.Name)
				}
			}
			// The SDK lists tools in name order.
			if diff := cmp.Diff(c.tools, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}
