//go:build linux

package sqlitefs_test

import (
	"cmp"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// TestKeptNodesSharedFileInProcess keeps nodes looked up in several FS
// open on one database file in this process (which share SQLite's one
// descriptor of the WAL index), while another process, and the sqlite3
// tool's checkpoint that starts the WAL over, change the tree; FS are
// closed and opened between the changes. Every lookup of every FS still
// open sees every change committed before it: closing one FS neither
// unmaps nor unlocks the WAL index the others read, and one opened
// after another closed maps the index anew.
func TestKeptNodesSharedFileInProcess(t *testing.T) {
	ctx := t.Context()
	a, file := openStore(t)
	if err := a.Mkdir(ctx, "workspace/d", 0o755); err != nil {
		t.Fatal(err)
	}
	b := reopen(t, file)
	other := startReader(t, file, "rw", nil)
	// look is what s sees at workspace/d/name, asked twice (the second
	// from what the first kept, when nothing changed).
	look := func(s *sqlitefs.FS, name string) string {
		t.Helper()
		var out string
		for i := range 2 {
			info, err := s.Lstat(ctx, "workspace/d/"+name)
			got := fmt.Sprintf("%v %d %s", info.Type, info.Size, cmp.Or(string(errno.CodeOf(err)), "-"))
			if i == 1 && got != out {
				t.Errorf("%s looked up twice: %q, then %q", name, out, got)
			}
			out = got
		}
		return out
	}
	do := func(cmd string) {
		t.Helper()
		if got := other.ask(t, cmd); got != "ok " {
			t.Fatalf("%s: %s", cmd, got)
		}
	}
	expect := func(step, name, want string, fss ...*sqlitefs.FS) {
		t.Helper()
		for i, s := range fss {
			if got := look(s, name); got != want {
				t.Errorf("after %s: FS %d sees %s as %q, want %q", step, i, name, got, want)
			}
		}
	}
	const file1, missingNode = "file 1 -", "file 0 ENOENT"
	expect("start", "y", missingNode, a, b)
	do("write workspace/d/y")
	expect("the other process's write", "y", file1, a, b)
	if err := b.WriteFile(ctx, "workspace/d/z", strings.NewReader(""), 0o644); err != nil {
		t.Fatal(err)
	}
	expect("b's write", "z", "file 0 -", a, b)
	if _, err := exec.LookPath("sqlite3"); err == nil {
		if out, err := exec.Command("sqlite3", file, "PRAGMA wal_checkpoint(TRUNCATE);").CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v %s", err, out)
		}
		expect("the checkpoint", "y", file1, a, b)
		do("rm workspace/d/z")
		expect("a write after the WAL started over", "z", missingNode, a, b)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	do("rm workspace/d/y")
	expect("b's close and the other's removal", "y", missingNode, a)
	c := reopen(t, file)
	expect("c's open", "y", missingNode, a, c)
	do("mkdir workspace/d/y")
	expect("the other's mkdir", "y", "dir 0 -", a, c)
	// Every FS of this process closed: the next one opened maps the WAL
	// index again (the other process keeps it).
	a.Close()
	c.Close()
	e := reopen(t, file)
	expect("a new FS", "y", "dir 0 -", e)
	do("rm workspace/d/y")
	expect("the removal after every FS of this process closed", "y", missingNode, e)
	do("write workspace/d/y")
	expect("the write after", "y", file1, e)
}

// TestKeptNodesRaceWrites looks paths up, in goroutines, through an FS
// while another FS on the same file in this process (and then the FS
// itself) writes: a lookup begun after a change was acknowledged sees
// it, however the lookups and commits interleave.
func TestKeptNodesRaceWrites(t *testing.T) {
	ctx := t.Context()
	a, file := openStore(t)
	if err := a.Mkdir(ctx, "workspace/d", 0o755); err != nil {
		t.Fatal(err)
	}
	b := reopen(t, file)
	for wi, w := range []*sqlitefs.FS{b, a} {
		// done is the last change acknowledged, begun the last one begun.
		var done, begun atomic.Int64
		done.Store(-1)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					n := done.Load()
					if n < 0 {
						continue
					}
					// Change n made f<n> and removed f<n-1>; change n+1
					// removes f<n>.
					if _, err := a.Lstat(ctx, fmt.Sprintf("workspace/d/f%d", n)); err != nil && begun.Load() == n {
						t.Errorf("writer %d: f%d, made by an acknowledged change: %v", wi, n, err)
						return
					}
					if n > 0 {
						path, err := a.LstatPath(ctx, "workspace", []string{"d", fmt.Sprintf("f%d", n-1)})
						if err != nil || len(path) != 2 {
							t.Errorf("f%d, removed by an acknowledged change: %d nodes, %v", n-1, len(path), err)
							return
						}
					}
				}
			})
		}
		for i := range 300 {
			begun.Store(int64(i))
			if err := w.WriteFile(ctx, fmt.Sprintf("workspace/d/f%d", i), strings.NewReader("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				if err := w.Remove(ctx, fmt.Sprintf("workspace/d/f%d", i-1)); err != nil {
					t.Fatal(err)
				}
			}
			done.Store(int64(i))
		}
		close(stop)
		wg.Wait()
		if err := w.Remove(ctx, "workspace/d/f299"); err != nil {
			t.Fatal(err)
		}
	}
}
