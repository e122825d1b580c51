package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// agenttools mcp --prefix serves the prefixed names and runs their calls.
func TestMCPPrefix(t *testing.T) {
	dir := hostDir(t)
	s := startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--prefix", "ws_")
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(s.request("tools/list", []byte(`{}`))["result"], &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if got, want := strings.Join(names, " "), "ws_delete ws_edit ws_find ws_grep ws_ls ws_read ws_write"; got != want {
		t.Errorf("tools/list: %q, want %q", got, want)
	}
	text, isError := toolText(t, s.request("tools/call", []byte(`{"name":"ws_read","arguments":{"path":"/workspace/a.txt"}}`)))
	if isError || text != "hello\nworld" {
		t.Errorf("ws_read: %q (error %v)", text, isError)
	}
}
