package execbackend

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// BaseEnv are the variables a host command inherits from this process;
// the rest of its environment is left out. Names ending in "*" are
// prefixes.
var BaseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TERM", "TMPDIR", "TZ",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS", "GOPRIVATE", "GONOSUMDB", "GONOPROXY",
	"GOINSECURE", "GOTOOLCHAIN", "GOOS", "GOARCH", "GOEXPERIMENT", "GOWORK", "CGO_ENABLED",
}

// SandboxBaseEnv are the variables a command in the sandbox inherits
// from this process (names ending in "*" are prefixes): those of
// BaseEnv that name no host path. The sandbox sets HOME (/tmp), USER
// and LOGNAME (sandbox), SHELL, and PATH: this process's, less the
// directories the sandbox does not show.
var SandboxBaseEnv = []string{
	"LANG", "LANGUAGE", "LC_*", "TERM", "TZ",
	"GOROOT", "GOPROXY", "GOFLAGS", "GOPRIVATE", "GONOSUMDB", "GONOPROXY",
	"GOINSECURE", "GOTOOLCHAIN", "GOOS", "GOARCH", "GOEXPERIMENT", "CGO_ENABLED",
}

// DefaultLinger is how long a run keeps reading output after its process
// has exited, for what a background child still writes to the inherited
// pipes; then the run is over, whatever the child does.
const DefaultLinger = 50 * time.Millisecond

// maxArgBytes is the longest command passed as an argument; Linux
// refuses a single argument of 128 KiB or more.
const maxArgBytes = 100 << 10

// longCommand runs a command too long for an argument: it reads it from
// descriptor 3, closes that, and evaluates it, leaving no variable
// behind.
const longCommand = `__agenttools_command=$(cat <&3) && exec 3<&- && eval "unset __agenttools_command; $__agenttools_command"`

// drainMax bounds what a run reads without waiting once the linger is
// over; more than a pipe holds, so the exited process's output is all
// read, however late the reader ran.
const drainMax = 1 << 20

// HostOptions configure a Host backend.
type HostOptions struct {
	// ID is the backend's name; toolspec.MsgExecHostBackendID ("host")
	// when empty.
	ID string
	// Description is what the backend tells the model; the spec's text
	// for the host backend when empty.
	Description string
	// Dir is the workspace directory whose host directory commands run in
	// when the call gives no cwd; toolspec.WorkspaceRoot when empty.
	Dir string
	// Env adds names (or "PREFIX*" patterns) to BaseEnv.
	Env []string
	// Shell runs the command as Shell -c COMMAND; bash, else sh, when empty.
	Shell string
	// Linger is how long a run still reads output after the command has
	// exited, from background children that hold its pipes;
	// DefaultLinger when zero. What the command itself wrote is read in
	// full however short the linger.
	Linger time.Duration
	// MaxTasks caps the tasks (processes and threads) of one run where a
	// cgroup with the pids controller can be made (see Confinement); 0
	// picks half of the system's process table, less what the cgroups
	// above this process and its user's process limit allow, and with
	// Sandbox no more than its Limits.Processes (and bwrap's own two).
	MaxTasks int
	// Sandbox, when set, runs every command in a bubblewrap sandbox
	// (see Sandbox; Linux only): ID is then "sandbox" and Description
	// toolspec.MsgExecSandboxBackend when empty, and the environment is
	// SandboxBaseEnv (plus Env) instead of BaseEnv, given to the
	// command's shell alone (bwrap and the programs that set the
	// sandbox up get none of it). NewHost fails with
	// an ErrSandboxUnavailable error where the sandbox cannot run; it
	// never falls back to running commands without it.
	Sandbox *Sandbox
}

// Host runs commands as real processes on this machine, with bash -c (or
// sh -c), in the host directory behind a workspace directory (a hostfs
// mount). Each run's shell leads a session of its own (setsid, so no
// controlling terminal) and, on Linux where one can be made, is in a
// cgroup of its own (see Confinement). Killing the run, cancelling its
// context or its timeout kills its processes; so does its end: what the
// command left running in the background is killed once the run is over.
// Which processes those are: on Linux, the run's cgroup as a whole, or
// without one the session's processes, those carrying the run's RunEnv
// and every process descended from either (from /proc); on other Unix
// systems the session's process group, which misses a process that made
// a group or session of its own. The environment is BaseEnv from this
// process plus the call's env.
type Host struct {
	ws     *vfs.Workspace
	info   Info
	dir    string
	shell  string
	allow  []string
	preset []string // NAME=value set before the call's env (sandbox)
	// sandbox builds each run's bwrap command; nil: no sandbox.
	sandbox *sandboxer
	linger  time.Duration
	procs   hostProcs
	// afterFunc runs f after d unless the returned stop is called first;
	// time.AfterFunc but in tests.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

// NewHost returns a host backend over ws. It fails when no shell is
// found, and on a system where the backend does not run (Windows: an
// error that names the system). With opts.Sandbox it also fails, with
// an ErrSandboxUnavailable error, where the sandbox cannot start (it
// tries once), and, when this process is root, when the sandbox's user
// may not write to the host directory of opts.Dir.
func NewHost(ws *vfs.Workspace, opts HostOptions) (*Host, error) {
	return newHost(ws, opts, false)
}

// newHost is NewHost; mirrored says a Mirror runs the commands in its
// copy, whose owner it sets itself.
func newHost(ws *vfs.Workspace, opts HostOptions, mirrored bool) (*Host, error) {
	if opts.Sandbox != nil {
		if err := sandboxSupported(); err != nil {
			return nil, err
		}
	}
	if err := hostSupported("host"); err != nil {
		return nil, err
	}
	h := &Host{ws: ws, info: Info{ID: opts.ID, Description: opts.Description}, dir: opts.Dir, shell: opts.Shell, linger: opts.Linger,
		afterFunc: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }}
	h.procs.maxTasks = opts.MaxTasks
	if h.linger <= 0 {
		h.linger = DefaultLinger
	}
	if h.dir == "" {
		h.dir = toolspec.WorkspaceRoot
	}
	switch {
	case h.info.ID != "":
	case opts.Sandbox != nil:
		h.info.ID = toolspec.MsgExecSandboxBackendID
	default:
		h.info.ID = toolspec.MsgExecHostBackendID
	}
	switch {
	case h.info.Description != "":
	case opts.Sandbox != nil && opts.Sandbox.Network:
		h.info.Description = toolspec.MsgExecSandboxBackendNetwork(h.dir)
	case opts.Sandbox != nil:
		h.info.Description = toolspec.MsgExecSandboxBackend(h.dir)
	default:
		h.info.Description = toolspec.MsgExecHostBackend(h.dir)
	}
	if h.shell == "" {
		for _, sh := range []string{"bash", "sh"} {
			if p, err := osexec.LookPath(sh); err == nil {
				h.shell = p
				break
			}
		}
		if h.shell == "" {
			return nil, errors.New("exec: neither bash nor sh is on PATH")
		}
	}
	h.allow = append(slices.Clone(BaseEnv), opts.Env...)
	if opts.Sandbox != nil {
		sb, err := newSandboxer(opts.Sandbox, vfs.Clean(h.dir), h.shell, &h.procs)
		if err != nil {
			return nil, err
		}
		h.sandbox = sb
		h.allow = append(slices.Clone(SandboxBaseEnv), opts.Env...)
		h.preset = []string{"PATH=" + sb.path, "HOME=/tmp", "USER=" + sandboxUser, "LOGNAME=" + sandboxUser, "SHELL=" + h.shell}
		if procs := opts.Sandbox.Limits.withDefaults().Processes; h.procs.maxTasks == 0 && procs > 0 {
			h.procs.maxTasks = procs + 2 // bwrap's two processes
		}
		if !mirrored {
			if root, err := ws.HostPath(context.Background(), h.dir); err == nil {
				if err := sb.checkWritable(root); err != nil {
					return nil, err
				}
			}
		}
	}
	return h, nil
}

// Info describes the backend.
func (h *Host) Info() Info { return h.info }

// Confinement says how the backend holds its commands' processes on this
// machine: found at the first call (of this or Start), from what the
// system offers and this process may use.
func (h *Host) Confinement() Confinement { return h.confinement() }

func (h *Host) environ(overrides map[string]string) []string {
	// Never nil, which os/exec takes for "this process's environment".
	env := []string{}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := overrides[name]; over {
			continue
		}
		for _, a := range h.allow {
			if prefix, ok := strings.CutSuffix(a, "*"); ok && strings.HasPrefix(name, prefix) || a == name {
				env = append(env, kv)
				break
			}
		}
	}
	for _, kv := range h.preset {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := overrides[name]; !over {
			env = append(env, kv)
		}
	}
	for name, value := range overrides {
		env = append(env, name+"="+value)
	}
	slices.Sort(env)
	return env
}

// Start runs the command.
func (h *Host) Start(ctx context.Context, req Request) (Run, error) {
	cwd := req.Cwd
	if cwd == "" {
		cwd = h.dir
	}
	dir, err := h.ws.HostPath(ctx, cwd)
	if err != nil {
		return nil, err
	}
	if h.sandbox == nil {
		return h.startIn(ctx, dir, "", req)
	}
	// The sandbox binds the host directory of h.dir at h.dir: the
	// command starts in cwd's place below it.
	root, err := h.ws.HostPath(ctx, h.dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, errno.New(errno.EINVAL, toolspec.MsgNotHostDirectory(vfs.Clean(cwd)), vfs.Clean(cwd))
	}
	return h.startIn(ctx, root, path.Join(vfs.Clean(h.dir), filepath.ToSlash(rel)), req)
}

// startIn runs the command in the host directory dir; in the sandbox,
// dir is bound at h.dir and the command starts in inside, a path below
// h.dir.
func (h *Host) startIn(ctx context.Context, dir, inside string, req Request) (*hostRun, error) {
	if err := checkEnv(req.Env); err != nil {
		return nil, err
	}
	args := []string{"-c", req.Command}
	var extra []*os.File
	var script *os.File // the write end of a long command's pipe
	if len(req.Command) > maxArgBytes {
		// Too long for one argument (Linux allows 128 KiB): the shell
		// reads it from descriptor 3, closes that, and runs it.
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		script = w
		args = []string{"-c", longCommand}
		extra = []*os.File{r}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	name, env := h.shell, h.environ(req.Env)
	if h.sandbox != nil {
		var data []*os.File
		// The run's mark comes from bwrap's environment; the call's
		// env does not change it, as on the host.
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, RunEnv+"=") })
		args, data, err = h.sandbox.command(dir, inside, 3+len(extra), h.shell, args, env)
		if err != nil {
			closeAll([]*os.File{outR, outW, errR, errW, script})
			return nil, err
		}
		defer closeAll(data)
		extra = append(extra, data...)
		// The environment is the shell's alone (see command): bwrap
		// gets none but the run's mark.
		name, dir, env = h.sandbox.bwrap, "/", []string{}
	}
	newCmd := func() *osexec.Cmd {
		cmd := osexec.Command(name, args...)
		cmd.ExtraFiles = extra
		cmd.Dir = dir
		cmd.Env = env
		// The process writes straight into the pipes, so its exit is
		// seen even while a background child still holds them.
		cmd.Stdout, cmd.Stderr = outW, errW
		return cmd
	}
	// A session of its own: no controlling terminal (a command that
	// asks the terminal for a password fails instead of stopping), and
	// every process the command starts can be found and killed.
	cmd, procs, err := h.start(newCmd)
	if err != nil {
		closeAll([]*os.File{outR, outW, errR, errW, script})
		return nil, err
	}
	outW.Close()
	errW.Close()
	if script != nil {
		go func() {
			// Ends when the shell has read it all, or has exited.
			_, _ = io.WriteString(script, req.Command)
			script.Close()
		}()
	}
	r := &hostRun{procs: procs, events: make(chan Event, 16), done: make(chan struct{}), gone: make(chan struct{}), reaped: make(chan struct{})}
	if req.Timeout > 0 {
		r.stopTimer = h.afterFunc(req.Timeout, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if !r.exited {
				r.timedOut.Store(true)
				_ = r.killLocked()
			}
		})
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = r.Kill()
		case <-r.done:
		}
	}()
	var readers sync.WaitGroup
	for _, p := range []struct {
		f    *os.File
		kind EventKind
	}{{outR, Stdout}, {errR, Stderr}} {
		readers.Go(func() { r.read(p.f, p.kind) })
	}
	go func() {
		err := cmd.Wait()
		// The command is over: a timeout no longer applies (background
		// children may go on).
		r.mu.Lock()
		r.exited = true
		r.mu.Unlock()
		close(r.reaped)
		if r.stopTimer != nil {
			r.stopTimer()
		}
		code := 0
		var exitErr *osexec.ExitError
		switch {
		case errors.As(err, &exitErr):
			code = exitErr.ExitCode()
			if st, ok := exitErr.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				code = 128 + int(st.Signal())
			}
		case err != nil:
			code = 1
		}
		deadline := time.Now().Add(h.linger)
		_ = outR.SetReadDeadline(deadline)
		_ = errR.SetReadDeadline(deadline)
		readers.Wait()
		outR.Close()
		errR.Close()
		// The run is over: what the command left running goes too.
		r.mu.Lock()
		_ = r.procs.kill(true)
		r.over = true
		r.mu.Unlock()
		r.procs.release()
		r.send(Event{Kind: Exit, Code: code, TimedOut: r.timedOut.Load()})
		close(r.events)
		close(r.done)
	}()
	return r, nil
}

type hostRun struct {
	mu        sync.Mutex
	exited    bool // the command's process has exited (and was reaped)
	over      bool // every process of the run was killed at its end
	procs     *runProcs
	events    chan Event
	done      chan struct{}
	stopTimer func() bool
	timedOut  atomic.Bool
	// gone is closed when the consumer stops reading events, so senders
	// never block on a run nobody reads.
	gone     chan struct{}
	goneOnce sync.Once
	// reaped is closed once the command's process has been waited for:
	// until then a killed command is a zombie, a process still there.
	reaped chan struct{}
}

func (r *hostRun) send(e Event) {
	select {
	case r.events <- e:
	case <-r.gone:
	}
}

// readBytes is the most a run reads from a pipe at once: what a Linux
// pipe holds by default, so output that fills the pipe is read in one
// call.
const readBytes = 64 << 10

func (r *hostRun) read(f *os.File, kind EventKind) {
	var buf []byte
	for {
		if buf == nil {
			buf = make([]byte, readBytes)
		}
		n, err := f.Read(buf)
		if n > 0 {
			data := buf[:n:n]
			if n >= readBytes/2 {
				// Handed over with the event, not copied: the next read
				// gets a new buffer.
				buf = nil
			} else {
				// A copy of a short read: a trickle of small reads holds
				// only what it read.
				data = bytes.Clone(data)
			}
			r.send(Event{Kind: kind, Data: data})
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			r.drain(f, kind)
		}
		if err != nil {
			return
		}
	}
}

// drain reads what the pipe already holds without waiting, at most
// drainMax bytes: the last output of the exited process, which a reader
// that was slow to run may not have read before the deadline.
func (r *hostRun) drain(f *os.File, kind EventKind) {
	conn, err := f.SyscallConn()
	if err != nil || f.SetReadDeadline(time.Time{}) != nil {
		return
	}
	for total := 0; total < drainMax; {
		buf := make([]byte, 32<<10)
		n := 0
		var rerr error
		if err := conn.Read(func(fd uintptr) bool {
			n, rerr = readNow(fd, buf)
			return true // never wait
		}); err != nil || rerr != nil || n <= 0 {
			return
		}
		r.send(Event{Kind: kind, Data: buf[:n]})
		total += n
	}
}

// Next returns the next event; cancelling ctx kills the run. A
// cancelled ctx wins over an event that is ready.
func (r *hostRun) Next(ctx context.Context) (Event, error) {
	if ctx.Err() != nil {
		return Event{}, r.cancelled(ctx)
	}
	select {
	case e, ok := <-r.events:
		if !ok {
			return Event{}, errors.New("exec: run already over")
		}
		return e, nil
	case <-ctx.Done():
		return Event{}, r.cancelled(ctx)
	}
}

// cancelled ends a run whose consumer's ctx is done: it kills the
// command and every process it started, stops the events, and returns
// ctx's error once the command's process has been reaped (at most
// killWait later), so that no process of the run, not even a zombie,
// outlives the call that cancelled it.
func (r *hostRun) cancelled(ctx context.Context) error {
	_ = r.Kill()
	r.goneOnce.Do(func() { close(r.gone) })
	reap := time.NewTimer(killWait)
	defer reap.Stop()
	select {
	case <-r.reaped:
	case <-reap.C:
	}
	return ctx.Err()
}

// Kill kills the command and every process it started (see
// Confinement for what is found where), and returns once they are gone.
func (r *hostRun) Kill() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.killLocked()
}

func (r *hostRun) killLocked() error {
	if r.over {
		return nil
	}
	return r.procs.kill(r.exited)
}

// checkEnv refuses names the environment cannot hold: empty, or with
// "=" or NUL in them.
func checkEnv(env map[string]string) error {
	for name := range env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return errno.New(errno.EINVAL, toolspec.MsgExecBadEnvName(name), "")
		}
	}
	return nil
}
