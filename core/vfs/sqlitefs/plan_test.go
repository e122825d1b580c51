package sqlitefs

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestQueryPlans checks that listing a directory (with the directory),
// opening a file (its node and first chunk), reading a chunk or a range,
// removing a tree, changing a node and handing out a content id are
// index searches: no table scan, no sort.
func TestQueryPlans(t *testing.T) {
	f, err := Open(filepath.Join(t.TempDir(), "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := []struct {
		name  string
		query string
		args  []any
		uses  string // the index the plan must name
	}{
		{"ReadDir", qDirPage, []any{"d", -1, 0}, "node_parent_name"},
		{"ReadDir's directory", qDirPage, []any{"d", -1, 0}, "PRIMARY KEY"},
		{"Entries", qDirAfter, []any{"d", "x", 100}, "node_parent_name"},
		{"Entries' directory", qDirAfter, []any{"d", "x", 100}, "PRIMARY KEY"},
		{"Open", qNodeChunk, []any{"d", 0, 0}, "sqlite_autoindex_chunk_1"},
		{"Open's node", qNodeChunk, []any{"d", 0, 0}, "PRIMARY KEY"},
		{"chunk range", qChunkRange, []any{1, 2, 18, 0}, "sqlite_autoindex_chunk_1"},
		{"Remove", qHasEntry, []any{"d"}, "node_parent_name"},
		{"chunks", qChunks, []any{1, 0}, "sqlite_autoindex_chunk_1"},
		{"Lstat", qNode, []any{"d"}, "PRIMARY KEY"},
		{"RemoveAll nodes", qDelNodesBelow, []any{"d/", "d0"}, "PRIMARY KEY"},
		{"RemoveAll checksums", qBadBelow, []any{"d/", "d0"}, "PRIMARY KEY"},
		{"stamp a directory", qStampDir, []any{1, 2, 1, "d"}, "PRIMARY KEY"},
		{"set content", qSetContent, []any{0o644, 1, 2, 3, 4, "d"}, "PRIMARY KEY"},
		{"next content id", qNextContent, nil, "PRIMARY KEY"},
		{"RemoveAll chunks", qDelChunksBelow, []any{"d/", "d0"}, "PRIMARY KEY"},
		{"RemoveAll contents", qDelContentBelow, []any{"d/", "d0"}, "PRIMARY KEY"},
		{"orphan", qDelOrphanChunks, []any{1}, "sqlite_autoindex_chunk_1"},
		{"garbage", qDelGarbageChunks, []any{1}, "content_pending"},
	}
	// The nodes are scanned only when there is garbage, to keep a file's
	// content that damage marked as garbage.
	scans := map[string]bool{"garbage": true}
	for _, tt := range tests {
		rows, err := f.r.db().QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+tt.query, tt.args...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		if !strings.Contains(text, tt.uses) || strings.Contains(text, "TEMP B-TREE") || !scans[tt.name] && strings.Contains(text, "SCAN tree") || strings.Contains(text, "SCAN chunk") {
			t.Errorf("%s: plan %q, want a search using %s and no scan or sort", tt.name, text, tt.uses)
		} else {
			t.Logf("%s: %s", tt.name, text)
		}
	}
}
