package mcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// Through the go-sdk client (tools/list, tools/call), a run-time overlay
// changes what it says and nothing else: grep's description, read's
// description with the overlay's default line cap (500), read's path
// description, exec withheld; every other field of every tool (the other
// descriptions, input and output schemas, titles, annotations) is what the
// set without the overlay lists. A read of a 600-line file then returns
// 500 lines with the continuation.
func TestOverlayThroughTheClient(t *testing.T) {
	grep := "Search file contents; results give paths and line numbers."
	s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"grep": {Description: &grep},
		"read": {Limits: map[string]int64{"maxLines": 500}, Params: map[string]string{"path": "Absolute path of the file"}},
		"exec": {Offered: new(bool)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ws, opts := agentcase.Workspace(t)
	var file strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&file, "line %d\n", i)
	}
	if err := ws.WriteFile(t.Context(), "/workspace/long.txt", []byte(file.String()), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	list := func(cs *sdk.ClientSession) []*sdk.Tool {
		t.Helper()
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools
	}
	base := list(connect(t, ws, opts, nil))
	opts.Surface = s
	cs := connect(t, ws, opts, nil)
	got := list(cs)

	var want []*sdk.Tool
	for _, tool := range base {
		switch tool.Name {
		case "exec":
			continue
		case "grep":
			tool.Description = grep
		case "read":
			tool.Description = toolspec.ReadDescription(500, toolspec.ReadMaxBytesDefault)
			path := tool.InputSchema.(map[string]any)["properties"].(map[string]any)["path"].(map[string]any)
			if path["description"] != "Path to the file to read" {
				t.Fatalf("read's path is described %q without the overlay", path["description"])
			}
			path["description"] = "Absolute path of the file"
		}
		want = append(want, tool)
	}
	if len(want) != 8 {
		t.Fatalf("the set without the overlay lists %d tools besides exec, want 8", len(want))
	}
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	if string(g) != string(w) {
		t.Errorf("tools/list with the overlay:\n%s\nwant (the list without it, changed only where the overlay says):\n%s", g, w)
	}

	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/workspace/long.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	var read toolspec.ReadResult
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &read); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(read.Content, "\n") + 1; res.IsError || lines != 500 || read.EndLine != 500 || !read.Truncated || read.NextOffset == nil || *read.NextOffset != 501 {
		t.Errorf("read of 600 lines gave %d lines, endLine %d, nextOffset %v", lines, read.EndLine, read.NextOffset)
	}
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "go test ./..."}}); err == nil {
		t.Error("exec, withheld by the overlay, ran")
	}
}
