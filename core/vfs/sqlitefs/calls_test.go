package sqlitefs_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// TestStatementsPerToolCall counts the SQL statements (and read
// transactions) a tool call costs over sqlitefs: a store call is a
// statement through the driver, so each one the Workspace saves is time
// saved. The bounds are what the store's path and subtree lookups
// allow; the generic path (one statement per path element, and a lookup
// per directory walked) needs several times more.
func TestStatementsPerToolCall(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitefs.Open(filepath.Join(t.TempDir(), "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws := vfs.New(s)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ws.WriteFile(ctx, "/workspace/small.txt", []byte(strings.Repeat("a line\n", 10)), vfs.WriteOptions{}))
	for i := range 300 {
		must(ws.WriteFile(ctx, fmt.Sprintf("/workspace/flat/e%03d.txt", i), []byte("x\n"), vfs.WriteOptions{CreateParents: true}))
	}
	for d := range 20 {
		for i := range 10 {
			must(ws.WriteFile(ctx, fmt.Sprintf("/workspace/src/pkg%d/f%d.go", d, i), []byte("package p\n"), vfs.WriteOptions{CreateParents: true}))
		}
	}
	e, err := core.New(ws, core.Options{})
	must(err)
	cases := []struct {
		name string
		call func() (toolspec.Output, error)
		max  int64
	}{
		{"read small", func() (toolspec.Output, error) { return e.Read(ctx, toolspec.ReadArgs{Path: "/workspace/small.txt"}) }, 3},
		{"ls first page", func() (toolspec.Output, error) { return e.Ls(ctx, toolspec.LsArgs{Path: "/workspace/flat"}) }, 2},
		{"find first page", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.go"})
		}, 43},
		{"find no match", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.none"})
		}, 43},
	}
	for _, c := range cases {
		before, txBefore := s.Statements()
		out, err := c.call()
		must(err)
		if strings.Contains(out.Text, `"error"`) {
			t.Fatalf("%s: %s", c.name, out.Text)
		}
		after, txAfter := s.Statements()
		t.Logf("%s: %d statements, %d transactions", c.name, after-before, txAfter-txBefore)
		if n := after - before + 2*(txAfter-txBefore); n > c.max {
			t.Errorf("%s: %d statements (BEGIN and COMMIT counted), want at most %d", c.name, n, c.max)
		}
	}
}
