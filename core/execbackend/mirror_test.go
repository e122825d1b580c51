package execbackend_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// memWorkspace is a workspace that lives only in memory, with files.
func memWorkspace(t *testing.T, files map[string]string) *vfs.Workspace {
	t.Helper()
	ws := vfs.New(memfs.New())
	for p, content := range files {
		if err := ws.WriteFile(t.Context(), p, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// testMirror is a Mirror in a test, with a directory its commands see
// (in the sandbox too) for runAround's FIFOs.
type testMirror struct {
	*execbackend.Mirror
	b     testws.Backend
	gates string
	fifos int
}

// newMirror is a mirror on the host backend in dir.
func newMirror(t *testing.T, ws *vfs.Workspace, dir string) *testMirror {
	t.Helper()
	return newBackendMirror(t, host, ws, dir)
}

// newBackendMirror is a mirror on backend b in dir.
func newBackendMirror(t *testing.T, b testws.Backend, ws *vfs.Workspace, dir string) *testMirror {
	t.Helper()
	// Bound at its own path in the sandbox, where the directories above
	// it are as private as on the host: they must let its user in.
	gates := testws.PublicDir(t)
	b.Give(t, gates)
	opts := b.Options(execbackend.HostOptions{})
	if b.Sandbox {
		opts.Sandbox.ReadOnly = []string{gates}
	}
	m, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{HostOptions: opts, Mirror: dir})
	if err != nil {
		t.Fatal(err)
	}
	return &testMirror{Mirror: m, b: b, gates: gates}
}

// forEachBackendMirror runs test on a mirror in a fresh directory over a
// memfs workspace holding files, on each backend.
func forEachBackendMirror(t *testing.T, files map[string]string, test func(t *testing.T, ws *vfs.Workspace, m *testMirror)) {
	forEachBackend(t, func(t *testing.T, b testws.Backend) {
		ws := memWorkspace(t, files)
		test(t, ws, newBackendMirror(t, b, ws, t.TempDir()))
	})
}

func readWS(t *testing.T, ws *vfs.Workspace, p string) string {
	t.Helper()
	r, _, err := ws.Open(t.Context(), p, 0)
	if err != nil {
		t.Fatalf("open %s: %v", p, err)
	}
	defer r.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// A command on a workspace that is not on the host sees its files, and
// what it changes comes back: new, changed and deleted files, a new
// directory, a mode, a symbolic link.
func TestMirrorSyncsBothWays(t *testing.T) {
	forEachStore(t, map[string]string{
		"/workspace/a.txt":        "alpha\n",
		"/workspace/gone.txt":     "remove me\n",
		"/workspace/src/main.go":  "package main\n",
		"/workspace/run.sh":       "echo run\n",
		"/outside/not-synced.txt": "x",
	}, testMirrorSyncsBothWays)
}

func testMirrorSyncsBothWays(t *testing.T, ws *vfs.Workspace, m *testMirror) {
	desc := toolspec.MsgExecMirrorBackend(toolspec.WorkspaceRoot)
	if m.b.Sandbox {
		desc = toolspec.MsgExecSandboxBackend(toolspec.WorkspaceRoot)
	}
	if info := m.Info(); info.ID != m.b.Name || info.Description != desc {
		t.Errorf("Info %+v", info)
	}
	got := runToEnd(t, m, execbackend.Request{Command: `cat a.txt src/main.go; ls /outside 2>/dev/null; echo beta >> a.txt; printf new > b.txt; rm gone.txt; mkdir -p d/e && echo deep > d/e/f.txt; chmod 755 run.sh; ln -s a.txt link`})
	if got.exit.Code != 0 || got.stdout != "alpha\npackage main\n" {
		t.Fatalf("stdout %q stderr %q exit %d", got.stdout, got.stderr, got.exit.Code)
	}
	for p, want := range map[string]string{
		"/workspace/a.txt":     "alpha\nbeta\n",
		"/workspace/b.txt":     "new",
		"/workspace/d/e/f.txt": "deep\n",
	} {
		if got := readWS(t, ws, p); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	if _, err := ws.Lstat(t.Context(), "/workspace/gone.txt"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("gone.txt is still there: %v", err)
	}
	if info, err := ws.Lstat(t.Context(), "/workspace/run.sh"); err != nil || info.Mode != 0o755 {
		t.Errorf("run.sh: %+v %v", info, err)
	}
	if info, err := ws.Lstat(t.Context(), "/workspace/link"); err != nil || info.Type != vfs.TypeSymlink || info.Target != "a.txt" {
		t.Errorf("link: %+v %v", info, err)
	}
	if got := readWS(t, ws, "/outside/not-synced.txt"); got != "x" {
		t.Errorf("outside the mirrored directory: %q", got)
	}

	// A change made in the workspace between commands reaches the next.
	if err := ws.WriteFile(t.Context(), "/workspace/a.txt", []byte("gamma\n"), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ws.Remove(t.Context(), "/workspace/b.txt", vfs.RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	got = runToEnd(t, m, execbackend.Request{Command: `cat a.txt; ls b.txt 2>&1 >/dev/null | grep -c "No such"; ./run.sh`, Cwd: "/workspace"})
	if got.stdout != "gamma\n1\nrun\n" {
		t.Errorf("second run: stdout %q stderr %q", got.stdout, got.stderr)
	}
}

// The command runs in its cwd's copy: on the host in the mirror's tree,
// in the sandbox (where the tree is bound at /workspace) at the cwd's
// own path.
func TestMirrorWorkingDirectory(t *testing.T) {
	forEachBackend(t, testMirrorWorkingDirectory)
}

func testMirrorWorkingDirectory(t *testing.T, b testws.Backend) {
	ws := memWorkspace(t, map[string]string{"/workspace/sub/x": "", "/elsewhere/y": ""})
	dir := t.TempDir()
	m := newBackendMirror(t, b, ws, dir)
	got := runToEnd(t, m, execbackend.Request{Command: "pwd -P", Cwd: "/workspace/sub"})
	want, _ := filepath.EvalSymlinks(filepath.Join(dir, "tree", "sub"))
	if b.Sandbox {
		want = "/workspace/sub"
	}
	if got.stdout != want+"\n" {
		t.Errorf("pwd %q, want %q", got.stdout, want)
	}
	for cwd, code := range map[string]errno.Code{"/elsewhere": errno.EINVAL, "/workspace/missing": errno.ENOENT, "/workspace/sub/x": errno.ENOTDIR} {
		if _, err := m.Start(t.Context(), execbackend.Request{Command: "true", Cwd: cwd}); errno.CodeOf(err) != code {
			t.Errorf("cwd %s: %v, want %s", cwd, err, code)
		}
	}
	// A refused start does not hold the mirror: the next command runs.
	if got := runToEnd(t, m, execbackend.Request{Command: "echo ok"}); got.stdout != "ok\n" {
		t.Errorf("after refused starts: %q", got.stdout)
	}
}

// The mirror's record survives the process: a new Mirror on the same
// directory (the next agenttools call) finds the tree in place.
func TestMirrorStateSurvives(t *testing.T) {
	forEachBackend(t, testMirrorStateSurvives)
}

func testMirrorStateSurvives(t *testing.T, b testws.Backend) {
	ws := memWorkspace(t, map[string]string{"/workspace/dir/a": "a", "/workspace/dir/b": "b"})
	dir := t.TempDir()
	runToEnd(t, newBackendMirror(t, b, ws, dir), execbackend.Request{Command: "true"})
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	m := newBackendMirror(t, b, ws, dir)
	got := runToEnd(t, m, execbackend.Request{Command: "cat dir/a dir/b"})
	if got.stdout != "ab" {
		t.Errorf("stdout %q", got.stdout)
	}
	// memfs numbers its changes: nothing changed, so nothing is copied.
	if s := m.LastSync(); s.CopiedIn != 0 || s.CopiedOut != 0 || s.RemovedIn != 0 || s.RemovedOut != 0 {
		t.Errorf("sync %+v", s)
	}
}

// On a store that numbers its changes (sqlitefs), a command on an
// unchanged tree copies nothing, and a change copies only itself.
func TestMirrorCopiesOnlyChanges(t *testing.T) {
	forEachBackend(t, testMirrorCopiesOnlyChanges)
}

func testMirrorCopiesOnlyChanges(t *testing.T, b testws.Backend) {
	db, err := sqlitefs.Open(filepath.Join(t.TempDir(), "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ws := vfs.New(db)
	for i := range 100 {
		p := fmt.Sprintf("/workspace/pkg%d/file%d.go", i%10, i)
		if err := ws.WriteFile(t.Context(), p, []byte("package p\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	got := runToEnd(t, newBackendMirror(t, b, ws, dir), execbackend.Request{Command: "find . -name '*.go' | wc -l"})
	if strings.TrimSpace(got.stdout) != "100" {
		t.Fatalf("the command saw %q files", got.stdout)
	}
	// A new Mirror on the same directory: the next process.
	m := newBackendMirror(t, b, ws, dir)
	runToEnd(t, m, execbackend.Request{Command: "true"})
	if s := m.LastSync(); s != (execbackend.SyncStats{}) {
		t.Errorf("a command on an unchanged tree synced %+v", s)
	}
	if err := ws.WriteFile(t.Context(), "/workspace/pkg3/file3.go", []byte("package changed\n"), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got = runToEnd(t, m, execbackend.Request{Command: "cat pkg3/file3.go; echo x > pkg3/new.txt"})
	if got.stdout != "package changed\n" {
		t.Errorf("stdout %q", got.stdout)
	}
	if s := m.LastSync(); s.CopiedIn != 1 || s.RemovedIn != 0 || s.RemovedOut != 0 || s.CopiedOut < 1 || s.CopiedOut > 2 {
		t.Errorf("after one change and one new file: %+v", s)
	}
	if got := readWS(t, ws, "/workspace/pkg3/new.txt"); got != "x\n" {
		t.Errorf("new.txt: %q", got)
	}
}

// A cancelled command's changes are dropped: the next command sees the
// workspace, not what the killed one left in the copy.
func TestMirrorDropsACancelledCommand(t *testing.T) {
	forEachBackendMirror(t, map[string]string{"/workspace/old.txt": "old\n"}, testMirrorDropsACancelledCommand)
}

func testMirrorDropsACancelledCommand(t *testing.T, ws *vfs.Workspace, m *testMirror) {
	ctx, cancel := context.WithCancel(t.Context())
	run, err := m.Start(ctx, execbackend.Request{Command: "echo new > created.txt; rm old.txt; echo started; sleep 100"})
	if err != nil {
		t.Fatal(err)
	}
	guard, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	if ev, err := run.Next(guard); err != nil || string(ev.Data) != "started\n" {
		t.Fatalf("first event %+v %v", ev, err)
	}
	cancel()
	if _, err := run.Next(ctx); err == nil {
		t.Fatal("Next after cancel succeeded")
	}
	got := runToEnd(t, m, execbackend.Request{Command: "ls"})
	if got.stdout != "old.txt\n" {
		t.Errorf("the next command sees %q", got.stdout)
	}
	if _, err := ws.Lstat(t.Context(), "/workspace/created.txt"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("the cancelled command's file reached the workspace: %v", err)
	}
}

// A change that puts the modification time back is still seen.
func TestMirrorSeesAChangeThatKeepsTheTime(t *testing.T) {
	forEachBackendMirror(t, map[string]string{"/workspace/f": "AAAA\n"}, testMirrorSeesAChangeThatKeepsTheTime)
}

func testMirrorSeesAChangeThatKeepsTheTime(t *testing.T, ws *vfs.Workspace, m *testMirror) {
	runToEnd(t, m, execbackend.Request{Command: "true"})
	runToEnd(t, m, execbackend.Request{Command: `t=$(stat -c %y f); echo BBBB > f; touch -d "$t" f`})
	if got := readWS(t, ws, "/workspace/f"); got != "BBBB\n" {
		t.Errorf("f is %q", got)
	}
}

// A node the host cannot hold (a name longer than 255 bytes) is passed
// over with a note; the command runs with the rest.
func TestMirrorPassesOverWhatTheHostCannotHold(t *testing.T) {
	long := strings.Repeat("n", 300)
	forEachBackendMirror(t, map[string]string{"/workspace/" + long: "x", "/workspace/ok.txt": "ok\n"}, func(t *testing.T, ws *vfs.Workspace, m *testMirror) {
		testMirrorPassesOver(t, ws, m, long)
	})
}

func testMirrorPassesOver(t *testing.T, ws *vfs.Workspace, m *testMirror, long string) {
	got := runToEnd(t, m, execbackend.Request{Command: "cat ok.txt; echo done > out.txt"})
	if got.exit.Code != 0 || got.stdout != "ok\n" || !strings.HasPrefix(got.stderr, "[Some of the workspace could not be copied") {
		t.Errorf("stdout %q stderr %q exit %d", got.stdout, got.stderr, got.exit.Code)
	}
	// The sync back has nothing to say of a node that never came in.
	for range 2 {
		if strings.Contains(got.stderr, "copied back") {
			t.Errorf("a note on the sync back: %q", got.stderr)
		}
		got = runToEnd(t, m, execbackend.Request{Command: "true"})
	}
	if got := readWS(t, ws, "/workspace/out.txt"); got != "done\n" {
		t.Errorf("out.txt %q", got)
	}
	if got := readWS(t, ws, "/workspace/"+long); got != "x" {
		t.Errorf("the long-named file changed: %q", got)
	}
}

// A read-only directory in the copy does not stop the next sync.
func TestMirrorReadOnlyDirectory(t *testing.T) {
	forEachBackendMirror(t, map[string]string{"/workspace/keep": ""}, testMirrorReadOnlyDirectory)
}

func testMirrorReadOnlyDirectory(t *testing.T, ws *vfs.Workspace, m *testMirror) {
	runToEnd(t, m, execbackend.Request{Command: "mkdir ro && echo 1 > ro/f && chmod 555 ro"})
	if err := ws.WriteFile(t.Context(), "/workspace/ro/f", []byte("2\n"), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got := runToEnd(t, m, execbackend.Request{Command: "cat ro/f; stat -c %a ro"})
	if got.stdout != "2\n555\n" || got.stderr != "" {
		t.Errorf("stdout %q stderr %q", got.stdout, got.stderr)
	}
	if info, err := ws.Lstat(t.Context(), "/workspace/ro"); err != nil || info.Mode != 0o555 {
		t.Errorf("ro: %+v %v", info, err)
	}
	if err := ws.Remove(t.Context(), "/workspace/ro", vfs.RemoveOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if got := runToEnd(t, m, execbackend.Request{Command: "ls"}); got.stdout != "keep\n" || got.stderr != "" {
		t.Errorf("after removing ro: %q %q", got.stdout, got.stderr)
	}
}

// A command that puts a link where the copy was cannot make the next
// sync write outside the mirror. (On the host backend only: in the
// sandbox the copy's parent is not there.)
func TestMirrorTreeReplacedByALink(t *testing.T) {
	ws := memWorkspace(t, map[string]string{"/workspace/a": "workspace\n"})
	dir := t.TempDir()
	victim := t.TempDir()
	if err := os.WriteFile(filepath.Join(victim, "a"), []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newMirror(t, ws, dir)
	// The command removes its whole copy (so the workspace loses a), and
	// leaves a link to another directory in its place.
	runToEnd(t, m, execbackend.Request{Command: "cd .. && rm -rf tree && ln -s " + victim + " tree"})
	if err := ws.WriteFile(t.Context(), "/workspace/b", []byte("b\n"), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got := runToEnd(t, m, execbackend.Request{Command: "ls; pwd -P"})
	if data, _ := os.ReadFile(filepath.Join(victim, "a")); string(data) != "victim\n" {
		t.Errorf("the sync wrote outside the mirror: %q", data)
	}
	want := "b\n" + filepath.Join(dir, "tree") + "\n"
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		want = "b\n" + filepath.Join(resolved, "tree") + "\n"
	}
	if got.stdout != want || got.stderr != "" {
		t.Errorf("stdout %q stderr %q, want %q", got.stdout, got.stderr, want)
	}
	if got := readWS(t, ws, "/workspace/b"); got != "b\n" {
		t.Errorf("b: %q", got)
	}
}

// A file the command leaves unreadable is named in a note; the rest of
// what it did (a deletion, a new file) is synced all the same.
func TestMirrorUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	forEachBackendMirror(t, map[string]string{"/workspace/a": "a\n"}, testMirrorUnreadableFile)
}

func testMirrorUnreadableFile(t *testing.T, ws *vfs.Workspace, m *testMirror) {
	got := runToEnd(t, m, execbackend.Request{Command: "echo s > s; chmod 000 s; rm a; echo new > b"})
	if got.exit.Code != 0 || !strings.Contains(got.stderr, "could not all be copied back") {
		t.Errorf("stderr %q exit %d", got.stderr, got.exit.Code)
	}
	if _, err := ws.Lstat(t.Context(), "/workspace/a"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("a was not removed: %v", err)
	}
	if got := readWS(t, ws, "/workspace/b"); got != "new\n" {
		t.Errorf("b: %q", got)
	}
}
