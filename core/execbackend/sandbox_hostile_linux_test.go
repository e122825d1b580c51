package execbackend_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

// Probes a malicious command would run, each tried on the plain host
// backend first (where it reaches what it aims at, so the probe works)
// and then in the sandbox (where it must not).

// TestSandboxKeyringUnreachable: the kernel keeps keyrings outside the
// namespaces bwrap makes. A command that inherits the server's session
// keyring possesses its keys and may read them; one that runs as 65534
// (root mode) shares that user's keyring with every other sandbox and
// every other process of 65534 on the host.
func TestSandboxKeyringUnreachable(t *testing.T) {
	ws, _ := testws.SandboxHost(t)
	// A session keyring is a thread's credential: the key goes into a new
	// one of this thread, which the processes this goroutine starts
	// inherit. The thread is not given back (no UnlockOSThread): it ends
	// with the test, its keyring with it.
	runtime.LockOSThread()
	if _, err := unix.KeyctlJoinSessionKeyring("agenttools-hostile-test"); err != nil {
		t.Skipf("no session keyring can be made here: %v", err)
	}
	const secret = "hostile-keyring-secret"
	id, err := unix.AddKey("user", "agenttools-hostile", []byte(secret), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Skipf("no key can be added here: %v", err)
	}
	// perl (in /usr, so in the sandbox too) makes the system calls.
	read := fmt.Sprintf(`perl -e '$b = "\0" x 64; $n = syscall(%d, %d, %d, $b, 64); print $n > 0 ? substr($b, 0, $n) : "refused: $!"'`,
		unix.SYS_KEYCTL, unix.KEYCTL_READ, id)
	addTo := func(ring int) string {
		return fmt.Sprintf(`perl -e 'my ($t, $d, $p) = ("user", "agenttools-hostile-added", "x"); print syscall(%d, $t, $d, $p, 1, %d) > 0 ? "added" : "refused: $!"'`,
			unix.SYS_ADD_KEY, ring)
	}

	host := newHost(t, ws, execbackend.HostOptions{})
	if got := runToEnd(t, host, execbackend.Request{Command: read}); got.stdout != secret {
		t.Fatalf("control on the host backend: the probe read %q (stderr %q), want the key %q", got.stdout, got.stderr, secret)
	}
	if got := runToEnd(t, host, execbackend.Request{Command: addTo(unix.KEY_SPEC_SESSION_KEYRING)}); got.stdout != "added" {
		t.Fatalf("control on the host backend: add_key said %q (stderr %q), want added", got.stdout, got.stderr)
	}

	sb := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
	if got := runToEnd(t, sb, execbackend.Request{Command: read}); strings.Contains(got.stdout, secret) || !strings.HasPrefix(got.stdout, "refused") {
		t.Errorf("in the sandbox the command read the server's session key: stdout %q, stderr %q", got.stdout, got.stderr)
	}
	for _, ring := range []int{unix.KEY_SPEC_SESSION_KEYRING, unix.KEY_SPEC_USER_KEYRING} {
		if got := runToEnd(t, sb, execbackend.Request{Command: addTo(ring)}); !strings.HasPrefix(got.stdout, "refused") {
			t.Errorf("in the sandbox add_key to keyring %d said %q (stderr %q), want refused", ring, got.stdout, got.stderr)
		}
	}
}

// TestSandboxInheritedDescriptorsClosed: a descriptor this process
// inherited without close-on-exec (from the agent that started it: a
// socket, a pipe) is not handed to the command.
func TestSandboxInheritedDescriptorsClosed(t *testing.T) {
	ws, _ := testws.SandboxHost(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := int(w.Fd())
	// As a parent that meant to pass it leaves it.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	leaked := "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
	probe := "readlink /proc/self/fd/" + strconv.Itoa(fd) + " || true"

	host := newHost(t, ws, execbackend.HostOptions{})
	if got := runToEnd(t, host, execbackend.Request{Command: probe}); !strings.Contains(got.stdout, leaked) {
		t.Fatalf("control on the host backend: descriptor %d is %q, want the inherited %s", fd, got.stdout, leaked)
	}
	sb := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
	if got := runToEnd(t, sb, execbackend.Request{Command: probe}); strings.Contains(got.stdout, leaked) {
		t.Errorf("in the sandbox the command holds this process's inherited descriptor %d (%s)", fd, leaked)
	}
}

// TestSandboxDevBounded: /dev/shm is a tmpfs of Sandbox.TmpBytes that the
// command may write, as /tmp, and /dev itself takes no files: bwrap's
// /dev is a tmpfs without a bound, which a command running as the
// server's user (the user namespace's owner) could otherwise fill up to
// half of the memory past the bound on /tmp.
func TestSandboxDevBounded(t *testing.T) {
	ws, _ := testws.SandboxHost(t)
	const bound = 1 << 20
	name := fmt.Sprintf("agenttools-hostile-%d", os.Getpid())
	probe := fmt.Sprintf(`head -c %d /dev/zero > /dev/shm/%s 2>/dev/null; stat -c %%s /dev/shm/%s; rm -f /dev/shm/%s; : 2>/dev/null > /dev/%s && echo dev-written && rm -f /dev/%s`,
		2*bound, name, name, name, name, name)
	if _, err := os.Stat("/dev/shm"); err == nil {
		host := newHost(t, ws, execbackend.HostOptions{})
		if got := runToEnd(t, host, execbackend.Request{Command: "head -c " + strconv.Itoa(2*bound) + " /dev/zero > /dev/shm/" + name + "; stat -c %s /dev/shm/" + name + "; rm -f /dev/shm/" + name}); strings.TrimSpace(got.stdout) != strconv.Itoa(2*bound) {
			t.Fatalf("control on the host backend: wrote %q bytes to the host's /dev/shm (stderr %q), want %d", got.stdout, got.stderr, 2*bound)
		}
	}
	sb := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{TmpBytes: bound}})
	got := runToEnd(t, sb, execbackend.Request{Command: probe})
	lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
	n, err := strconv.Atoi(lines[0])
	if err != nil || n <= 0 || n > bound {
		t.Errorf("in the sandbox /dev/shm took %q bytes (stderr %q), want some and at most the bound %d", lines[0], got.stderr, bound)
	}
	if strings.Contains(got.stdout, "dev-written") {
		t.Errorf("in the sandbox the command made a file in /dev (stdout %q)", got.stdout)
	}
}

// TestSandboxEnvOnlyForTheShell: the call's env is the command's, not
// that of the programs that set the sandbox up. bwrap runs outside the
// sandbox (as root when this process is root), and setpriv inside it
// with the rights to change user: a LD_PRELOAD naming a library the
// command built in the workspace (whose host path /proc/1/cmdline
// showed) ran that library's code in them, out of the sandbox. The
// dynamic linker's LD_DEBUG shows which programs read the variables.
func TestSandboxEnvOnlyForTheShell(t *testing.T) {
	ws, _ := testws.SandboxHost(t)
	req := execbackend.Request{Command: "true", Env: map[string]string{"LD_DEBUG": "libs"}}
	loaded := func(stderr, program string) bool {
		return strings.Contains(stderr, "initialize program: "+program+"\n")
	}
	host := newHost(t, ws, execbackend.HostOptions{})
	shell, err := exec.LookPath("bash")
	if err != nil {
		t.Skip(err)
	}
	if got := runToEnd(t, host, req); !loaded(got.stderr, shell) {
		t.Skipf("the dynamic linker does not report with LD_DEBUG=libs here (stderr %q)", got.stderr)
	}
	sb := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
	got := runToEnd(t, sb, req)
	if !loaded(got.stderr, shell) {
		t.Errorf("in the sandbox the call's env did not reach the shell %s (stderr %q)", shell, got.stderr)
	}
	for _, name := range []string{"bwrap", "setpriv", "prlimit", "env"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && loaded(got.stderr, real) || loaded(got.stderr, p) {
			t.Errorf("the call's env reached %s, which sets the sandbox up (stderr %q)", p, got.stderr)
		}
	}
}

// TestSandboxRootRunsCountTheirOwnProcesses: as root every run's command
// is uid 65534 with no user namespace, so RLIMIT_NPROC counts that
// user's processes on the whole host: one run holding its limit's worth
// left every other sandbox unable to fork ("fork: retry: Resource
// temporarily unavailable"). Where each run has a pids cgroup, that
// cgroup alone holds the run's processes.
func TestSandboxRootRunsCountTheirOwnProcesses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only: elsewhere each run has a user namespace of its own, in which its processes are counted")
	}
	const procs = 24
	opts := execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Limits: execbackend.SandboxLimits{Processes: procs}}}
	wsA, _ := testws.SandboxHost(t)
	wsB, _ := testws.SandboxHost(t)
	a, b := newHost(t, wsA, opts), newHost(t, wsB, opts)
	if conf := a.Confinement(); conf.MaxTasks == 0 {
		t.Skipf("no pids cgroup for each run here (%s): the process limit of uid %d, shared by all its processes, is then the only cap", conf, execbackend.DefaultSandboxUser)
	}
	probe := execbackend.Request{Command: "for i in 1 2 3 4 5 6 7 8; do /bin/true || echo refused; done; echo done"}
	if got := runToEnd(t, b, probe); got.stdout != "done\n" {
		t.Fatalf("alone, the probe said %q (stderr %q), want done", got.stdout, got.stderr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	defer cancel()
	hold, err := a.Start(ctx, execbackend.Request{Command: fmt.Sprintf("for i in $(seq %d); do sleep 600 & done; echo up; wait", procs-2)})
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Kill()
	for out := ""; !strings.Contains(out, "up\n"); {
		ev, err := hold.Next(ctx)
		if err != nil || ev.Kind == execbackend.Exit {
			t.Fatalf("the run holding processes ended before they were up: %v %+v (stdout %q)", err, ev, out)
		}
		if ev.Kind == execbackend.Stdout {
			out += string(ev.Data)
		}
	}
	if got := runToEnd(t, b, probe); got.stdout != "done\n" || got.stderr != "" {
		t.Errorf("with another sandbox's run holding %d processes, the probe said %q (stderr %q), want done", procs-1, got.stdout, got.stderr)
	}
}

// No command makes a user namespace in the sandbox: unshare and clone
// asking for one, and clone3, are refused by the filter (as root, where
// bwrap makes no user namespace and so cannot forbid further ones, this
// was open: unshare -Ur gave the command every capability over the
// namespaces it made next). Threads and the processes the C library
// starts (clone3 refused, it falls back to clone) still run; a 32-bit
// program's system calls are refused.
func TestSandboxMakesNoUserNamespace(t *testing.T) {
	ws, _ := testws.SandboxHost(t)
	probe := fmt.Sprintf(`unshare -Ur id -u 2>&1 || echo refused; perl -e 'print syscall(%d, %d) == 0 ? "made\n" : "unshare refused: $!\n"'`, unix.SYS_UNSHARE, unix.CLONE_NEWUSER)
	if os.Geteuid() == 0 || unprivilegedUserNamespaces() {
		host := newHost(t, ws, execbackend.HostOptions{})
		if got := runToEnd(t, host, execbackend.Request{Command: probe}); got.stdout != "0\nmade\n" {
			t.Fatalf("control on the host backend: %q (stderr %q), want a user namespace made twice", got.stdout, got.stderr)
		}
	}
	sb := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
	got := runToEnd(t, sb, execbackend.Request{Command: probe})
	if !strings.Contains(got.stdout, "refused\n") || !strings.Contains(got.stdout, "unshare refused: ") || strings.Contains(got.stdout, "made") {
		t.Errorf("in the sandbox: %q (stderr %q), want both refused", got.stdout, got.stderr)
	}
	// Threads (clone) and spawned processes (posix_spawn, clone3 first)
	// work as ever.
	threads := `perl -e 'use threads; print threads->create(sub { "thread\n" })->join()' 2>/dev/null || echo thread; (sh -c 'echo spawned') ; python3 -c 'import subprocess; print(subprocess.run(["echo", "posix_spawn"], capture_output=True, text=True).stdout, end="")' 2>/dev/null || echo posix_spawn`
	if got := runToEnd(t, sb, execbackend.Request{Command: threads}); got.stdout != "thread\nspawned\nposix_spawn\n" || got.exit.Code != 0 {
		t.Errorf("threads and processes in the sandbox: %q (stderr %q), exit %d", got.stdout, got.stderr, got.exit.Code)
	}
}

// unprivilegedUserNamespaces says whether this process may make a user
// namespace without privileges.
func unprivilegedUserNamespaces() bool {
	return exec.Command("unshare", "-Ur", "true").Run() == nil
}
