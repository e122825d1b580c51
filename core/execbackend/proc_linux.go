package execbackend

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/internal/cgroup"
)

// toolReserve is how many of the user's process slots (threads count)
// a command's process limit leaves to this process.
const toolReserve = 64

// hostProcs is what a Host found out, once, about how it can hold its
// commands' processes.
type hostProcs struct {
	once     sync.Once
	parent   *cgroup.Parent // where runs get a cgroup; nil: none
	nproc    uint64         // RLIMIT_NPROC for commands by the user's limit; 0: left as it is
	holds    bool           // RLIMIT_NPROC holds this process's user
	maxTasks int            // HostOptions.MaxTasks
	seq      atomic.Int64
	// ungated is set once ptrace was refused: a command is then confined
	// just after it started instead of before it ran anything.
	ungated atomic.Bool
	// uncapped is the RLIMIT_NPROC of a run that no capped cgroup holds,
	// when lower than nproc (the sandbox as root: prlimit leaves the
	// limit to the cgroup); 0: none.
	uncapped uint64
}

func (c *hostProcs) init() {
	c.once.Do(func() {
		if parents := cgroup.Find(); len(parents) > 0 {
			c.parent = &parents[0]
			removeStale(c.parent.Dir)
		}
		var lim unix.Rlimit
		// Root is not held by the limit; a user is, and shares it with
		// every process of theirs.
		c.holds = limitHolds()
		if c.holds && unix.Getrlimit(unix.RLIMIT_NPROC, &lim) == nil && lim.Cur != unix.RLIM_INFINITY {
			c.nproc = lim.Cur - min(toolReserve, lim.Cur/2)
		}
	})
}

// limit is the RLIMIT_NPROC for a run starting now; 0: left as it is.
// It is the user's limit less the reserve and, for a run without a
// capped cgroup of its own (capped false), no more than leaves the
// reserve free in the tightest pids cgroup this process is in (a
// container's pids limit, a systemd unit's TasksMax): the user's tasks
// in that cgroup now plus its headroom, less the reserve. The user's
// tasks elsewhere count against the limit too (the kernel counts all of
// them), so they take room from the command, never from the reserve,
// even if they end during the run. Root is held by neither.
func (c *hostProcs) limit(capped bool) uint64 {
	n := c.nproc
	if !capped && c.uncapped > 0 && (n == 0 || c.uncapped < n) {
		n = c.uncapped
	}
	if capped || !c.holds {
		return n
	}
	room, at := cgroup.Tightest()
	if room < 0 {
		return n
	}
	tasks := userTasks(os.Getuid(), at)
	if tasks < 0 {
		return n
	}
	m := uint64(max(tasks+room-min(toolReserve, room/2), 1))
	if n == 0 || m < n {
		n = m
	}
	return n
}

// limitHolds says whether RLIMIT_NPROC holds this process's user: the
// kernel lets a process of root (real uid 0), or one with
// CAP_SYS_RESOURCE or CAP_SYS_ADMIN, fork past it.
func limitHolds() bool {
	if os.Getuid() == 0 || os.Geteuid() == 0 {
		return false
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err != nil || caps&(1<<unix.CAP_SYS_RESOURCE|1<<unix.CAP_SYS_ADMIN) == 0
		}
	}
	return true
}

// userTasks counts the tasks (threads included) in the cgroup in (or
// below it) of the processes whose real uid is uid, which RLIMIT_NPROC
// holds against that user, from /proc; -1 when /proc cannot be read.
func userTasks(uid int, in cgroup.Scope) int {
	dir, err := os.Open("/proc")
	if err != nil {
		return -1
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return -1
	}
	want := strconv.Itoa(uid)
	n := 0
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		status, err := os.ReadFile("/proc/" + name + "/status")
		if err != nil {
			continue // gone
		}
		mine, threads := false, 0
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				f := strings.Fields(v)
				mine = len(f) > 0 && f[0] == want
			} else if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(v))
				break
			}
		}
		if mine && in.Holds(name) {
			n += max(threads, 1)
		}
	}
	return n
}

// removeStale removes the empty groups that runs of processes now gone
// left in dir.
func removeStale(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "agenttools-")
		if !ok || !e.IsDir() {
			continue
		}
		owner, _, _ := strings.Cut(rest, "-")
		if pid, err := strconv.Atoi(owner); err == nil && syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = syscall.Rmdir(filepath.Join(dir, e.Name()))
		}
	}
}

// budget is the pids.max of a run's cgroup: HostOptions.MaxTasks, else
// half of what the system's process table holds, less what the cgroups
// above allow (minus a reserve for this process) and the user's limit.
func (c *hostProcs) budget() int {
	if c.maxTasks > 0 {
		return c.maxTasks
	}
	n := 1 << 22
	for _, f := range []string{"/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max"} {
		if data, err := os.ReadFile(f); err == nil {
			if v, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				n = min(n, v/2)
			}
		}
	}
	if avail := cgroup.Available(c.parent.Dir); avail >= 0 {
		n = min(n, max(avail-toolReserve, avail/2))
	}
	if c.nproc > 0 {
		n = min(n, int(c.nproc))
	}
	return max(n, 1)
}

func (h *Host) confinement() Confinement {
	c := &h.procs
	c.init()
	conf := Confinement{Kind: "session"}
	capped := false
	if c.parent != nil {
		conf.Kind = fmt.Sprintf("cgroup v%d", c.parent.Version)
		if c.parent.Pids {
			conf.MaxTasks = c.budget()
			capped = true
		}
	}
	conf.UserProcs = c.limit(capped)
	conf.Unbounded = !capped && !c.holds && cgroup.Headroom() >= 0
	return conf
}

func hostSupported(string) error { return nil }

// runProcs are the processes of one run: the shell, leader of a session
// of its own, and all it started.
type runProcs struct {
	pid   int
	group *cgroup.Group // nil: the session and its descendants
	mark  []byte        // the run's RunEnv variable, as environ holds it
}

// runMark is a fresh RunEnv value: 128 random bits.
func runMark() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// start starts the command newCmd makes, in a session of its own, and
// confines it before it runs any of the command: into a cgroup of its
// own and under a process limit below this process's, where there are.
// The shell is held at its exec (ptrace) while that is done; where ptrace
// is refused, it is done just after the start.
func (h *Host) start(newCmd func() *osexec.Cmd) (*osexec.Cmd, *runProcs, error) {
	c := &h.procs
	c.init()
	var group *cgroup.Group
	if c.parent != nil {
		g, err := c.parent.New(fmt.Sprintf("agenttools-%d-%d", os.Getpid(), c.seq.Add(1)), c.budget())
		if err == nil {
			group = g
		}
	}
	// The limit is counted before the shell starts: it is one of the
	// tasks the limit lets the run have.
	nproc := c.limit(group != nil && group.Capped())
	confine := func(pid int) {
		if group != nil && group.Add(pid) != nil {
			_ = group.Remove()
			group = nil
			nproc = c.limit(false)
		}
		if nproc > 0 {
			_ = unix.Prlimit(pid, unix.RLIMIT_NPROC, &unix.Rlimit{Cur: nproc, Max: nproc}, nil)
		}
	}
	mark := RunEnv + "=" + runMark()
	marked := func() *osexec.Cmd {
		cmd := newCmd()
		cmd.Env = append(cmd.Env, mark)
		return cmd
	}
	gated := (group != nil || nproc > 0) && !c.ungated.Load()
	cmd, err := startCmd(marked, gated, confine)
	if err != nil && gated && errors.Is(err, syscall.EPERM) {
		if cmd, err = startCmd(marked, false, confine); err == nil {
			c.ungated.Store(true)
		}
	}
	if err != nil {
		if group != nil {
			_ = group.Remove()
		}
		return nil, nil, err
	}
	return cmd, &runProcs{pid: cmd.Process.Pid, group: group, mark: []byte(mark)}, nil
}

// startCmd starts a command in a session of its own and calls confine
// with its pid: gated, while it is stopped at its exec, else just after
// it started.
func startCmd(newCmd func() *osexec.Cmd, gated bool, confine func(pid int)) (*osexec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Ptrace: gated}
	if !gated {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		confine(cmd.Process.Pid)
		return cmd, nil
	}
	// The tracer is this thread: it waits for the stop and lets go.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	var st syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &st, syscall.WALL, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if st.Stopped() {
		confine(pid)
		_ = syscall.PtraceDetach(pid)
	}
	return cmd, nil
}

// kill kills every process of the run and returns once they are gone
// (or killWait has passed). exited says the shell was reaped: its pid
// may be another process's by now.
func (p *runProcs) kill(exited bool) error {
	if p.group != nil {
		return p.group.Kill(os.Getpid(), time.Now().Add(killWait))
	}
	if exited {
		if left, unsure := runTree(p.pid, p.mark); len(left) == 0 && len(unsure) == 0 {
			return nil
		}
	}
	deadline := time.Now().Add(killWait)
	// A killed process stops showing its environment (and so the run's
	// mark) as it starts to exit, before it is gone: each one killed is
	// waited for by its pid and start time. A process in the middle of
	// an exec shows no environment either, for a moment: while one of
	// the user's processes shows none, the run is looked at again, for
	// up to settleWait.
	killed := map[int]string{}
	var unsureSince time.Time
	for {
		// The group first, at once: a fork bomb without job control is
		// all in it.
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		left, unsure := runTree(p.pid, p.mark)
		for _, pid := range left {
			if _, ok := killed[pid]; !ok {
				killed[pid], _ = procStart(pid)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(left) == 0 {
			for pid, start := range killed {
				if now, live := procStart(pid); !live || now != start {
					delete(killed, pid)
				}
			}
			switch {
			case len(unsure) == 0:
				unsureSince = time.Time{}
			case unsureSince.IsZero():
				unsureSince = time.Now()
			}
			if len(killed) == 0 && (len(unsure) == 0 || time.Since(unsureSince) > settleWait) {
				return nil
			}
			runtime.Gosched()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("exec: %d processes of the command outlived the kill", max(len(left), len(killed)))
		}
	}
}

// settleWait bounds how long killing a run without a cgroup waits for a
// process of the user that shows no environment (see runProcs.kill) to
// show one: an exec shows it again within microseconds; a process
// started with an empty environment never does.
const settleWait = 50 * time.Millisecond

// procStart is the start time of process pid (in clock ticks after boot,
// as /proc/PID/stat gives it), which tells it from a later process with
// the same pid, and whether it is live: there, and neither a zombie nor
// dead.
func procStart(pid int) (start string, live bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	s := string(stat)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return "", false
	}
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime: the 20th field after the command.
	fields := strings.Fields(s[end+1:])
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return "", false
	}
	return fields[19], true
}

// release removes the run's cgroup; its processes are gone by then.
func (p *runProcs) release() {
	if p.group == nil {
		return
	}
	deadline := time.Now().Add(killWait)
	for p.group.Remove() != nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the last exits are still being accounted
	}
}

// runTree lists the live processes of session sid, those whose
// environment holds mark (a NAME=value variable), and every live process
// descended from one of them, which finds a child that made a session of
// its own (setsid) while its parent lives, and one whose parent is gone
// that kept the environment it was given. From /proc; an environment
// this process may not read (another user's) is passed over.
//
// unsure lists the live processes of this user outside the tree that
// show no environment at all: one in the middle of an exec shows none
// for a moment, so it may be the run's. Kernel threads and exiting
// processes are not listed.
func runTree(sid int, mark []byte) (tree, unsure []int) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	self := os.Getpid()
	children := map[int][]int{}
	var queue []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces
		// and parentheses, so read after the last ')'.
		s := string(stat)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 7 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], pid)
		if session, err := strconv.Atoi(fields[3]); err == nil && session == sid {
			queue = append(queue, pid)
			continue
		}
		switch hasVariable(name, mark) {
		case environHolds:
			queue = append(queue, pid)
		case environEmpty:
			if flags, err := strconv.ParseUint(fields[6], 10, 64); err == nil && flags&(pfKthread|pfExiting) == 0 {
				unsure = append(unsure, pid)
			}
		}
	}
	seen := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		tree = append(tree, pid)
		queue = append(queue, children[pid]...)
	}
	unsure = slices.DeleteFunc(unsure, func(pid int) bool { return seen[pid] })
	return tree, unsure
}

// Process flags of /proc/PID/stat (the kernel's PF_ bits).
const (
	pfExiting = 0x4
	pfKthread = 0x200000
)

// What a process's environment says of a variable.
const (
	environLacks = iota // readable, without the variable (or not readable: another user's)
	environHolds        // holds it
	environEmpty        // readable and empty
)

// hasVariable says whether the environment process pid started with
// (its /proc environ: NAME=value strings, each ended by a NUL) holds
// variable, a whole NAME=value: environHolds, environLacks, or
// environEmpty when it is readable and empty.
func hasVariable(pid string, variable []byte) int {
	if len(variable) == 0 {
		return environLacks
	}
	environ, err := os.ReadFile("/proc/" + pid + "/environ")
	switch {
	case err != nil:
		return environLacks
	case len(environ) == 0:
		return environEmpty
	}
	for entry := range bytes.SplitSeq(environ, []byte{0}) {
		if bytes.Equal(entry, variable) {
			return environHolds
		}
	}
	return environLacks
}

// readNow reads what descriptor fd holds without waiting.
func readNow(fd uintptr, buf []byte) (int, error) { return syscall.Read(int(fd), buf) }
