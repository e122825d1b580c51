package sqlitefs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// TestStatementsPerToolCall counts the SQL statements (and read
// transactions) a tool call costs over sqlitefs: a store call is a
// statement through the driver, so each one the Workspace saves is time
// saved. The bounds are what the store's path and subtree lookups
// allow; the generic path (one statement per path element, and a lookup
// per directory walked) needs several times more.
func TestStatementsPerToolCall(t *testing.T) {
	if runtime.GOOS != "linux" {
		// Elsewhere each call reads the change counter with a statement,
		// which these bounds (0 for a listing served from memory) leave out.
		t.Skip("the bounds assume the WAL index is mapped, which it is on Linux only")
	}
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
	testws.CallTree(t, ws)
	e, err := core.New(ws, core.Options{})
	must(err)
	cases := []struct {
		name string
		call func() (toolspec.Output, error)
		max  int64
	}{
		// Resolve (its nodes kept), then the node with its first chunk;
		// read again, the path is resolved from what was kept.
		{"read small", func() (toolspec.Output, error) { return e.Read(ctx, toolspec.ReadArgs{Path: "/workspace/small.txt"}) }, 2},
		{"read small again", func() (toolspec.Output, error) { return e.Read(ctx, toolspec.ReadArgs{Path: "/workspace/small.txt"}) }, 1},
		// Resolve (reading the change counter too), the page (kept); the
		// page again from what was kept, the counter unchanged read from
		// the WAL index; the next one reading what follows it.
		{"ls first page", func() (toolspec.Output, error) { return e.Ls(ctx, toolspec.LsArgs{Path: "/workspace/flat"}) }, 2},
		{"ls first page again", func() (toolspec.Output, error) { return e.Ls(ctx, toolspec.LsArgs{Path: "/workspace/flat"}) }, 0},
		{"ls next page", func() (toolspec.Output, error) {
			return e.Ls(ctx, toolspec.LsArgs{Path: "/workspace/flat", Offset: new(int64(200))})
		}, 1},
		// The first walk reads each directory's listing with the
		// directory (1 + 1 + 20 for src and its 20 directories); the
		// walks after it, of the unchanged tree, read nothing.
		{"find first page", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.go"})
		}, 22},
		{"find no match, unchanged tree", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.none"})
		}, 0},
		{"grep, unchanged tree", func() (toolspec.Output, error) {
			return e.Grep(ctx, toolspec.GrepArgs{Path: "/workspace/src", Query: "nothing like this"})
		}, 200},
		{"change", func() (toolspec.Output, error) {
			return e.Write(ctx, toolspec.WriteArgs{Path: "/workspace/src/pkg3/new.go", Content: "x"})
		}, 100},
		{"find after a change", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.none"})
		}, 22},
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

// walkAll lists every path below the directory real of ws through
// directory handles, as find and grep walk, with the kind of each.
func walkAll(t *testing.T, ws *vfs.Workspace, real string) []string {
	t.Helper()
	ctx := t.Context()
	top, err := ws.OpenDirReal(ctx, real)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(d *vfs.Dir, shown string)
	walk = func(d *vfs.Dir, shown string) {
		defer d.Close()
		for after := ""; ; {
			entries, err := d.Entries(ctx, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range entries {
				p := shown + "/" + en.Name
				out = append(out, fmt.Sprintf("%s %v", p, en.Type))
				if en.Type == vfs.TypeDir {
					sub, err := d.OpenDir(ctx, en.Name)
					if err != nil {
						t.Fatal(err)
					}
					walk(sub, p)
				}
			}
			if len(entries) < 3 {
				return
			}
			after = entries[len(entries)-1].Name
		}
	}
	walk(top, real)
	return out
}

// TestKeptListingsFollowChanges walks a tree, and looks up its paths
// (Lstat, LstatPath), through one FS between random changes made
// through it and through another FS of the same file (another
// process), and checks each walk and lookup against one through an FS
// opened afresh: a listing or node kept from before a change is never
// served after it.
func TestKeptListingsFollowChanges(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "ws.db")
	a, err := sqlitefs.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlitefs.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	wsA := vfs.New(a)
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"d", "d/e", "d/e/f", "d/g", "h", "d/e/i", "d-e", "d/e-f", "d/a", "d/b", "d/c", "a", "b"}
	for step := range 60 {
		s := a
		if rng.IntN(2) == 0 {
			s = b
		}
		name := "workspace/" + names[rng.IntN(len(names))]
		switch rng.IntN(4) {
		case 0:
			_ = s.Mkdir(ctx, name, 0o755)
		case 1:
			_ = s.Create(ctx, name, 0o644)
		case 2:
			_ = s.RemoveAll(ctx, name)
		case 3:
			_ = s.Symlink(ctx, "d", name)
		}
		fresh, err := sqlitefs.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		// ReadDir pages, each starting within what the ones before read
		// (which a kept listing then serves, or extends).
		for _, p := range [][2]int{{0, 2}, {1, 2}, {2, 3}, {0, 1}, {4, -1}, {0, -1}, {9, 1}} {
			for _, dir := range []string{"workspace", "workspace/d"} {
				got, gotErr := a.ReadDir(ctx, dir, p[0], p[1])
				want, wantErr := fresh.ReadDir(ctx, dir, p[0], p[1])
				if fmt.Sprint(got, gotErr) != fmt.Sprint(want, wantErr) {
					t.Fatalf("step %d: ReadDir(%s, %d, %d) = %v, %v; a new FS: %v, %v", step, dir, p[0], p[1], got, gotErr, want, wantErr)
				}
			}
		}
		// Lstat and LstatPath of every name, twice (the second from what
		// the first, or the listings, kept).
		for range 2 {
			for _, n := range append([]string{"", "x"}, names...) {
				name := strings.TrimSuffix("workspace/"+n, "/")
				got, gotErr := a.Lstat(ctx, name)
				want, wantErr := fresh.Lstat(ctx, name)
				if fmt.Sprint(got, gotErr) != fmt.Sprint(want, wantErr) {
					t.Fatalf("step %d: Lstat(%s) = %v, %v; a new FS: %v, %v", step, name, got, gotErr, want, wantErr)
				}
				elems := strings.Split(n, "/")
				gotPath, gotErr := a.LstatPath(ctx, "workspace", elems)
				wantPath, wantErr := fresh.LstatPath(ctx, "workspace", elems)
				if fmt.Sprint(gotPath, gotErr) != fmt.Sprint(wantPath, wantErr) {
					t.Fatalf("step %d: LstatPath(workspace, %q) = %v, %v; a new FS: %v, %v", step, elems, gotPath, gotErr, wantPath, wantErr)
				}
			}
		}
		got := walkAll(t, wsA, "/workspace")
		want := walkAll(t, vfs.New(fresh), "/workspace")
		fresh.Close()
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: walk through the FS that walked before:\n%q\nthrough a new one:\n%q", step, got, want)
		}
		// Walked twice, the second from the listings kept.
		if again := walkAll(t, wsA, "/workspace"); !slices.Equal(again, want) {
			t.Fatalf("step %d: second walk:\n%q\nwant:\n%q", step, again, want)
		}
	}
}
