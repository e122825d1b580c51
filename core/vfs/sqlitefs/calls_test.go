package sqlitefs_test

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
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

// TestKeptNodesFollowOtherProcess looks paths up through one FS, which
// keeps what it read, while another process changes them: every lookup
// sees every change committed before it, and an unchanged tree is
// looked up again without a statement.
func TestKeptNodesFollowOtherProcess(t *testing.T) {
	ctx := t.Context()
	a, file := openStore(t)
	if err := a.Mkdir(ctx, "workspace/d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, "workspace/d/x", 0o644); err != nil {
		t.Fatal(err)
	}
	other := startReader(t, file, "rw", nil)
	// describe is what a sees at workspace/d/NAME, by Lstat, by
	// LstatPath and from its directory's listing, each asked twice.
	describe := func(name string) string {
		t.Helper()
		var out []string
		for range 2 {
			info, err := a.Lstat(ctx, "workspace/d/"+name)
			out = append(out, fmt.Sprintf("%q %v %d %s", info.Name, info.Type, info.Size, cmp.Or(string(errno.CodeOf(err)), "-")))
			path, err := a.LstatPath(ctx, "workspace", []string{"d", name})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(len(path)))
			if _, err := a.ReadDir(ctx, "workspace/d", 0, -1); err != nil {
				t.Fatal(err)
			}
		}
		return strings.Join(out, " ")
	}
	steps := []struct {
		cmd, name, want string
	}{
		{"", "x", `"x" file 0 - 3 "x" file 0 - 3`},
		{"", "y", `"" file 0 ENOENT 2 "" file 0 ENOENT 2`},
		{"write workspace/d/y", "y", `"y" file 1 - 3 "y" file 1 - 3`},
		{"rm workspace/d/x", "x", `"" file 0 ENOENT 2 "" file 0 ENOENT 2`},
		{"mkdir workspace/d/x", "x", `"x" dir 0 - 3 "x" dir 0 - 3`},
	}
	for _, st := range steps {
		if st.cmd != "" {
			if got := other.ask(t, st.cmd); got != "ok " {
				t.Fatalf("%s: %s", st.cmd, got)
			}
		}
		if got := describe(st.name); got != st.want {
			t.Errorf("after %q: %s is %q, want %q", st.cmd, st.name, got, st.want)
		}
	}
	// Unchanged since: no statement.
	before, _ := a.Statements()
	describe("x")
	describe("y")
	describe("z")
	if after, _ := a.Statements(); after != before {
		t.Errorf("looking up an unchanged tree again ran %d statements, want 0", after-before)
	}
}

// walUnchecked reads, from the -shm file beside the database at file
// (SQLite's WAL index), how many frames the WAL holds that no
// checkpoint copied into the database yet.
func walUnchecked(t *testing.T, file string) uint32 {
	t.Helper()
	b, err := os.ReadFile(file + "-shm")
	if err != nil || len(b) < 100 {
		t.Fatalf("reading the WAL index: %d bytes, %v", len(b), err)
	}
	return binary.NativeEndian.Uint32(b[16:]) - binary.NativeEndian.Uint32(b[96:])
}

// TestCheckpointsInBackground makes changes until the WAL is long while
// the checkpoints started in the background are held: no change's
// commit copies the WAL into the database itself (which syncs both
// files to disk, milliseconds each); once released, a checkpoint in
// the background does.
func TestCheckpointsInBackground(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the WAL index is mapped on Linux only")
	}
	ctx := t.Context()
	s, file := openStore(t)
	release := s.HoldCheckpoints()
	for i := 0; walUnchecked(t, file) < 1500; i++ {
		if i == 3000 {
			release()
			t.Fatalf("after %d changes the WAL holds %d frames not copied, want 1500: a commit checkpointed", i, walUnchecked(t, file))
		}
		if err := s.Chmod(ctx, "workspace", 0o700+uint32(i%2)); err != nil {
			t.Fatal(err)
		}
	}
	release()
	if n := s.Checkpoints(); n != 1 {
		t.Errorf("%d checkpoints ran in the background, want 1", n)
	}
	if n := walUnchecked(t, file); n != 0 {
		t.Errorf("after the checkpoint the WAL holds %d frames not copied, want 0", n)
	}
}
