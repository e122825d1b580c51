//go:build linux

package sqlitefs_test

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
)

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
