//go:build unix

package sqlitefs_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// roHelper is a running readerHelper.
type roHelper struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

// startReader starts readerHelper on path with id, as the command prep
// makes of the test binary's command (nil: as is).
func startReader(t *testing.T, path, id string, prep func(*exec.Cmd) *exec.Cmd) *roHelper {
	t.Helper()
	// Not helperCmd: t.Context ends before the cleanup that waits.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=reader", helperDB+"="+path, helperID+"="+id)
	if prep != nil {
		cmd = prep(cmd)
	}
	h := &roHelper{cmd: cmd}
	var err error
	if h.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h.out = bufio.NewReader(stdout)
	cmd.Stderr = &h.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("reader helper: %v\n%s", err, h.stderr.String())
		}
	})
	return h
}

// ask sends one line and returns the answer, without its newline.
func (h *roHelper) ask(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, h.stderr.String())
	}
	answer, err := h.out.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, h.stderr.String())
	}
	return strings.TrimSuffix(answer, "\n")
}

// asNobody returns a prep that runs a copy of the test binary (in a
// directory every user can read) as user nobody. It skips the test
// unless this process is root.
func asNobody(t *testing.T) func(*exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running a helper as another user (nobody) needs root")
	}
	bin := testws.PublicCopy(t, os.Args[0])
	return func(cmd *exec.Cmd) *exec.Cmd {
		cmd.Path, cmd.Args[0] = bin, bin
		cmd.Dir = "/"
		testws.AsUser(testws.Nobody)(cmd)
		return cmd
	}
}

// sharedDB makes a database other users can read and not write, holding
// f = "v1", closed.
func sharedDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(testws.PublicDir(t), "ws.db")
	s, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, "f", []byte("v1"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := sidecars(path); len(got) > 0 {
		t.Fatalf("a closed database has %q beside it", got)
	}
	return path
}

// roAnswer is the helper's answer to a change of a read-only database.
func roAnswer(path, reason string) string {
	return fmt.Sprintf("err EROFS %q", toolspec.MsgDatabaseReadOnly(path, reason))
}

// TestReadOnlyOtherUser: a database a user can read and not write (nor
// its directory) was refused to that user ("attempt to write a readonly
// database"), even for reading. Now it opens read-only: reads work,
// changes fail with EROFS saying why; a writer's later commits are seen,
// whether the writer still has the database open or closed it; and the
// reader creates no file.
func TestReadOnlyOtherUser(t *testing.T) {
	prep := asNobody(t)
	path := sharedDB(t)
	h := startReader(t, path, "", prep)
	if got := h.ask(t, "info"); got != "readonly true" {
		t.Fatalf("info: %s", got)
	}
	if got := h.ask(t, "read f"); got != `ok "v1"` {
		t.Errorf("read f: %s", got)
	}
	for _, change := range []string{"write g", "mkdir d"} {
		if got, want := h.ask(t, change), roAnswer(path, toolspec.MsgDatabaseNotWritable); got != want {
			t.Errorf("%s: %s, want %s", change, got, want)
		}
	}
	if got := sidecars(path); len(got) > 0 {
		t.Errorf("the reader made %q", got)
	}

	// A writer comes and goes while the reader reads the file alone.
	w, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, w, "f", []byte("v2"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !slices.Contains(sidecars(path), "ws.db-wal") {
		t.Error("the writer folded its WAL into the file the reader reads immutable")
	}
	if got := h.ask(t, "read f"); got != `ok "v2"` {
		t.Errorf("read f after a writer came and went: %s", got)
	}

	// A writer has it open: a reader started now, and the one reading
	// the file alone, read through the writer's shared memory.
	w, err = sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, w, "f", []byte("v3"))
	h2 := startReader(t, path, "", prep)
	for i, h := range []*roHelper{h, h2} {
		if got := h.ask(t, "read f"); got != `ok "v3"` {
			t.Errorf("reader %d: read f while a writer has it open: %s", i, got)
		}
	}
	write(t, w, "g", []byte("new"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := h.ask(t, "ls "); got != "ok f,g,workspace" {
		t.Errorf("ls after the writer closed: %s", got)
	}
	w, err = sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, w, "f", []byte("v4"))
	w.Close()
	if got := h.ask(t, "read f"); got != `ok "v4"` {
		t.Errorf("read f after another writer came and went: %s", got)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Sys().(*syscall.Stat_t).Uid == testws.Nobody {
			t.Errorf("the reader made %s", e.Name())
		}
	}
}

// TestReadOnlyLogWithoutSharedMemory: a -wal file and no -shm file
// beside a database in a directory the user cannot write: SQLite cannot
// read the log without creating the -shm, so Open says so and how to fix
// it, and creates nothing.
func TestReadOnlyLogWithoutSharedMemory(t *testing.T) {
	prep := asNobody(t)
	path := sharedDB(t)
	writeFile(t, path+"-wal", nil)
	got := startReader(t, path, "", prep).ask(t, "info")
	if !strings.HasPrefix(got, "open-err ") || !strings.Contains(got, "ws.db-wal but no ws.db-shm") || !strings.Contains(got, "open it once as a user who can write "+filepath.Dir(path)) {
		t.Errorf("Open: %s", got)
	}
	if got := sidecars(path); len(got) != 1 {
		t.Errorf("beside the database: %q", got)
	}
}

// TestReadOnlyCannotCreate: a database that does not exist, in a
// directory the user cannot write, is not created, and Open says why.
func TestReadOnlyCannotCreate(t *testing.T) {
	prep := asNobody(t)
	path := filepath.Join(testws.PublicDir(t), "new.db")
	got := startReader(t, path, "", prep).ask(t, "info")
	if !strings.HasPrefix(got, "open-err ") || !strings.Contains(got, "this user may not create files in "+filepath.Dir(path)) {
		t.Errorf("Open: %s", got)
	}
}

// unshareMount returns a prep that runs the helper in a mount namespace
// of its own where dir is bound read-only onto itself, or skips the test
// when this system allows no such namespace.
func unshareMount(t *testing.T, dir string) func(*exec.Cmd) *exec.Cmd {
	t.Helper()
	args := []string{"-m", "--propagation", "private"}
	if os.Geteuid() != 0 {
		args = append([]string{"-r"}, args...)
	}
	if out, err := exec.Command("unshare", append(args, "true")...).CombinedOutput(); err != nil {
		t.Skipf("no mount namespace (unshare %s): %v %s", strings.Join(args, " "), err, out)
	}
	return func(cmd *exec.Cmd) *exec.Cmd {
		script := `mount --bind -o ro "$1" "$1" && shift && exec "$@"`
		all := append(append(args, "sh", "-c", script, "sh", dir), cmd.Args...)
		c := exec.Command("unshare", all...)
		c.Env = cmd.Env
		return c
	}
}

// TestReadOnlyMount: a database on a read-only mount (the caller may
// write the file otherwise: root) was refused ("unable to open database
// file"). Now it is read, and changes fail saying it is on a read-only
// mount; a database that does not exist there is not created.
func TestReadOnlyMount(t *testing.T) {
	path := sharedDB(t)
	prep := unshareMount(t, filepath.Dir(path))
	h := startReader(t, path, "", prep)
	if got := h.ask(t, "info"); got != "readonly true" {
		t.Fatalf("info: %s", got)
	}
	if got := h.ask(t, "read f"); got != `ok "v1"` {
		t.Errorf("read f: %s", got)
	}
	if got, want := h.ask(t, "write g"), roAnswer(path, toolspec.MsgDatabaseMountReadOnly); got != want {
		t.Errorf("write g: %s, want %s", got, want)
	}
	missing := filepath.Join(filepath.Dir(path), "new.db")
	got := startReader(t, missing, "", prep).ask(t, "info")
	if !strings.HasPrefix(got, "open-err ") || !strings.Contains(got, "is on a read-only mount") {
		t.Errorf("Open of a missing database on a read-only mount: %s", got)
	}
	if got := sidecars(path); len(got) > 0 {
		t.Errorf("%q beside the database", got)
	}
}

// TestReadOnlyRequested: ReadOnly opens a database this process could
// write read-only: it reads, refuses every change (EROFS, saying it was
// asked for), and neither changes the file nor creates one beside it. A
// database that does not exist, or an empty file, is not made one.
func TestReadOnlyRequested(t *testing.T) {
	path := workspaceDB(t)
	before := readFile(t, path)
	s, err := sqlitefs.Open(path, sqlitefs.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	if !s.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	if got := read(t, s, "f", 0); !bytes.Equal(got, pattern(1, 1<<20)) {
		t.Error("f reads wrong")
	}
	ctx := t.Context()
	want := toolspec.MsgDatabaseReadOnly(path, toolspec.MsgDatabaseReadOnlyRequested)
	for op, err := range map[string]error{
		"WriteFile": s.WriteFile(ctx, "g", strings.NewReader("g"), 0o644),
		"Create":    s.Create(ctx, "g", 0o644),
		"Mkdir":     s.Mkdir(ctx, "d", 0o755),
		"Symlink":   s.Symlink(ctx, "f", "l"),
		"Remove":    s.Remove(ctx, "f"),
		"RemoveAll": s.RemoveAll(ctx, "f"),
		"Chmod":     s.Chmod(ctx, "f", 0o600),
		"Update":    s.Update(ctx, "f", 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) { return nil, nil }),
	} {
		if errno.CodeOf(err) != errno.EROFS || err.Error() != want {
			t.Errorf("%s: %v, want EROFS %q", op, err, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("the file changed")
	}
	if got := sidecars(path); len(got) > 0 {
		t.Errorf("%q beside the database", got)
	}

	missing := filepath.Join(t.TempDir(), "missing.db")
	if _, err := sqlitefs.Open(missing, sqlitefs.ReadOnly()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing database read-only: %v, want ErrNotExist", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	writeFile(t, empty, nil)
	if _, err := sqlitefs.Open(empty, sqlitefs.ReadOnly()); err == nil {
		t.Error("Open of an empty file read-only succeeded")
	}
	for _, p := range []string{missing, empty} {
		if got := sidecars(p); len(got) > 0 {
			t.Errorf("%q beside %s", got, p)
		}
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file: %v %v", fi, err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the missing database was created: %v", err)
	}
}

// TestReadOnlyWriterComesAndGoes: a read-only FS that reads the file
// alone (immutable, no writer had it open) sees what a writer commits
// later, whether the writer still has the database open or closed it,
// with SQLite's shared lock held (the writer then leaves its WAL) and
// without it (the writer folds its WAL into the file and deletes it,
// which changes the file).
func TestReadOnlyWriterComesAndGoes(t *testing.T) {
	for _, lock := range []bool{true, false} {
		t.Run(fmt.Sprintf("lock=%v", lock), func(t *testing.T) {
			if !lock {
				sqlitefs.NoSharedLock(t)
			}
			path := workspaceDB(t)
			s := reopen(t, path, sqlitefs.ReadOnly())
			lstat(t, s, "f")
			for i, keepOpen := range []bool{false, true, false} {
				w, err := sqlitefs.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("new%d", i)
				data := pattern(uint64(10+i), 100_000) // grows the file
				write(t, w, name, data)
				if !keepOpen {
					w.Close()
				}
				if wal := slices.Contains(sidecars(path), filepath.Base(path)+"-wal"); i == 0 && runtime.GOOS == "linux" && wal != lock {
					t.Errorf("after the first writer closed, a -wal file: %v", wal)
				}
				if got := read(t, s, name, 0); !bytes.Equal(got, data) {
					t.Errorf("%s (writer open: %v) reads wrong", name, keepOpen)
				}
				if got := read(t, s, "f", 0); !bytes.Equal(got, pattern(1, 1<<20)) {
					t.Error("f reads wrong")
				}
				if keepOpen {
					w.Close()
				}
			}
		})
	}
}

// TestReadOnlyConcurrent: readers of a read-only FS, while writers come
// and go, read one whole version of a file or fail saying it changed;
// never damage, never a mix (run with -race: the pool is replaced under
// them).
func TestReadOnlyConcurrent(t *testing.T) {
	for _, lock := range []bool{true, false} {
		t.Run(fmt.Sprintf("lock=%v", lock), func(t *testing.T) {
			if !lock {
				sqlitefs.NoSharedLock(t)
			}
			const versions = 6
			data := func(v int) []byte { return pattern(uint64(20+v), 150_000+v*70_000) }
			path := filepath.Join(t.TempDir(), "ws.db")
			w := reopen(t, path)
			write(t, w, "f", data(0))
			w.Close()
			s := reopen(t, path, sqlitefs.ReadOnly())
			errs := make(chan error, 4)
			stop := make(chan struct{})
			for range 4 {
				go func() {
					var err error
					defer func() { errs <- err }()
					for {
						select {
						case <-stop:
							return
						default:
						}
						r, oerr := s.Open(t.Context(), "f", 0)
						if oerr != nil {
							err = oerr
							return
						}
						got, rerr := io.ReadAll(r)
						r.Close()
						if rerr != nil {
							if errors.Is(rerr, sqlitefs.ErrCorrupt) || !strings.Contains(rerr.Error(), "changed") {
								err = rerr
								return
							}
							continue
						}
						found := false
						for v := range versions {
							found = found || bytes.Equal(got, data(v))
						}
						if !found {
							err = fmt.Errorf("read %d bytes of no version", len(got))
							return
						}
					}
				}()
			}
			for v := 1; v < versions; v++ {
				w, err := sqlitefs.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				write(t, w, "f", data(v))
				w.Close()
			}
			close(stop)
			for range 4 {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			if got := read(t, s, "f", 0); !bytes.Equal(got, data(versions-1)) {
				t.Error("the last version does not read back")
			}
		})
	}
}
