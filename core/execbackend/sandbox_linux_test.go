package execbackend_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// sandboxed is a sandbox backend with sb on a fresh workspace
// (testws.SandboxHost), a plain host backend on the same workspace (the
// control: what the sandbox stops must work there), and the workspace's
// host directory.
func sandboxed(t *testing.T, sb execbackend.Sandbox) (box, plain *execbackend.Host, dir string) {
	t.Helper()
	ws, dir := testws.SandboxHost(t)
	return newHost(t, ws, execbackend.HostOptions{Sandbox: &sb}), newHost(t, ws, execbackend.HostOptions{}), dir
}

// sandboxedAlone is a sandbox backend with sb on a fresh workspace whose
// commands run, when the test runs as root, as testws.Loner: the
// processes of other tests (as the default user) do not count against
// the per-user process limit (RLIMIT_NPROC) of its commands.
func sandboxedAlone(t *testing.T, sb execbackend.Sandbox) (*execbackend.Host, string) {
	t.Helper()
	ws, dir := testws.SandboxHost(t)
	if os.Geteuid() == 0 {
		sb.UID, sb.GID = testws.Loner, testws.Loner
		if err := os.Chown(dir, testws.Loner, testws.Loner); err != nil {
			t.Fatal(err)
		}
	}
	return newHost(t, ws, execbackend.HostOptions{Sandbox: &sb}), dir
}

// shq quotes s for the shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// publicFile writes a file that every user may read, in a directory
// every user may enter: what keeps a command from it is not its mode.
func publicFile(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// An isolation probe: a command that fails in the sandbox and succeeds
// on the plain host backend.
type probe struct {
	what, command string
	// denied is in the command's error in the sandbox: what says why it
	// failed.
	denied string
	// rootOnly: the command succeeds outside the sandbox only as root
	// (the control is skipped otherwise).
	rootOnly bool
}

const (
	notThere = "No such file or directory"
	readOnly = "Read-only file system"
)

// writeProbe creates a file in dir (and removes it): what the command
// may not do in the sandbox.
func writeProbe(dir, denied string, rootOnly bool) probe {
	return probe{"write to " + dir, fmt.Sprintf(`f=$(mktemp -p %s agenttools-probe.XXXXXX) && rm -f "$f"`, shq(dir)), denied, rootOnly}
}

// Inside the sandbox the host's secrets, the server's files and the
// workspace's neighbours are not there, and nothing but the workspace
// and /tmp may be written; each probe works on the plain host backend.
func TestSandboxHidesAndProtectsTheHost(t *testing.T) {
	box, plain, dir := sandboxed(t, execbackend.Sandbox{})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Beside the workspace: a directory of the same parent.
	sibling := t.TempDir()
	if filepath.Dir(sibling) != filepath.Dir(dir) {
		t.Fatalf("%s and %s are not siblings", sibling, dir)
	}
	next := publicFile(t, sibling, "next-door")
	publicFile(t, filepath.Dir(dir), "parent-file")
	// A file of the server's outside the workspace's parent.
	outside, err := os.MkdirTemp("", "agenttools-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	own := publicFile(t, outside, "server-file")

	probes := []probe{
		{"read /etc/shadow", "cat /etc/shadow >/dev/null", notThere, true},
		{"list /root", "ls /root >/dev/null", notThere, true},
		{"read the server's program", "cat " + shq(exe) + " >/dev/null", notThere, false},
		{"list the server's working directory", "ls " + shq(cwd) + " >/dev/null", notThere, false},
		{"read a file of the server's", "cat " + shq(own), notThere, false},
		{"read the server's command line", fmt.Sprintf("cat /proc/%d/cmdline >/dev/null", os.Getpid()), notThere, false},
		{"read a file beside the workspace (relative)", "cat ../" + shq(filepath.Base(sibling)+"/next-door"), notThere, false},
		{"read a file beside the workspace (host path)", "cat " + shq(next), notThere, false},
		{"read a file in the workspace's parent (host path)", "cat " + shq(filepath.Join(filepath.Dir(dir), "parent-file")), notThere, false},
		writeProbe("/", readOnly, true),
		writeProbe("/usr", readOnly, true),
		writeProbe("/usr/bin", readOnly, true),
		writeProbe("/etc", readOnly, true),
		writeProbe("/var", readOnly, true),
		writeProbe("/dev", readOnly, true),
		// /dev/shm is a tmpfs of the sandbox's own, bounded as /tmp is
		// (TestSandboxDevBounded).
		writeProbe(filepath.Dir(dir), notThere, false), // the workspace's parent on the host
	}
	if fi, err := os.Stat("/home"); err == nil && fi.IsDir() {
		probes = append(probes, writeProbe("/home", notThere, true))
	}
	// All probes in one command per backend: each prints its number,
	// its exit status and its error on one line.
	var script strings.Builder
	for i, p := range probes {
		fmt.Fprintf(&script, "err=$( { %s; } 2>&1 >/dev/null ); echo \"%d:$?:${err//$'\\n'/ }\"\n", p.command, i)
	}
	results := func(h *execbackend.Host) []string {
		got := runToEnd(t, h, execbackend.Request{Command: script.String()})
		lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
		if len(lines) != len(probes) {
			t.Fatalf("%d results of %d probes: stdout %q, stderr %q", len(lines), len(probes), got.stdout, got.stderr)
		}
		for i, line := range lines {
			lines[i] = strings.TrimPrefix(line, strconv.Itoa(i)+":")
		}
		return lines
	}
	inBox, onHost := results(box), results(plain)
	for i, p := range probes {
		if code, msg, _ := strings.Cut(inBox[i], ":"); code == "0" || !strings.Contains(msg, p.denied) {
			t.Errorf("%s in the sandbox: exit %s, error %q; want a failure saying %q", p.what, code, msg, p.denied)
		}
		if !p.rootOnly || os.Geteuid() == 0 {
			if code, msg, _ := strings.Cut(onHost[i], ":"); code != "0" {
				t.Errorf("%s, the control on the host backend: exit %s, error %q", p.what, code, msg)
			}
		}
	}
	// What may be written: the workspace, and /tmp (and /var/tmp, which
	// leads there).
	got := runToEnd(t, box, execbackend.Request{Command: "echo w > written && echo t > /tmp/t && cat /tmp/t && echo v > /var/tmp/v && cat /tmp/v"})
	if got.exit.Code != 0 || got.stdout != "t\nv\n" {
		t.Errorf("writes to the workspace and /tmp: exit %d, stdout %q, stderr %q", got.exit.Code, got.stdout, got.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "written")); err != nil || string(data) != "w\n" {
		t.Errorf("the write in the workspace: %q, %v", data, err)
	}
}

// lineListener listens at address and returns the address it listens
// at and a channel that gets the first line of each connection, in the
// order the connections were accepted.
func lineListener(t *testing.T, network, address string) (net.Addr, <-chan string) {
	t.Helper()
	l, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	lines := make(chan string, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			lines <- line
		}
	}()
	return l.Addr(), lines
}

// No connection leaves the sandbox, to the host's loopback or to an
// abstract Unix socket of the host's network namespace neither, unless
// the host opted in (Sandbox.Network), which the description then
// says.
func TestSandboxNetwork(t *testing.T) {
	box, plain, _ := sandboxed(t, execbackend.Sandbox{})
	ws, _ := testws.SandboxHost(t)
	netBox := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Network: true}})
	for h, want := range map[*execbackend.Host]string{
		box:    toolspec.MsgExecSandboxBackend(toolspec.WorkspaceRoot),
		netBox: toolspec.MsgExecSandboxBackendNetwork(toolspec.WorkspaceRoot),
	} {
		if info := h.Info(); info.ID != toolspec.MsgExecSandboxBackendID || info.Description != want {
			t.Errorf("Info %+v, want the description %q", info, want)
		}
	}
	for _, c := range []struct {
		name, network, address string
		// connect is the command that connects and sends a line.
		connect func(addr net.Addr, line string) string
		refused string // in the error of a connection refused
	}{
		{"TCP on the loopback", "tcp", "127.0.0.1:0", func(addr net.Addr, line string) string {
			return fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo %s >&3", addr.(*net.TCPAddr).Port, line)
		}, "Connection refused"},
		{"abstract Unix socket", "unix", fmt.Sprintf("@agenttools-test-%d-%d", os.Getpid(), time.Now().UnixNano()), func(addr net.Addr, line string) string {
			name := strings.TrimPrefix(addr.String(), "@")
			return fmt.Sprintf(`python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect("\0" + sys.argv[1]); s.sendall(b"%s\n")' %s`, line, name)
		}, "ConnectionRefusedError"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.network == "unix" {
				// bash has no Unix sockets.
				if _, err := os.Stat("/usr/bin/python3"); err != nil {
					t.Skip("connects with python3, which is not in /usr/bin")
				}
			}
			addr, lines := lineListener(t, c.network, c.address)
			// reaches checks that a connection from h gets through: the
			// listener's next connection is its. The listener accepts in
			// order, so had an earlier connection (the sandbox's) come
			// through, its line would come first.
			reaches := func(h *execbackend.Host, name string) {
				t.Helper()
				if got := runToEnd(t, h, execbackend.Request{Command: c.connect(addr, name)}); got.exit.Code != 0 {
					t.Fatalf("connect from %s: exit %d, stderr %q", name, got.exit.Code, got.stderr)
				}
				if line := nextLine(t, lines); line != name+"\n" {
					t.Errorf("connection accepted: %q, want %s's", line, name)
				}
			}
			got := runToEnd(t, box, execbackend.Request{Command: c.connect(addr, "sandbox")})
			if got.exit.Code == 0 || !strings.Contains(got.stderr, c.refused) {
				t.Errorf("connect from the sandbox: exit %d, stderr %q", got.exit.Code, got.stderr)
			}
			reaches(plain, "host")
			reaches(netBox, "network")
		})
	}
}

func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case line := <-lines:
		return line
	case <-time.After(hang):
		t.Fatal("no connection accepted")
		return ""
	}
}

// hostSleep starts `sleep 1000` on the host, as the sandbox's user when
// the test runs as root (so that only the sandbox, not permissions,
// keeps its commands from it), and returns it and what waits for its
// end and says which signal ended it.
func hostSleep(t *testing.T) (*osexec.Cmd, func() syscall.Signal) {
	t.Helper()
	cmd := osexec.Command("sleep", "1000")
	if os.Geteuid() == 0 {
		testws.AsUser(execbackend.DefaultSandboxUser)(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var err error
	go func() {
		err = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return cmd, func() syscall.Signal {
		t.Helper()
		select {
		case <-done:
		case <-time.After(hang):
			t.Fatal("the host process did not end")
		}
		var exit *osexec.ExitError
		if errors.As(err, &exit) {
			if st, ok := exit.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				return st.Signal()
			}
		}
		t.Fatalf("the host process ended with %v, not by a signal", err)
		return 0
	}
}

// ps in the sandbox lists the sandbox's processes only: bwrap's (pid
// 1), the shell and ps; the host backend's lists the server and a host
// process.
func TestSandboxSeesOnlyItsProcesses(t *testing.T) {
	box, plain, _ := sandboxed(t, execbackend.Sandbox{})
	sleep, _ := hostSleep(t)
	const ps = "ps -e -o pid=,comm=; true" // true: the shell forks ps
	got := runToEnd(t, box, execbackend.Request{Command: ps})
	var procs []string
	for line := range strings.Lines(got.stdout) {
		procs = append(procs, strings.Join(strings.Fields(line), " "))
	}
	if len(procs) != 3 || procs[0] != "1 bwrap" || !strings.HasSuffix(procs[1], " bash") || !strings.HasSuffix(procs[2], " ps") {
		t.Errorf("ps in the sandbox: %q (stderr %q)", procs, got.stderr)
	}
	got = runToEnd(t, plain, execbackend.Request{Command: ps})
	pids := map[string]bool{}
	for line := range strings.Lines(got.stdout) {
		if f := strings.Fields(line); len(f) > 0 {
			pids[f[0]] = true
		}
	}
	for _, pid := range []int{os.Getpid(), sleep.Process.Pid} {
		if !pids[strconv.Itoa(pid)] {
			t.Errorf("control: ps on the host backend does not list process %d: %q", pid, got.stdout)
		}
	}
}

// kill -9 -1 in the sandbox kills the sandbox's processes only: a host
// process of the same user lives on, and so do the server and the
// workspace. (The control kills a host process by its pid from the host
// backend; kill -1 there would kill the machine's processes.)
func TestSandboxKillAllHarmsNothingOutside(t *testing.T) {
	box, plain, dir := sandboxed(t, execbackend.Sandbox{})
	if err := os.WriteFile(filepath.Join(dir, "kept"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	victim, victimEnd := hostSleep(t)
	got := runToEnd(t, box, execbackend.Request{Command: fmt.Sprintf("kill -9 %d; echo $?; kill -9 -1; echo survived", victim.Process.Pid)})
	if got.stdout != "1\nsurvived\n" || !strings.Contains(got.stderr, "No such process") {
		t.Errorf("in the sandbox: stdout %q stderr %q", got.stdout, got.stderr)
	}
	// Still running: only this test's signal ends it.
	if err := victim.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("the host process is gone: %v", err)
	}
	if sig := victimEnd(); sig != syscall.SIGTERM {
		t.Errorf("the host process was ended by %v, not by the test's SIGTERM", sig)
	}
	if got := runToEnd(t, box, execbackend.Request{Command: "cat kept"}); got.stdout != "kept\n" {
		t.Errorf("after kill -1: the next command printed %q, stderr %q", got.stdout, got.stderr)
	}

	control, controlEnd := hostSleep(t)
	if got := runToEnd(t, plain, execbackend.Request{Command: fmt.Sprintf("kill -9 %d", control.Process.Pid)}); got.exit.Code != 0 {
		t.Errorf("control: kill from the host backend: exit %d, stderr %q", got.exit.Code, got.stderr)
	}
	if sig := controlEnd(); sig != syscall.SIGKILL {
		t.Errorf("control: the host process was ended by %v", sig)
	}
}

// inNamespace lists the host's live processes in the PID namespace ns
// (as readlink /proc/PID/ns/pid gives it): their pids and names. A
// zombie is left out: it runs no more, and its reaper may be the
// machine's init, which takes its time.
func inNamespace(ns string) map[int]string {
	procs := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid)); err != nil || link != ns {
			continue
		}
		// "pid (comm) state ...", where comm may hold anything.
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		open, close := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if err != nil || open < 0 || close < open || len(stat) < close+3 {
			continue
		}
		if stat[close+2] != 'Z' {
			procs[pid] = string(stat[open+1 : close])
		}
	}
	return procs
}

// waitEmpty waits until no process is left in the PID namespace ns,
// failing the test after hang.
func waitEmpty(t *testing.T, ns string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(hang)
	for {
		left := inNamespace(ns)
		if len(left) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("processes left in the command's PID namespace %s: %v", ns, left)
		}
	}
}

// escapes starts what tries to outlive the command: a session of its
// own, nohup, a double fork (whose parent is gone), and a fork bomb
// (bounded by the sandbox's process limit), and says "started" once
// they are all up; then it waits for a line in the FIFO gate. Once the
// bomb is lit the shell forks no more (the bomb leaves no process to
// spare): it starts the bomb with one fork, and its wait for the bomb
// to grow and for the gate are builtins.
const escapes = `readlink /proc/self/ns/pid
setsid sleep 1000 &
nohup sleep 1000 >/dev/null 2>&1 &
( (sleep 1000 &) & )
until [ "$(pgrep -cx sleep)" = 3 ]; do :; done
bomb() { bomb | bomb & }; bomb &
until procs=(/proc/[0-9]*); [ ${#procs[@]} -ge 24 ]; do :; done
echo started
read -r _ < gate
`

// Nothing the command started outlives the run, however it ends:
// every process of its PID namespace is gone. The server (this test)
// lives on, and the backend runs the next command.
func TestSandboxNothingOutlivesTheRun(t *testing.T) {
	for _, end := range []string{"timeout", "cancel", "kill", "exit"} {
		t.Run(end, func(t *testing.T) {
			h, dir := sandboxedAlone(t, execbackend.Sandbox{Limits: execbackend.SandboxLimits{Processes: 64}})
			gate := filepath.Join(dir, "gate")
			if err := testws.Mkfifo(gate, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(gate, 0o666); err != nil { // past the umask: the sandbox's user reads it
				t.Fatal(err)
			}
			timer := manualTimeouts(h)
			guard, stop := context.WithTimeout(t.Context(), hang)
			defer stop()
			ctx, cancel := context.WithCancel(guard)
			defer cancel()
			run, err := h.Start(ctx, execbackend.Request{Command: escapes, Timeout: hang})
			if err != nil {
				t.Fatal(err)
			}
			fire := timer.next(t)
			out := readUntil(t, guard, run, "started\n")
			ns, _, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(ns, "pid:[") {
				t.Fatalf("the command's PID namespace: %q", out)
			}
			// The scan sees the namespace's processes while they run:
			// bwrap's, the three sleeps, the shell and the bomb's.
			before := inNamespace(ns)
			count := map[string]int{}
			for _, comm := range before {
				count[comm]++
			}
			if count["bwrap"] != 1 || count["sleep"] != 3 || count["bash"] < 2 {
				t.Fatalf("before the end, the namespace holds %v", before)
			}
			var exit execbackend.Event
			switch end {
			case "timeout":
				fire()
				exit = drain(t, guard, run, "the timed-out command").exit
			case "cancel":
				cancel()
				if _, err := run.Next(ctx); !errors.Is(err, context.Canceled) {
					t.Errorf("Next after the cancel: %v", err)
				}
			case "kill":
				if err := run.Kill(); err != nil {
					t.Fatal(err)
				}
				exit = drain(t, guard, run, "the killed command").exit
			case "exit":
				if err := os.WriteFile(gate, []byte("go\n"), 0); err != nil {
					t.Fatal(err)
				}
				exit = drain(t, guard, run, "the command").exit
			}
			switch want := 128 + int(syscall.SIGKILL); {
			case end == "timeout" && (!exit.TimedOut || exit.Code != want),
				end == "kill" && (exit.TimedOut || exit.Code != want),
				end == "exit" && (exit.TimedOut || exit.Code != 0):
				t.Errorf("exit %+v", exit)
			}
			waitEmpty(t, ns)
			if got := runToEnd(t, h, execbackend.Request{Command: "echo next"}); got.stdout != "next\n" || got.exit.Code != 0 {
				t.Errorf("the next command: stdout %q, stderr %q, exit %d", got.stdout, got.stderr, got.exit.Code)
			}
		})
	}
}

// Each of the sandbox's limits holds; the same command under the
// default limits is the control.
func TestSandboxLimits(t *testing.T) {
	t.Run("processes", func(t *testing.T) {
		const procs = 8
		// Each sleep started prints its number; a fork refused makes bash
		// say so and retry (for seconds): the test stops it then.
		const command = `for i in {1..20}; do sleep 1000 & echo $i; done`
		h, _ := sandboxedAlone(t, execbackend.Sandbox{Limits: execbackend.SandboxLimits{Processes: procs}})
		ctx, stop := context.WithTimeout(t.Context(), hang)
		defer stop()
		run, err := h.Start(ctx, execbackend.Request{Command: command})
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr string
		for !strings.Contains(stderr, "fork: retry: Resource temporarily unavailable") {
			ev, err := run.Next(ctx)
			if err != nil || ev.Kind == execbackend.Exit {
				t.Fatalf("no fork was refused: stdout %q, stderr %q, %+v, %v", stdout, stderr, ev, err)
			}
			if ev.Kind == execbackend.Stdout {
				stdout += string(ev.Data)
			} else {
				stderr += string(ev.Data)
			}
		}
		if err := run.Kill(); err != nil {
			t.Fatal(err)
		}
		started := strings.Count(stdout, "\n")
		if started >= procs {
			t.Errorf("%d sleeps started under a limit of %d processes", started, procs)
		}
		def, _ := sandboxedAlone(t, execbackend.Sandbox{})
		// (As root the run's pids cgroup holds the limit, not ulimit -u.)
		if got := runToEnd(t, def, execbackend.Request{Command: command}); !strings.HasSuffix(got.stdout, "\n20\n") || got.stderr != "" {
			t.Errorf("control: stdout %q, stderr %q", got.stdout, got.stderr)
		}
	})
	t.Run("file size", func(t *testing.T) {
		// SIGXFSZ ignored: the write fails with EFBIG instead.
		const command = `trap '' XFSZ; head -c 8192 /dev/zero > big`
		ws, dir := testws.SandboxHost(t)
		h := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Limits: execbackend.SandboxLimits{FileBytes: 4096}}})
		got := runToEnd(t, h, execbackend.Request{Command: command})
		if got.exit.Code == 0 || !strings.Contains(got.stderr, "File too large") {
			t.Errorf("exit %d, stderr %q", got.exit.Code, got.stderr)
		}
		if fi, err := os.Stat(filepath.Join(dir, "big")); err != nil || fi.Size() != 4096 {
			t.Errorf("the file written: %v, %v", fi, err)
		}
		def := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
		if got := runToEnd(t, def, execbackend.Request{Command: command}); got.exit.Code != 0 {
			t.Errorf("control: exit %d, stderr %q", got.exit.Code, got.stderr)
		}
		if fi, err := os.Stat(filepath.Join(dir, "big")); err != nil || fi.Size() != 8192 {
			t.Errorf("control: the file written: %v, %v", fi, err)
		}
	})
	t.Run("address space", func(t *testing.T) {
		// The shell holds 40 MB in a variable.
		const command = `printf -v x '%*s' 40000000 ''; echo ${#x}`
		ws, _ := testws.SandboxHost(t)
		h := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Limits: execbackend.SandboxLimits{AddressSpaceBytes: 32 << 20}}})
		got := runToEnd(t, h, execbackend.Request{Command: command})
		if got.exit.Code == 0 || got.stdout != "" || !strings.Contains(got.stderr, "cannot allocate") {
			t.Errorf("exit %d, stdout %q, stderr %q", got.exit.Code, got.stdout, got.stderr)
		}
		def := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
		if got := runToEnd(t, def, execbackend.Request{Command: command}); got.exit.Code != 0 || got.stdout != "40000000\n" {
			t.Errorf("control: exit %d, stdout %q, stderr %q", got.exit.Code, got.stdout, got.stderr)
		}
	})
	t.Run("CPU time", func(t *testing.T) {
		ws, _ := testws.SandboxHost(t)
		h := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Limits: execbackend.SandboxLimits{CPUSeconds: 1}}})
		// A second of CPU time: SIGXCPU or, the hard limit being the
		// same, SIGKILL.
		got := runToEnd(t, h, execbackend.Request{Command: "while :; do :; done"})
		if c := got.exit.Code; c != 128+int(syscall.SIGKILL) && c != 128+int(syscall.SIGXCPU) {
			t.Errorf("exit %d, stderr %q", c, got.stderr)
		}
		// The control: the default limit, too long to wait for.
		def := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
		if got := runToEnd(t, def, execbackend.Request{Command: "ulimit -t"}); got.stdout != strconv.Itoa(execbackend.DefaultSandboxCPUSeconds)+"\n" {
			t.Errorf("control: ulimit -t %q", got.stdout)
		}
	})
}

// Each command's /tmp is its own: what one run leaves there is gone in
// the next, and never was in the host's /tmp, which the host backend
// shares between runs.
func TestSandboxPrivateTmp(t *testing.T) {
	box, plain, _ := sandboxed(t, execbackend.Sandbox{})
	name := filepath.Join("/tmp", fmt.Sprintf("agenttools-private-%d-%d", os.Getpid(), time.Now().UnixNano()))
	write := "echo kept > " + name + " && cat " + name
	read := "cat " + name
	if got := runToEnd(t, box, execbackend.Request{Command: write}); got.stdout != "kept\n" {
		t.Fatalf("the write in the sandbox: stdout %q, stderr %q", got.stdout, got.stderr)
	}
	if _, err := os.Lstat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sandbox's file is in the host's /tmp: %v", err)
	}
	if got := runToEnd(t, box, execbackend.Request{Command: read}); got.exit.Code == 0 || !strings.Contains(got.stderr, notThere) {
		t.Errorf("the next run read the last one's file: stdout %q, stderr %q", got.stdout, got.stderr)
	}
	t.Cleanup(func() { os.Remove(name) })
	runToEnd(t, plain, execbackend.Request{Command: write})
	if got := runToEnd(t, plain, execbackend.Request{Command: read}); got.stdout != "kept\n" {
		t.Errorf("control: the host backend's next run read %q, stderr %q", got.stdout, got.stderr)
	}
}

// NewHost refuses a sandbox that cannot work, saying why.
func TestSandboxBadSetup(t *testing.T) {
	ws := vfs.New(memfs.New())
	_, err := execbackend.NewHost(ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{Bwrap: "/nonexistent/bwrap"}})
	if !errors.Is(err, execbackend.ErrSandboxUnavailable) || !strings.Contains(err.Error(), "Sandbox.Bwrap /nonexistent/bwrap cannot be run") {
		t.Errorf("a bwrap named that is not there: %v", err)
	}
	t.Run("no bwrap on PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := execbackend.NewHost(ws, execbackend.HostOptions{Shell: "/bin/bash", Sandbox: &execbackend.Sandbox{}})
		if !errors.Is(err, execbackend.ErrSandboxUnavailable) || !strings.Contains(err.Error(), "install the bubblewrap package") {
			t.Errorf("without bwrap: %v", err)
		}
	})
	for _, dir := range []string{"/", "/usr/x", "/usr", "/tmp", "/tmp/x", "/etc", "/proc/x", "/var/lib/x", "workspace", "/workspace/../etc"} {
		_, err := execbackend.NewHost(ws, execbackend.HostOptions{Dir: dir, Sandbox: &execbackend.Sandbox{}})
		if err == nil || !strings.Contains(err.Error(), "workspace directory") {
			t.Errorf("workspace directory %q: %v", dir, err)
		}
	}
	t.Run("root's workspace", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root's sandbox runs its commands as another user")
		}
		testws.NeedSandbox(t)
		ws, dir := testws.Host(t, "")
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := execbackend.NewHost(ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
		if err == nil || !strings.Contains(err.Error(), "chown") || !strings.Contains(err.Error(), dir) {
			t.Errorf("a workspace only root may write: %v", err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if _, err := execbackend.NewHost(ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}}); err != nil {
			t.Errorf("a workspace everyone may write: %v", err)
		}
	})
}

// refusedEnv marks the run of this test binary, in a user namespace that
// may make no more, that TestSandboxUserNamespacesRefused starts.
const refusedEnv = "AGENTTOOLS_TEST_USERNS_REFUSED"

// Where this process (not root) may not make a user namespace, NewHost
// says so. The test runs itself again as user 1000 of a user namespace
// whose user.max_user_namespaces is 0 (set while it still has the
// capability; bwrap's --disable-userns does the same).
func TestSandboxUserNamespacesRefused(t *testing.T) {
	if os.Getenv(refusedEnv) != "" {
		if os.Geteuid() == 0 {
			t.Fatal("runs as root")
		}
		_, err := execbackend.NewHost(vfs.New(memfs.New()), execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
		if !errors.Is(err, execbackend.ErrSandboxUnavailable) || !strings.Contains(err.Error(), "bwrap cannot make a user namespace") || !strings.Contains(err.Error(), "user.max_user_namespaces") {
			t.Fatalf("NewHost: %v", err)
		}
		t.Logf("NewHost: %v", err)
		return
	}
	testws.NeedSandbox(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command("/bin/sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --inh-caps=-all --ambient-caps=-all -- "$@"`,
		"sh", exe, "-test.run=^TestSandboxUserNamespacesRefused$", "-test.v")
	cmd.Env = append(os.Environ(), refusedEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 1000, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 1000, HostID: os.Getgid(), Size: 1}},
		// What the shell needs to set the namespace's limit.
		AmbientCaps: []uintptr{unix.CAP_SYS_RESOURCE},
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSandboxUserNamespacesRefused") || !strings.Contains(string(out), "bwrap cannot make a user namespace") {
		t.Errorf("in a user namespace that may make none: %v\n%s", err, out)
	}
}

// serverEnv marks the run of this test binary that
// TestSandboxDiesWithTheServer starts as the server it kills.
const serverEnv = "AGENTTOOLS_TEST_SANDBOX_SERVER"

// When the server dies (killed: nothing of it runs to clean up), its
// commands in the sandbox die with it (bwrap's --die-with-parent, then
// the PID namespace).
func TestSandboxDiesWithTheServer(t *testing.T) {
	if os.Getenv(serverEnv) != "" {
		// The server: it starts a command, says which PID namespace the
		// command has once it runs, and waits to be killed.
		box, _, _ := sandboxed(t, execbackend.Sandbox{})
		run, err := box.Start(t.Context(), execbackend.Request{Command: "readlink /proc/self/ns/pid; setsid sleep 1000 & nohup sleep 1000 >/dev/null 2>&1 & until [ \"$(pgrep -cx sleep)\" = 2 ]; do :; done; echo started; wait"})
		if err != nil {
			t.Fatal(err)
		}
		out := readUntil(t, t.Context(), run, "started\n")
		ns, _, _ := strings.Cut(out, "\n")
		fmt.Printf("namespace %s\n", ns)
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	testws.NeedSandbox(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := osexec.Command(exe, "-test.run=^TestSandboxDiesWithTheServer$")
	server.Env = append(os.Environ(), serverEnv+"=1")
	stdin, err := server.StdinPipe() // held open: the server waits for its end
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer server.Wait()
	defer server.Process.Kill()
	said := make(chan string, 1)
	go func() {
		var all string
		for lines := bufio.NewScanner(stdout); lines.Scan(); {
			if ns, ok := strings.CutPrefix(lines.Text(), "namespace "); ok {
				said <- ns
				return
			}
			all += lines.Text() + "\n"
		}
		said <- "the server ended first:\n" + all
	}()
	var ns string
	select {
	case ns = <-said:
	case <-time.After(hang):
		t.Fatal("the server's command did not start")
	}
	if !strings.HasPrefix(ns, "pid:[") {
		t.Fatalf("the command's PID namespace: %s", ns)
	}
	count := map[string]int{}
	for _, comm := range inNamespace(ns) {
		count[comm]++
	}
	if count["sleep"] != 2 {
		t.Fatalf("before the server's death, the namespace holds %v", count)
	}
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait()
	waitEmpty(t, ns)
}

// The sandbox's PATH is this process's less the directories it does not
// show, which would only tell the command the host's (a home
// directory's name); the call's env may still set one.
func TestSandboxPathShowsOnlyWhatIsThere(t *testing.T) {
	hidden := t.TempDir()
	t.Setenv("PATH", hidden+":/usr/bin:/nonexistent:/bin")
	ws, _ := testws.SandboxHost(t)
	sb := newHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
	if got := runToEnd(t, sb, execbackend.Request{Command: `printf %s "$PATH"`}); got.stdout != "/usr/bin:/bin" {
		t.Errorf("PATH in the sandbox: %q, want %q", got.stdout, "/usr/bin:/bin")
	}
	if got := runToEnd(t, sb, execbackend.Request{Command: `printf %s "$PATH"`, Env: map[string]string{"PATH": "/x:/usr/bin"}}); got.stdout != "/x:/usr/bin" {
		t.Errorf("PATH from the call's env: %q", got.stdout)
	}
	host := newHost(t, ws, execbackend.HostOptions{})
	if got := runToEnd(t, host, execbackend.Request{Command: `printf %s "$PATH"`}); got.stdout != hidden+":/usr/bin:/nonexistent:/bin" {
		t.Errorf("control: PATH on the host backend: %q", got.stdout)
	}
}
