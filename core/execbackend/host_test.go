package execbackend_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// hang is how long a test waits for something that must happen at once
// before calling it a hang: generous, a guard and not a speed target.
const hang = 20 * time.Second

// host is the host backend, for the tests of what only it does.
var host = testws.HostBackend

// forEachBackend runs test on the host backend and in the sandbox.
var forEachBackend = testws.ForEachBackend

// newHost is execbackend.NewHost, failing the test on an error.
func newHost(t *testing.T, ws *vfs.Workspace, opts execbackend.HostOptions) *execbackend.Host {
	t.Helper()
	h, err := execbackend.NewHost(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// finished is everything a run reported.
type finished struct {
	stdout, stderr string
	exit           execbackend.Event
}

// runToEnd starts req and reads its events to the exit, failing the test
// when that takes longer than hang.
func runToEnd(t *testing.T, b execbackend.Backend, req execbackend.Request) finished {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	defer cancel()
	run, err := b.Start(ctx, req)
	if err != nil {
		t.Fatalf("Start(%q): %v", req.Command, err)
	}
	return drain(t, ctx, run, req.Command)
}

func TestHostExitStatusAndStreams(t *testing.T) {
	forEachBackend(t, testExitStatusAndStreams)
}

func testExitStatusAndStreams(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	cases := []struct {
		command        string
		stdout, stderr string
		code           int
	}{
		{"true", "", "", 0},
		{"exit 3", "", "", 3},
		{"echo out; echo err >&2; exit 1", "out\n", "err\n", 1},
		{"echo only-stderr >&2", "", "only-stderr\n", 0},
		{"printf 'no newline'", "no newline", "", 0},
		{"kill -9 $$", "", "", 128 + int(syscall.SIGKILL)},
		{"no-such-command-here", "", "", 127},
		{"[[ 1 == 1 ]] && echo bash", "bash\n", "", 0},
	}
	for _, c := range cases {
		got := runToEnd(t, h, execbackend.Request{Command: c.command})
		if got.stdout != c.stdout || got.exit.Code != c.code || got.exit.TimedOut {
			t.Errorf("%q: stdout %q exit %d (timed out %v), want %q exit %d", c.command, got.stdout, got.exit.Code, got.exit.TimedOut, c.stdout, c.code)
		}
		if c.code == 127 {
			if !strings.Contains(got.stderr, "no-such-command-here") {
				t.Errorf("%q: stderr %q does not name the command", c.command, got.stderr)
			}
		} else if got.stderr != c.stderr {
			t.Errorf("%q: stderr %q, want %q", c.command, got.stderr, c.stderr)
		}
	}
}

func TestHostEnvironment(t *testing.T) {
	forEachBackend(t, testEnvironment)
}

func testEnvironment(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	t.Setenv("AGENTTOOLS_TEST_SECRET", "must not leak")
	t.Setenv("LC_AGENTTOOLS_TEST", "prefix allowed")
	t.Setenv("GOPATH", "/host/go")
	t.Setenv("TMPDIR", os.TempDir())
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	show := `printf '%s|%s|%s|%s' "${AGENTTOOLS_TEST_SECRET-unset}" "${ONE_RUN-unset}" "${LC_AGENTTOOLS_TEST-unset}" "${PATH:+path}"`

	got := runToEnd(t, h, execbackend.Request{Command: show, Env: map[string]string{"ONE_RUN": "set for this run", "PATH": os.Getenv("PATH")}})
	if want := "unset|set for this run|prefix allowed|path"; got.stdout != want {
		t.Errorf("with env: %q, want %q", got.stdout, want)
	}
	// The override was for that run only.
	got = runToEnd(t, h, execbackend.Request{Command: show})
	if want := "unset|unset|prefix allowed|path"; got.stdout != want {
		t.Errorf("next run: %q, want %q", got.stdout, want)
	}
	// An override replaces an allowed variable rather than adding a twin.
	got = runToEnd(t, h, execbackend.Request{Command: `env | grep -c '^LC_AGENTTOOLS_TEST='; printf '%s' "$LC_AGENTTOOLS_TEST"`, Env: map[string]string{"LC_AGENTTOOLS_TEST": "override"}})
	if got.stdout != "1\noverride" {
		t.Errorf("override of an allowed variable: %q", got.stdout)
	}
	// The user's variables: the host's on the host; in the sandbox its
	// own, and none that names a host path.
	user := `printf '%s|%s|%s|%s|%s' "${HOME-unset}" "${USER-unset}" "${LOGNAME-unset}" "${GOPATH-unset}" "${TMPDIR-unset}"`
	want := strings.Join([]string{envOr("HOME"), envOr("USER"), envOr("LOGNAME"), "/host/go", os.TempDir()}, "|")
	if b.Sandbox {
		want = "/tmp|sandbox|sandbox|unset|unset"
	}
	if got := runToEnd(t, h, execbackend.Request{Command: user}); got.stdout != want {
		t.Errorf("the user's variables: %q, want %q", got.stdout, want)
	}
	// The call's env wins over what the backend sets.
	if got := runToEnd(t, h, execbackend.Request{Command: `printf %s "$HOME"`, Env: map[string]string{"HOME": "/workspace"}}); got.stdout != "/workspace" {
		t.Errorf("HOME from the call's env: %q", got.stdout)
	}
	// HostOptions.Env widens the allowlist, in the sandbox too.
	wide := b.NewHost(t, ws, execbackend.HostOptions{Env: []string{"AGENTTOOLS_TEST_*", "GOPATH"}})
	got = runToEnd(t, wide, execbackend.Request{Command: `printf '%s|%s' "$AGENTTOOLS_TEST_SECRET" "$GOPATH"`})
	if got.stdout != "must not leak|/host/go" {
		t.Errorf("allowlisted by HostOptions.Env: %q", got.stdout)
	}
}

// envOr is the variable name of this process, or "unset".
func envOr(name string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return "unset"
}

// The command runs in the host directory of its cwd; in the sandbox,
// where that directory is bound at the workspace's path, pwd prints the
// workspace path.
func TestHostWorkingDirectory(t *testing.T) {
	forEachBackend(t, testWorkingDirectory)
}

func testWorkingDirectory(t *testing.T, b testws.Backend) {
	ws, dir := b.Workspace(t)
	if err := os.MkdirAll(filepath.Join(dir, "src", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	b.Give(t, dir)
	if err := ws.Mkdir(t.Context(), "/scratch", vfs.MkdirOptions{}); err != nil {
		t.Fatal(err)
	}
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	seen := func(p string) string { return b.Path(dir, "/workspace", p) }
	for cwd, want := range map[string]string{
		"":                        seen(dir),
		"/workspace":              seen(dir),
		"/workspace/src/pkg":      seen(filepath.Join(dir, "src", "pkg")),
		"/workspace/src/../src/.": seen(filepath.Join(dir, "src")),
	} {
		got := runToEnd(t, h, execbackend.Request{Command: "pwd -P", Cwd: cwd})
		if got.stdout != want+"\n" {
			t.Errorf("cwd %q: pwd %q, want %q", cwd, got.stdout, want)
		}
	}
	// A backend rooted elsewhere in the mount uses that as its default.
	sub := b.NewHost(t, ws, execbackend.HostOptions{Dir: "/workspace/src"})
	if got, want := runToEnd(t, sub, execbackend.Request{Command: "pwd -P"}), b.Path(filepath.Join(dir, "src"), "/workspace/src", filepath.Join(dir, "src")); got.stdout != want+"\n" {
		t.Errorf("HostOptions.Dir: pwd %q, want %q", got.stdout, want)
	}
	if !strings.Contains(sub.Info().Description, "/workspace/src") {
		t.Errorf("description %q does not name its directory", sub.Info().Description)
	}

	for cwd, code := range map[string]errno.Code{
		"/workspace/missing": errno.ENOENT,
		"/scratch":           errno.EINVAL, // in memory: no host directory to run in
		"relative":           errno.EINVAL,
	} {
		_, err := h.Start(t.Context(), execbackend.Request{Command: "true", Cwd: cwd})
		var e *errno.Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("cwd %q: error %v, want %s", cwd, err, code)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Start(t.Context(), execbackend.Request{Command: "true", Cwd: "/workspace/file"}); err == nil || !strings.Contains(err.Error(), toolspec.MsgNotDirectory("/workspace/file")) {
		t.Errorf("cwd on a file: %v", err)
	}
}

// The run is over when the shell exits, though a background child still
// holds its output pipes; and the child does not outlive the run.
func TestHostBackgroundChildDoesNotHoldTheRun(t *testing.T) {
	forEachBackend(t, testBackgroundChild)
}

func testBackgroundChild(t *testing.T, b testws.Backend) {
	h, gone := fifoHost(t, b)
	got := runToEnd(t, h, execbackend.Request{Command: "exec 3>fifo; sleep 100 & sleep 100 & echo done"})
	if got.stdout != "done\n" || got.exit.Code != 0 {
		t.Errorf("stdout %q exit %d", got.stdout, got.exit.Code)
	}
	waitGone(t, gone, "a background child outlived the run")
}

// A child that made a session of its own (setsid) is killed with the
// run while its parent lives; in a cgroup, always.
func TestHostKillFindsNewSessions(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sessions are found through /proc")
	}
	forEachBackend(t, testKillFindsNewSessions)
}

func testKillFindsNewSessions(t *testing.T, b testws.Backend) {
	h, gone := fifoHost(t, b)
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	startAndKill(t, ctx, h, `exec 3>fifo; setsid sh -c 'echo started; exec sleep 100' & wait`)
	waitGone(t, gone, "a process in a session of its own survived Kill (confinement %v)", h.Confinement())
}

// startAndKill starts command, which prints "started\n" first, and kills
// it once it has.
func startAndKill(t *testing.T, ctx context.Context, h *execbackend.Host, command string) execbackend.Run {
	t.Helper()
	run, err := h.Start(ctx, execbackend.Request{Command: command})
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := run.Next(ctx); err != nil || string(ev.Data) != "started\n" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	if err := run.Kill(); err != nil {
		t.Fatal(err)
	}
	return run
}

// manualTimer is the clock of a host backend's timeouts in a test of one
// run: its timeout fires when the test calls what fire gives.
type manualTimer struct {
	fire    chan func()
	stopped chan struct{} // closed when the run stopped its timer
}

func manualTimeouts(h *execbackend.Host) *manualTimer {
	m := &manualTimer{fire: make(chan func(), 1), stopped: make(chan struct{})}
	execbackend.SetAfterFunc(h, func(_ time.Duration, fire func()) func() bool {
		m.fire <- fire
		var once sync.Once
		return func() bool { once.Do(func() { close(m.stopped) }); return true }
	})
	return m
}

// next returns what fires the timeout of the run started last.
func (m *manualTimer) next(t *testing.T) func() {
	t.Helper()
	select {
	case f := <-m.fire:
		return f
	case <-time.After(hang):
		t.Fatal("no timeout was started")
		return nil
	}
}

// readUntil reads events until one holds want on stdout, and returns
// what stdout held.
func readUntil(t *testing.T, ctx context.Context, run execbackend.Run, want string) string {
	t.Helper()
	var out string
	for !strings.Contains(out, want) {
		ev, err := run.Next(ctx)
		if err != nil || ev.Kind == execbackend.Exit {
			t.Fatalf("%q not printed: %+v, %v", want, ev, err)
		}
		if ev.Kind == execbackend.Stdout {
			out += string(ev.Data)
		}
	}
	return out
}

// holders opens a FIFO for reading and returns a channel closed when
// every process that opened it for writing is gone: the read end sees
// EOF only then, whoever reaps them. The FIFO is b's commands' to open.
func holders(t *testing.T, b testws.Backend, fifo string) <-chan struct{} {
	t.Helper()
	if err := testws.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	b.Give(t, fifo)
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		f, err := os.Open(fifo) // blocks until the command opens it
		if err != nil {
			return
		}
		defer f.Close()
		_, _ = io.Copy(io.Discard, f)
	}()
	return gone
}

// fifoHost is a backend b on a fresh directory that holds a FIFO "fifo"
// (see holders), and what holders returns for it.
func fifoHost(t *testing.T, b testws.Backend) (*execbackend.Host, <-chan struct{}) {
	t.Helper()
	ws, dir := b.Workspace(t)
	return b.NewHost(t, ws, execbackend.HostOptions{}), holders(t, b, filepath.Join(dir, "fifo"))
}

// waitGone waits for every holder of a FIFO to be gone (see holders),
// failing the test with the message format and args after hang.
func waitGone(t *testing.T, gone <-chan struct{}, format string, args ...any) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(hang):
		t.Fatalf(format, args...)
	}
}

func TestHostCancelKillsTheProcessTree(t *testing.T) {
	forEachBackend(t, testCancelKillsTheProcessTree)
}

func testCancelKillsTheProcessTree(t *testing.T, b testws.Backend) {
	h, gone := fifoHost(t, b)
	// Every process of the tree holds the FIFO open: the shell, sh, and
	// both sleeps.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	run, err := h.Start(ctx, execbackend.Request{Command: `exec 3>fifo; sh -c 'sleep 100 & sleep 100' & echo started`})
	if err != nil {
		t.Fatal(err)
	}
	guard, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	ev, err := run.Next(guard)
	if err != nil || ev.Kind != execbackend.Stdout || string(ev.Data) != "started\n" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	cancel()
	if _, err := run.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v", err)
	}
	waitGone(t, gone, "a process of the tree still holds the FIFO %v after the cancel", hang)
}

func TestHostKillKillsTheProcessTree(t *testing.T) {
	forEachBackend(t, testKillKillsTheProcessTree)
}

func testKillKillsTheProcessTree(t *testing.T, b testws.Backend) {
	h, gone := fifoHost(t, b)
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	run := startAndKill(t, ctx, h, `exec 3>fifo; sh -c 'sleep 100 & sleep 100' & echo started; wait`)
	// The kill makes the command print nothing (see
	// TestHostKillProvokesNoOutput): its exit comes next.
	ev, err := run.Next(ctx)
	if err != nil || ev.Kind != execbackend.Exit || ev.Code != 128+int(syscall.SIGKILL) {
		t.Errorf("after Kill: %+v, %v", ev, err)
	}
	waitGone(t, gone, "a process of the tree survived Kill")
}

// The timeout kills the whole tree. It fires once the tree is up: the
// test's clock, not the machine's speed, says when.
func TestHostTimeout(t *testing.T) {
	forEachBackend(t, testTimeout)
}

func testTimeout(t *testing.T, b testws.Backend) {
	ws, dir := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	timer := manualTimeouts(h)
	gone := holders(t, b, filepath.Join(dir, "fifo"))
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	run, err := h.Start(ctx, execbackend.Request{Command: `exec 3>fifo; sleep 100 & echo before; sleep 100`, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	fire := timer.next(t)
	stdout := readUntil(t, ctx, run, "before\n")
	fire()
	got := drain(t, ctx, run, "the timed-out command")
	if !got.exit.TimedOut || got.exit.Code != 128+int(syscall.SIGKILL) || stdout+got.stdout != "before\n" {
		t.Errorf("stdout %q exit %+v", stdout+got.stdout, got.exit)
	}
	waitGone(t, gone, "a process survived the timeout")
	// A command that ends in time is not marked.
	if got := runToEnd(t, b.NewHost(t, ws, execbackend.HostOptions{}), execbackend.Request{Command: "true", Timeout: hang}); got.exit.TimedOut {
		t.Errorf("a quick command is marked timed out")
	}
}

func TestNewHostShell(t *testing.T) {
	ws, _ := host.Workspace(t)
	sh, err := execbackend.NewHost(ws, execbackend.HostOptions{Shell: "/bin/sh", ID: "posix", Description: "plain sh"})
	if err != nil {
		t.Fatal(err)
	}
	if info := sh.Info(); info.ID != "posix" || info.Description != "plain sh" || info.Callable {
		t.Errorf("Info %+v", info)
	}
	if got := runToEnd(t, sh, execbackend.Request{Command: "echo $0"}); got.stdout != "/bin/sh\n" {
		t.Errorf("shell: %q", got.stdout)
	}
	// Without bash or sh on PATH there is no host backend.
	t.Setenv("PATH", t.TempDir())
	if _, err := execbackend.NewHost(ws, execbackend.HostOptions{}); err == nil {
		t.Errorf("NewHost found a shell on an empty PATH")
	}
}

// Each backend says what it is: its id, and the spec's description of
// it for its directory.
func TestHostInfo(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testws.Backend) {
		ws, dir := b.Workspace(t)
		if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		b.Give(t, dir)
		want := map[string]string{
			"":               toolspec.MsgExecHostBackend(toolspec.WorkspaceRoot),
			"/workspace/src": toolspec.MsgExecHostBackend("/workspace/src"),
		}
		if b.Sandbox {
			want = map[string]string{
				"":               toolspec.MsgExecSandboxBackend(toolspec.WorkspaceRoot),
				"/workspace/src": toolspec.MsgExecSandboxBackend("/workspace/src"),
			}
		}
		for d, desc := range want {
			if info := b.NewHost(t, ws, execbackend.HostOptions{Dir: d}).Info(); info.ID != b.Name || info.Description != desc || info.Callable {
				t.Errorf("Dir %q: Info %+v, want id %q description %q", d, info, b.Name, desc)
			}
		}
		if !b.Sandbox {
			return
		}
		networked := b.NewHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Network: true}})
		if info := networked.Info(); info.ID != b.Name || info.Description != toolspec.MsgExecSandboxBackendNetwork(toolspec.WorkspaceRoot) {
			t.Errorf("with the network: Info %+v", info)
		}
	})
}

// On the host, a longer linger waits for what a background child still
// writes after the command exited. In the sandbox the child dies with the
// command (its PID namespace goes): its late output never comes, and the
// run does not wait the linger for it.
func TestHostLinger(t *testing.T) {
	forEachBackend(t, testLinger)
}

func testLinger(t *testing.T, b testws.Backend) {
	ws, dir := b.Workspace(t)
	// The guard (hang) comes long before the linger: a run that waited
	// for it fails.
	h := b.NewHost(t, ws, execbackend.HostOptions{Linger: 100 * hang})
	gate := gateFIFO(t, b, filepath.Join(dir, "gate"))
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	run, err := h.Start(ctx, execbackend.Request{Command: `(read -r _ < gate; echo late) & echo early`})
	if err != nil {
		t.Fatal(err)
	}
	stdout := readUntil(t, ctx, run, "early\n")
	want := "early\nlate\n"
	if b.Sandbox {
		// The gate stays shut: only the child's death ends the run.
		want = "early\n"
	} else {
		gate()
	}
	if got := drain(t, ctx, run, "the late child"); stdout+got.stdout != want || got.exit.Code != 0 {
		t.Errorf("stdout %q exit %+v, want %q", stdout+got.stdout, got.exit, want)
	}
}

// gateFIFO makes a FIFO at path that b's commands may read and returns
// what writes a line into it, without waiting for a reader.
func gateFIFO(t *testing.T, b testws.Backend, path string) func() {
	t.Helper()
	if err := testws.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	b.Give(t, path)
	return func() {
		t.Helper()
		// Opened for reading and writing, the FIFO takes the line though
		// no reader has it open yet.
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := f.WriteString("go\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// Children that leave the command's process group (timeout does, and so
// does job control) are still killed.
func TestHostTimeoutKillsOtherProcessGroups(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sessions are found through /proc")
	}
	forEachBackend(t, testTimeoutKillsOtherProcessGroups)
}

func testTimeoutKillsOtherProcessGroups(t *testing.T, b testws.Backend) {
	ws, dir := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	timer := manualTimeouts(h)
	gone := holders(t, b, filepath.Join(dir, "fifo"))
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	run, err := h.Start(ctx, execbackend.Request{Command: `exec 3>fifo; timeout 100 sleep 100 & set -m; sleep 100 & echo started; wait`, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fire := timer.next(t)
	readUntil(t, ctx, run, "started\n")
	fire()
	if got := drain(t, ctx, run, "the timed-out command"); !got.exit.TimedOut {
		t.Errorf("exit %+v", got.exit)
	}
	waitGone(t, gone, "a process in another group survived the timeout")
}

// The command runs in a session of its own, with no controlling
// terminal: a read from /dev/tty fails at once instead of stopping. On
// the host the shell leads the session; in the sandbox the sandbox's
// first process (pid 1, bwrap's) does (--new-session).
func TestHostOwnSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	forEachBackend(t, testOwnSession)
}

func testOwnSession(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	got := runToEnd(t, h, execbackend.Request{Command: `read -r _ _ _ _ _ sid _ < /proc/$$/stat; [ "$sid" = $$ ] && echo leader; [ "$sid" = 1 ] && echo init; read x </dev/tty || echo no-tty`})
	want := "leader\nno-tty\n"
	if b.Sandbox {
		want = "init\nno-tty\n"
	}
	if got.stdout != want {
		t.Errorf("stdout %q stderr %q, want stdout %q", got.stdout, got.stderr, want)
	}
}

// A timeout that comes after the command exited kills nothing: on the
// host a background child goes on to the end of the run (in the sandbox
// it died with the command, see TestHostLinger), and the run is not
// marked timed out.
func TestHostTimeoutAfterExit(t *testing.T) {
	forEachBackend(t, testTimeoutAfterExit)
}

func testTimeoutAfterExit(t *testing.T, b testws.Backend) {
	ws, dir := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{Linger: 100 * hang})
	timer := manualTimeouts(h)
	gate := gateFIFO(t, b, filepath.Join(dir, "gate"))
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	run, err := h.Start(ctx, execbackend.Request{Command: `(read -r _ < gate; echo late) & echo done`, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fire := timer.next(t)
	select {
	case <-timer.stopped: // the shell has exited
	case <-time.After(hang):
		t.Fatal("the shell did not exit")
	}
	fire() // a timer that fired as the shell exited
	want := "done\n"
	if !b.Sandbox {
		gate()
		want += "late\n"
	}
	got := drain(t, ctx, run, "the late child")
	if got.exit.TimedOut || got.exit.Code != 0 || got.stdout != want {
		t.Errorf("stdout %q exit %+v, want %q", got.stdout, got.exit, want)
	}
}

// A command longer than one argument may be runs all the same.
func TestHostLongCommand(t *testing.T) {
	forEachBackend(t, testLongCommand)
}

func testLongCommand(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	long := "x='" + strings.Repeat("a", 300_000) + "'\necho ${#x}; echo \"$0\" | grep -c . ; declare -p __agenttools_command 2>/dev/null || echo unset"
	got := runToEnd(t, h, execbackend.Request{Command: long})
	if got.stdout != "300000\n1\nunset\n" || got.exit.Code != 0 {
		t.Errorf("stdout %q stderr %q exit %d", got.stdout, got.stderr, got.exit.Code)
	}
}

func TestHostRefusesBadEnvNames(t *testing.T) {
	forEachBackend(t, testRefusesBadEnvNames)
}

func testRefusesBadEnvNames(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	for _, name := range []string{"", "A=B", "NUL\x00"} {
		_, err := h.Start(t.Context(), execbackend.Request{Command: "true", Env: map[string]string{name: "x"}})
		if err == nil || err.Error() != toolspec.MsgExecBadEnvName(name) {
			t.Errorf("env name %q: %v", name, err)
		}
	}
}
