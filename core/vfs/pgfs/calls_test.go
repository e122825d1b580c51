package pgfs_test

import (
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/internal/testws"
)

// TestRoundTripsPerToolCall counts the round trips to the server each
// tool call makes over pgfs (a statement, a batch or a COPY is one), the
// cost that grows with the distance to the server. The bounds are what
// the store gives: a path resolved in one statement (LstatPath), a
// mutation in one function call, a subtree listed for find and grep in
// one statement whatever its number of directories (a DirOpener), and
// the content of its small files for grep in one more. The Workspace
// looks a path up again for each of its checks (the lock, the tool's
// stat, the operation, the parent of a write): within the call's scope
// (vfs.WithCallScope, which core opens for read, ls, write, edit and
// delete) pgfs answers all but the first from what it read.
func TestRoundTripsPerToolCall(t *testing.T) {
	ctx := t.Context()
	f := open(t, pgtest.Database(t), "calls")
	ws := vfs.New(f)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	testws.CallTree(t, ws)
	must(ws.WriteFile(ctx, "/workspace/big.txt", []byte(strings.Repeat("a longer line of the big file\n", 5<<20/30)), vfs.WriteOptions{}))
	e, err := core.New(ws, core.Options{})
	must(err)
	// Each case's comment says what its round trips are.
	cases := []struct {
		name, tool, args string
		max              int64
	}{
		// The path's lookup (the read's own one answered from the call's
		// memo), then the node with its first chunks.
		{"read small", "read", `{"path":"/workspace/small.txt"}`, 2},
		{"read small again", "read", `{"path":"/workspace/small.txt"}`, 2},
		{"read the first page of 5 MiB", "read", `{"path":"/workspace/big.txt"}`, 2},
		// The lookup, then the directory with its first page.
		{"ls first page", "ls", `{"path":"/workspace/flat"}`, 2},
		{"ls next page", "ls", `{"path":"/workspace/flat","offset":200}`, 2},
		// The lock's lookup (the tool's and the write's of the parent
		// and of the file answered from the memo), then one function
		// call.
		{"write new", "write", `{"path":"/workspace/src/pkg3/new.go","content":"package p\n\nfunc New() {}\n"}`, 2},
		{"write over", "write", `{"path":"/workspace/small.txt","content":"a line\nanother line\n"}`, 2},
		// The lock's lookup (the tool's and Update's from the memo), the
		// node with its content, and the write if unchanged; delete: the
		// lock's lookup, one function call.
		{"edit", "edit", `{"path":"/workspace/small.txt","edits":[{"oldText":"another","newText":"one more"}]}`, 3},
		{"delete a file", "delete", `{"path":"/workspace/src/pkg3/new.go"}`, 2},
		{"delete a tree", "delete", `{"path":"/workspace/src/pkg19","recursive":true}`, 2},
		// The lookup, then the listing of the subtree (src and its 19
		// directories) in one statement.
		{"find", "find", `{"path":"/workspace/src","pattern":"**/*.go"}`, 2},
		{"find again", "find", `{"path":"/workspace/src","pattern":"**/*.none"}`, 2},
		// As find, and the content of the subtree's one-chunk files in
		// one more statement.
		{"grep", "grep", `{"path":"/workspace/src","query":"package"}`, 3},
		// Over /workspace: big.txt too, its 5 MiB read 128 KiB with its
		// node, then 256 KiB, 512 KiB and a MiB a round trip (11 in
		// all), and a small file or two that one of grep's workers
		// opened after the batch that brought it was let go (the workers
		// open files a little out of walk order): a round trip each.
		{"grep a pattern", "grep", `{"path":"/workspace","query":"^x$","regex":true,"include":"**/*.txt"}`, 13},
	}
	for _, c := range cases {
		before := f.RoundTrips()
		out, err := e.Call(ctx, c.tool, []byte(c.args))
		must(err)
		if out.IsError() {
			t.Fatalf("%s: %s", c.name, out.AsText())
		}
		n := f.RoundTrips() - before
		t.Logf("%s: %d round trips", c.name, n)
		if n > c.max {
			t.Errorf("%s: %d round trips, want at most %d", c.name, n, c.max)
		}
	}
}
