package execbackend_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// stores are the workspaces the mirror serves: in memory (fast) and in
// SQLite (the store the mirror is for).
var stores = []testws.Store{testws.Memory, testws.SQLite}

// forEachStore runs test on a mirror over each store, holding files, on
// each backend (subtests backend/store).
func forEachStore(t *testing.T, files map[string]string, test func(t *testing.T, ws *vfs.Workspace, m *testMirror)) {
	forEachBackend(t, func(t *testing.T, b testws.Backend) {
		for _, s := range stores {
			t.Run(s.Name, func(t *testing.T) {
				ws := s.New(t)
				for p, content := range files {
					if err := ws.WriteFile(t.Context(), p, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
						t.Fatal(err)
					}
				}
				test(t, ws, newBackendMirror(t, b, ws, t.TempDir()))
			})
		}
	})
}

// runAround runs command on b as run id, and makes the workspace changes
// of during after the command's copy is made and before the command
// goes on (it waits on a pipe until during returned), then reads the
// run's events to the exit.
func runAround(t *testing.T, b *testMirror, id, command string, during func()) finished {
	t.Helper()
	b.fifos++
	fifo := filepath.Join(b.gates, fmt.Sprintf("go%d", b.fifos))
	if err := testws.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	b.b.Give(t, fifo)
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	defer cancel()
	run, err := b.Start(ctx, execbackend.Request{ID: id, Command: "read -r _ < " + fifo + "; " + command})
	if err != nil {
		t.Fatalf("Start(%q): %v", command, err)
	}
	during()
	// The line waits in the pipe, open until the run ends, for the
	// command to read it.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
	return drain(t, ctx, run, command)
}

// drain reads a run's events to the exit.
func drain(t *testing.T, ctx context.Context, run execbackend.Run, command string) finished {
	t.Helper()
	var f finished
	for {
		ev, err := run.Next(ctx)
		if err != nil {
			t.Fatalf("%q: %v (a hang: no exit within %v)", command, err, hang)
		}
		switch ev.Kind {
		case execbackend.Stdout:
			f.stdout += string(ev.Data)
		case execbackend.Stderr:
			f.stderr += string(ev.Data)
		case execbackend.Exit:
			f.exit = ev
			return f
		}
	}
}

func write(t *testing.T, ws *vfs.Workspace, p, content string) {
	t.Helper()
	if err := ws.WriteFile(t.Context(), p, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
}

func wantFile(t *testing.T, ws *vfs.Workspace, p, want string) {
	t.Helper()
	if got := readWS(t, ws, p); got != want {
		t.Errorf("%s: %q, want %q", p, got, want)
	}
}

// The example: the workspace file changes while the command
// changes another line of it; the sync back merges the two, and the next
// command sees the merge.
func TestMirrorMergesAConcurrentChange(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/f.txt": "alpha\nbeta\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "sed -i s/alpha/ALPHA/ f.txt", func() {
			write(t, ws, "/workspace/f.txt", "alpha\nBETA\n")
		})
		if got.exit.Code != 0 || got.stderr != "" {
			t.Errorf("exit %d stderr %q", got.exit.Code, got.stderr)
		}
		wantFile(t, ws, "/workspace/f.txt", "ALPHA\nBETA\n")
		if s := m.LastSync(); s.Merged != 1 || s.Conflicts != 0 {
			t.Errorf("sync %+v", s)
		}
		if got := runToEnd(t, m, execbackend.Request{Command: "cat f.txt"}); got.stdout != "ALPHA\nBETA\n" {
			t.Errorf("the next command sees %q", got.stdout)
		}
	})
}

// Where both changed the same line, the workspace's version stays, the
// command's is saved under the run's conflict directory, and the note
// names both; a later run of the same id never overwrites that copy.
func TestMirrorConflictKeepsTheWorkspaceVersion(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/sub/f.txt": "alpha\nbeta\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-7", "sed -i s/alpha/ALPHA/ sub/f.txt", func() {
			write(t, ws, "/workspace/sub/f.txt", "alpha, changed\nbeta\n")
		})
		want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/sub/f.txt", "/.computer/conflicts/exec-7/sub/f.txt")))
		if got.exit.Code != 0 || got.stderr != want {
			t.Errorf("exit %d stderr %q, want %q", got.exit.Code, got.stderr, want)
		}
		wantFile(t, ws, "/workspace/sub/f.txt", "alpha, changed\nbeta\n")
		wantFile(t, ws, "/.computer/conflicts/exec-7/sub/f.txt", "ALPHA\nbeta\n")
		if s := m.LastSync(); s.Merged != 0 || s.Conflicts != 1 {
			t.Errorf("sync %+v", s)
		}
		if got := runToEnd(t, m, execbackend.Request{Command: "cat sub/f.txt"}); got.stdout != "alpha, changed\nbeta\n" {
			t.Errorf("the next command sees %q", got.stdout)
		}

		// Another process's run exec-7 conflicts too: a directory of its own.
		// After the command's own stderr, the note is set off by a blank line.
		got = runAround(t, m, "exec-7", "echo mine > sub/f.txt; echo warning >&2", func() {
			write(t, ws, "/workspace/sub/f.txt", "theirs\n")
		})
		want = "warning\n" + toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/sub/f.txt", "/.computer/conflicts/exec-7-2/sub/f.txt"))
		if got.stderr != want {
			t.Errorf("stderr %q, want %q", got.stderr, want)
		}
		wantFile(t, ws, "/.computer/conflicts/exec-7/sub/f.txt", "ALPHA\nbeta\n")
		wantFile(t, ws, "/.computer/conflicts/exec-7-2/sub/f.txt", "mine\n")
		wantFile(t, ws, "/workspace/sub/f.txt", "theirs\n")
	})
}

// A file the command deleted that the workspace changed meanwhile is
// kept, and named; one nobody else touched goes.
func TestMirrorKeepsADeletedFileChangedMeanwhile(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/f.txt": "f\n", "/workspace/g.txt": "g\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "rm f.txt g.txt", func() {
			write(t, ws, "/workspace/f.txt", "f, changed\n")
		})
		if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictNotDeleted("/workspace/f.txt"))); got.stderr != want {
			t.Errorf("stderr %q, want %q", got.stderr, want)
		}
		wantFile(t, ws, "/workspace/f.txt", "f, changed\n")
		if _, err := ws.Lstat(t.Context(), "/workspace/g.txt"); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("g.txt: %v", err)
		}
		if got := runToEnd(t, m, execbackend.Request{Command: "ls"}); got.stdout != "f.txt\n" {
			t.Errorf("the next command sees %q", got.stdout)
		}
	})
}

// A file the command changed that the workspace deleted meanwhile stays
// deleted; the command's version is saved.
func TestMirrorKeepsADeletionMeanwhile(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/f.txt": "f\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "echo more >> f.txt", func() {
			if err := ws.Remove(t.Context(), "/workspace/f.txt", vfs.RemoveOptions{}); err != nil {
				t.Fatal(err)
			}
		})
		if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/f.txt", "/.computer/conflicts/exec-1/f.txt"))); got.stderr != want {
			t.Errorf("stderr %q, want %q", got.stderr, want)
		}
		if _, err := ws.Lstat(t.Context(), "/workspace/f.txt"); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("f.txt: %v", err)
		}
		wantFile(t, ws, "/.computer/conflicts/exec-1/f.txt", "f\nmore\n")
	})
}

// Both made a file at one path: the same content is no conflict;
// different content keeps the workspace's, and saves the command's.
func TestMirrorCreateVersusCreate(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/keep": ""}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "echo same > same.txt; echo mine > new.txt", func() {
			write(t, ws, "/workspace/same.txt", "same\n")
			write(t, ws, "/workspace/new.txt", "theirs\n")
		})
		if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/new.txt", "/.computer/conflicts/exec-1/new.txt"))); got.stderr != want {
			t.Errorf("stderr %q, want %q", got.stderr, want)
		}
		wantFile(t, ws, "/workspace/same.txt", "same\n")
		wantFile(t, ws, "/workspace/new.txt", "theirs\n")
		wantFile(t, ws, "/.computer/conflicts/exec-1/new.txt", "mine\n")
	})
}

// A mode the command changed is applied to the workspace's file, which
// keeps the content the workspace gave it meanwhile.
func TestMirrorModeOnlyChange(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/run.sh": "echo old\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "chmod 755 run.sh", func() {
			write(t, ws, "/workspace/run.sh", "echo new\n")
		})
		if got.stderr != "" {
			t.Errorf("stderr %q", got.stderr)
		}
		wantFile(t, ws, "/workspace/run.sh", "echo new\n")
		if info, err := ws.Lstat(t.Context(), "/workspace/run.sh"); err != nil || info.Mode != 0o755 {
			t.Errorf("run.sh: %+v %v", info, err)
		}
		if got := runToEnd(t, m, execbackend.Request{Command: "./run.sh"}); got.stdout != "new\n" {
			t.Errorf("the next command runs %q %q", got.stdout, got.stderr)
		}
	})
}

// Line endings and a missing final newline come through a merge byte
// for byte.
func TestMirrorMergeKeepsLineEndings(t *testing.T) {
	files := map[string]string{
		"/workspace/crlf.txt":  "one\r\ntwo\r\nthree\r\nfour\r\n",
		"/workspace/nonl.txt":  "one\ntwo\nthree\nfour",
		"/workspace/mixed.txt": "one\r\ntwo\nthree\r\nfour",
	}
	forEachStore(t, files, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "sed -i s/one/ONE/ crlf.txt nonl.txt mixed.txt", func() {
			write(t, ws, "/workspace/crlf.txt", "one\r\ntwo\r\nthree\r\nFOUR\r\n")
			write(t, ws, "/workspace/nonl.txt", "one\ntwo\nthree\nFOUR")
			write(t, ws, "/workspace/mixed.txt", "one\r\ntwo\nTHREE\r\nfour")
		})
		if got.stderr != "" {
			t.Errorf("stderr %q", got.stderr)
		}
		wantFile(t, ws, "/workspace/crlf.txt", "ONE\r\ntwo\r\nthree\r\nFOUR\r\n")
		wantFile(t, ws, "/workspace/nonl.txt", "ONE\ntwo\nthree\nFOUR")
		wantFile(t, ws, "/workspace/mixed.txt", "ONE\r\ntwo\nTHREE\r\nfour")
		if s := m.LastSync(); s.Merged != 3 {
			t.Errorf("sync %+v", s)
		}
	})
}

// A command that changes nothing syncs nothing back: a file over
// MaxMergeBytes (no base copy to compare with) that it did not touch is
// neither written over the workspace's change of it meanwhile nor a
// conflict, though the mirror itself changed the copy's owner (given to
// the sandbox's user when the test runs as root). On the next command
// too, and the mirror's state then is as the last sync left it.
func TestMirrorUntouchedLargeFile(t *testing.T) {
	big := strings.Repeat("0123456789abcde\n", execbackend.MaxMergeBytes/16) + "last\n"
	forEachBackendMirror(t, map[string]string{"/workspace/big.txt": big, "/workspace/small.txt": "small\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		for i, content := range []string{"changed\n", "changed again\n"} {
			got := runAround(t, m, fmt.Sprintf("exec-%d", i+1), "cat small.txt", func() {
				write(t, ws, "/workspace/big.txt", content)
			})
			if got.stdout != "small\n" || got.stderr != "" || got.exit.Code != 0 {
				t.Errorf("run %d: stdout %q stderr %q exit %d", i+1, got.stdout, got.stderr, got.exit.Code)
			}
			wantFile(t, ws, "/workspace/big.txt", content)
			if s := m.LastSync(); s.CopiedOut != 0 || s.RemovedOut != 0 || s.Conflicts != 0 {
				t.Errorf("run %d synced back %+v", i+1, s)
			}
		}
		if _, err := ws.Lstat(t.Context(), "/.computer/conflicts"); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("conflicts were saved: %v", err)
		}
	})
}

// A file over MaxMergeBytes has no base copy: the command's change of it
// is written when the workspace did not change it, and is a conflict
// when it did.
func TestMirrorLargeFile(t *testing.T) {
	big := strings.Repeat("0123456789abcde\n", execbackend.MaxMergeBytes/16) + "last\n"
	ws := memWorkspace(t, map[string]string{"/workspace/big.txt": big, "/workspace/big2.txt": big})
	m := newMirror(t, ws, t.TempDir())
	got := runAround(t, m, "exec-1", "echo more >> big.txt; echo more >> big2.txt", func() {
		write(t, ws, "/workspace/big2.txt", "small now\n")
	})
	if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/big2.txt", "/.computer/conflicts/exec-1/big2.txt"))); got.stderr != want {
		t.Errorf("stderr %q, want %q", got.stderr, want)
	}
	if got := readWS(t, ws, "/workspace/big.txt"); got != big+"more\n" {
		t.Errorf("big.txt: %d bytes, want %d", len(got), len(big)+5)
	}
	wantFile(t, ws, "/workspace/big2.txt", "small now\n")
	if got := readWS(t, ws, "/.computer/conflicts/exec-1/big2.txt"); got != big+"more\n" {
		t.Errorf("the command's big2.txt: %d bytes, want %d", len(got), len(big)+5)
	}
}

// A directory the command removed keeps what the workspace put in it
// meanwhile; what the command removed from it goes.
func TestMirrorRemovedDirectoryKeepsNewContent(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/d/old.txt": "old\n", "/workspace/d/e/deep.txt": "deep\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		got := runAround(t, m, "exec-1", "rm -r d", func() {
			write(t, ws, "/workspace/d/new.txt", "new\n")
		})
		if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictNotDeleted("/workspace/d"))); got.stderr != want {
			t.Errorf("stderr %q, want %q", got.stderr, want)
		}
		wantFile(t, ws, "/workspace/d/new.txt", "new\n")
		for _, p := range []string{"/workspace/d/old.txt", "/workspace/d/e"} {
			if _, err := ws.Lstat(t.Context(), p); errno.CodeOf(err) != errno.ENOENT {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
}

// A link both re-pointed keeps the workspace's target; the command's
// link is saved.
func TestMirrorLinkConflict(t *testing.T) {
	forEachStore(t, map[string]string{"/workspace/a": "a", "/workspace/b": "b", "/workspace/c": "c"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		if err := ws.Symlink(t.Context(), "a", "/workspace/link"); err != nil {
			t.Fatal(err)
		}
		got := runAround(t, m, "exec-1", "ln -sfn b link", func() {
			if err := ws.Remove(t.Context(), "/workspace/link", vfs.RemoveOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := ws.Symlink(t.Context(), "c", "/workspace/link"); err != nil {
				t.Fatal(err)
			}
		})
		if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/link", "/.computer/conflicts/exec-1/link"))); got.stderr != want {
			t.Errorf("stderr %q, want %q", got.stderr, want)
		}
		for p, want := range map[string]string{"/workspace/link": "c", "/.computer/conflicts/exec-1/link": "b"} {
			if target, err := ws.Readlink(t.Context(), p); err != nil || target != want {
				t.Errorf("%s: %q %v, want %q", p, target, err, want)
			}
		}
	})
}

// The note names at most limits.conflictLines paths and counts the rest.
func TestMirrorConflictNoteIsBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files["/workspace/f"+string(rune('a'+i))] = "x\n"
	}
	ws := memWorkspace(t, files)
	m := newMirror(t, ws, t.TempDir())
	got := runAround(t, m, "exec-1", "rm f*", func() {
		for p := range files {
			write(t, ws, p, "y\n")
		}
	})
	var lines strings.Builder
	for i := range 10 {
		lines.WriteString(toolspec.MsgExecMirrorConflictNotDeleted("/workspace/f" + string(rune('a'+i))))
	}
	lines.WriteString(toolspec.MsgExecMirrorConflictMore(2))
	if want := noteAlone(toolspec.MsgExecMirrorConflicts(lines.String())); got.stderr != want {
		t.Errorf("stderr %q, want %q", got.stderr, want)
	}
	if s := m.LastSync(); s.Conflicts != 12 {
		t.Errorf("sync %+v", s)
	}
}

// Each file up to MaxMergeBytes has one base copy in the mirror, made
// when it is copied in, left alone while it does not change, and removed
// with it.
func TestMirrorBaseCopies(t *testing.T) {
	forEachBackend(t, testMirrorBaseCopies)
}

func testMirrorBaseCopies(t *testing.T, b testws.Backend) {
	big := strings.Repeat("x", execbackend.MaxMergeBytes+1)
	ws := memWorkspace(t, map[string]string{"/workspace/a.txt": "a\n", "/workspace/d/b.txt": "b\n", "/workspace/big": big})
	dir := t.TempDir()
	m := newBackendMirror(t, b, ws, dir)
	bases := func() []os.FileInfo {
		t.Helper()
		entries, err := os.ReadDir(filepath.Join(dir, "base"))
		if err != nil {
			t.Fatal(err)
		}
		var out []os.FileInfo
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fi)
		}
		return out
	}
	runToEnd(t, m, execbackend.Request{Command: "true"})
	first := bases()
	if len(first) != 2 {
		t.Fatalf("%d base copies, want 2 (a.txt, d/b.txt)", len(first))
	}
	runToEnd(t, m, execbackend.Request{Command: "true"})
	again := bases()
	if len(again) != 2 || !os.SameFile(first[0], again[0]) || !os.SameFile(first[1], again[1]) {
		t.Errorf("base copies of unchanged files were made again")
	}
	if err := ws.Remove(t.Context(), "/workspace/a.txt", vfs.RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	runToEnd(t, m, execbackend.Request{Command: "rm d/b.txt"})
	runToEnd(t, m, execbackend.Request{Command: "true"})
	if n := len(bases()); n != 0 {
		t.Errorf("%d base copies left of removed files", n)
	}
}

// racyStore changes a file (name, relative to the store) to content just
// before the sync's conditional write or removal of it (another writer
// between the sync's look at the revision and its change), or, with
// after, just after the write.
type racyStore struct {
	*memfs.FS
	name, content string
	after, raced  bool
}

func (s *racyStore) race(ctx context.Context, name string) {
	if name == s.name && !s.raced {
		s.raced = true
		_ = s.FS.WriteFile(ctx, name, strings.NewReader(s.content), 0o644)
	}
}

func (s *racyStore) WriteFileIf(ctx context.Context, name string, rev int64, r io.Reader, mode uint32) error {
	if s.after {
		defer s.race(ctx, name)
	} else {
		s.race(ctx, name)
	}
	return s.FS.WriteFileIf(ctx, name, rev, r, mode)
}

func (s *racyStore) RemoveIf(ctx context.Context, name string, rev int64) error {
	s.race(ctx, name)
	return s.FS.RemoveIf(ctx, name, rev)
}

// A change that lands between the sync's look at the file and its write
// is merged, not written over; one that lands before a removal keeps the
// file.
func TestMirrorRaceWithTheSync(t *testing.T) {
	forEachBackend(t, testMirrorRaceWithTheSync)
}

func testMirrorRaceWithTheSync(t *testing.T, b testws.Backend) {
	store := &racyStore{FS: memfs.New()}
	ws := vfs.New(store)
	write(t, ws, "/workspace/f.txt", "alpha\nbeta\n")
	write(t, ws, "/workspace/g.txt", "g\n")
	m := newBackendMirror(t, b, ws, t.TempDir())
	runToEnd(t, m, execbackend.Request{Command: "true"})

	store.name, store.content = "workspace/f.txt", "alpha\nBETA\n"
	if got := runToEnd(t, m, execbackend.Request{Command: "sed -i s/alpha/ALPHA/ f.txt"}); got.stderr != "" || !store.raced {
		t.Errorf("stderr %q, raced %v", got.stderr, store.raced)
	}
	wantFile(t, ws, "/workspace/f.txt", "ALPHA\nBETA\n")

	store.name, store.content, store.raced = "workspace/g.txt", "g, changed\n", false
	got := runToEnd(t, m, execbackend.Request{ID: "exec-2", Command: "rm g.txt"})
	if want := noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictNotDeleted("/workspace/g.txt"))); got.stderr != want || !store.raced {
		t.Errorf("stderr %q, want %q; raced %v", got.stderr, want, store.raced)
	}
	wantFile(t, ws, "/workspace/g.txt", "g, changed\n")

	// A change right after the sync's write is not taken for the write:
	// the next command sees it.
	store.name, store.content, store.raced, store.after = "workspace/f.txt", "after\n", false, true
	runToEnd(t, m, execbackend.Request{Command: "echo mine > f.txt"})
	if got := runToEnd(t, m, execbackend.Request{Command: "cat f.txt"}); got.stdout != "after\n" || !store.raced {
		t.Errorf("the next command sees %q; raced %v", got.stdout, store.raced)
	}
}

// On a store that does not number its changes (a host directory mounted
// in the workspace), the mirror syncs as before: changes, deletions of
// files and directories, modes; a concurrent change still merges.
func TestMirrorOnAStoreWithoutRevisions(t *testing.T) {
	forEachBackend(t, testMirrorOnAStoreWithoutRevisions)
}

func testMirrorOnAStoreWithoutRevisions(t *testing.T, b testws.Backend) {
	ws, _ := testws.Host(t, "")
	write(t, ws, "/workspace/f.txt", "alpha\nbeta\n")
	write(t, ws, "/workspace/gone.txt", "x\n")
	write(t, ws, "/workspace/d/e.txt", "e\n")
	write(t, ws, "/workspace/run.sh", "echo run\n")
	if info, err := ws.Lstat(t.Context(), "/workspace/f.txt"); err != nil || info.Rev != 0 {
		t.Fatalf("the store numbers its changes: %+v %v", info, err)
	}
	m := newBackendMirror(t, b, ws, t.TempDir())
	got := runAround(t, m, "exec-1", "sed -i s/alpha/ALPHA/ f.txt; rm gone.txt; rm -r d; chmod 755 run.sh; echo new > new.txt", func() {
		write(t, ws, "/workspace/f.txt", "alpha\nBETA\n")
	})
	if got.stderr != "" {
		t.Errorf("stderr %q", got.stderr)
	}
	wantFile(t, ws, "/workspace/f.txt", "ALPHA\nBETA\n")
	wantFile(t, ws, "/workspace/new.txt", "new\n")
	for _, p := range []string{"/workspace/gone.txt", "/workspace/d"} {
		if _, err := ws.Lstat(t.Context(), p); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("%s: %v", p, err)
		}
	}
	if info, err := ws.Lstat(t.Context(), "/workspace/run.sh"); err != nil || info.Mode != 0o755 {
		t.Errorf("run.sh: %+v %v", info, err)
	}
}

// noteAlone is a note of the mirror as it reads when the command wrote
// nothing on stderr: without the blank line that sets it off.
func noteAlone(note string) string { return strings.TrimLeft(note, "\n") }
