package execbackend

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Sandbox configures the sandbox that a Host or Mirror backend runs each
// command in (HostOptions.Sandbox): bubblewrap (bwrap, the Debian,
// Ubuntu and Fedora package "bubblewrap"), on Linux only.
//
// Each command gets new PID, IPC, UTS, network and mount namespaces and,
// when this process is not root, a new user namespace (in which the
// command can make no further ones). Inside, the workspace directory
// (HostOptions.Dir, "/workspace" by default: the hostfs directory
// mounted there, or a Mirror's copy of it) is bound read-write at that
// same path, so `pwd` prints the workspace path the model knows; /usr and
// the /bin, /sbin and /lib* links or directories are bound read-only,
// with a few /etc entries the system's programs read (the dynamic
// linker's cache, alternatives, time zone, certificates, name service
// switch; resolv.conf and hosts when Network is set) and a /etc/passwd
// and /etc/group that name only root and the command's user; /tmp is a
// private tmpfs (/var/tmp leads there); /dev, read-only, holds only the
// null, zero, random, tty and pty devices and /dev/shm, a private tmpfs
// as /tmp is; /proc is the sandbox's own. Nothing else
// of the host is there: no home directory, no other users' files, no
// sockets of the host outside the workspace, and the root directory is
// read-only. Of this process's
// descriptors the command gets its stdin, stdout and stderr only: before
// bwrap starts, every descriptor from 3 on is marked close-on-exec (one
// inherited open from the program that started this process included).
//
// The command's processes live in its PID namespace, whose first
// process is bwrap's: when the command exits, is killed (timeout,
// cancel, Run.Kill) or the backend's process dies (--die-with-parent),
// the kernel kills every process left in it, so nothing the command
// started outlives it (a fork bomb, setsid, nohup, double forks alike).
// Unlike Host, a background child does not get the linger to write more.
//
// When this process runs as root, bwrap sets up the namespaces with
// root's rights (no user namespace is needed) and the command then runs
// as UID and GID, an unprivileged user, with no capabilities: the
// workspace directory must be writable by that user (NewHost checks that
// it owns the directory, or may write to it by its mode); a Mirror gives
// its copy to that user before each command.
//
// Of this process's descriptors, only those the backend hands over pass
// into the sandbox (the command's standard input, output and error, and
// the pipes bwrap and the shell read their setup from): when a command
// starts, every descriptor of this process from 3 on is made
// close-on-exec, so one it inherited without that flag (from its
// parent) is not passed to any command it starts from then on, in the
// sandbox or not.
//
// Limits caps each command's processes (prlimit inside the sandbox);
// the run's pids cgroup (see Confinement) holds the command's tasks to
// Limits.Processes as well, where one can be made.
//
// A seccomp filter (built with github.com/elastic/go-seccomp-bpf) makes
// these system calls fail with ENOSYS: the keyring ones (add_key,
// request_key, keyctl), since keyrings are in no namespace, so a command
// would otherwise hold this process's session keyring and read its keys,
// and as root's unprivileged user share that user's keyring with every
// other sandbox; unshare and clone asking for a new user namespace, and
// clone3 (whose flags a filter cannot read; the C library falls back to
// clone), so that no command makes a user namespace of its own, in which
// it would reach kernel code that otherwise needs privileges; and every
// system call of another ABI than the machine's own (i386 and x32 on
// amd64, 32-bit arm on arm64: 32-bit programs do not run). Where that
// package has no system call table for the architecture, NewHost fails
// with ErrSandboxUnavailable.
//
// What the sandbox does not protect against: the kernel itself (its
// other system calls are not filtered; a kernel bug reached from them is
// reached from the sandbox), the workspace (the command
// may change or delete anything in it), use of the CPU and memory within
// the limits, and, with Network set, anything the host's network
// reaches (including the host's loopback services and the abstract Unix
// sockets of its network namespace); without it too, a Unix socket a
// host program listens on inside the workspace directory, as the
// network namespace does not cover sockets bound to a path.
type Sandbox struct {
	// Network keeps the host's network in the sandbox (and binds
	// /etc/resolv.conf and /etc/hosts). Without it the sandbox has a
	// network namespace of its own with nothing but a loopback device of
	// its own: no connection leaves it, to the host's loopback neither.
	Network bool
	// ReadOnly are more host paths bound read-only at the same path in
	// the sandbox (a toolchain in /opt, a module cache), over the
	// sandbox's own /tmp and /var too. A path that is not there is left
	// out.
	ReadOnly []string
	// Limits are the resource limits of each command.
	Limits SandboxLimits
	// UID and GID are the host user and group that commands run as when
	// this process runs as root; 0 picks 65534 (nobody and nogroup on
	// Debian). Unused when this process is not root: commands then run
	// as its user.
	UID, GID int
	// Bwrap is the bubblewrap program; "bwrap" on PATH when empty.
	Bwrap string
	// TmpBytes bounds the private /tmp and, apart, /dev/shm (tmpfs, held
	// in memory), in bytes each; 0 picks DefaultSandboxTmpBytes, negative leaves it to the
	// kernel's default (half of the memory).
	TmpBytes int64
}

// SandboxLimits are the resource limits (setrlimit) of each command in
// the sandbox, set by prlimit inside it before the shell starts and
// inherited by every process the command starts. Zero picks the
// default; a negative value means no limit.
type SandboxLimits struct {
	// Processes caps the processes and threads of the command
	// (RLIMIT_NPROC, counted in the sandbox's user namespace, and the
	// run's pids cgroup where one is made); default 1024. As root,
	// where RLIMIT_NPROC would count every process of UID on the host
	// (every sandbox's), the cgroup alone holds it where runs get one.
	Processes int
	// CPUSeconds caps the CPU time of each process, in seconds
	// (RLIMIT_CPU: SIGXCPU, then SIGKILL); default 600.
	CPUSeconds int
	// FileBytes caps the size of a file a process writes, in bytes
	// (RLIMIT_FSIZE: the write fails with EFBIG and SIGXFSZ); default
	// 4 GiB.
	FileBytes int64
	// AddressSpaceBytes caps the virtual memory of each process, in
	// bytes (RLIMIT_AS: an allocation past it fails); default 16 GiB.
	AddressSpaceBytes int64
}

// The defaults of SandboxLimits and Sandbox.
const (
	DefaultSandboxProcesses         = 1024
	DefaultSandboxCPUSeconds        = 600
	DefaultSandboxFileBytes         = 4 << 30
	DefaultSandboxAddressSpaceBytes = 16 << 30
	DefaultSandboxTmpBytes          = 1 << 30
	// DefaultSandboxUser is the uid and gid commands run as when this
	// process is root and Sandbox.UID or GID is 0.
	DefaultSandboxUser = 65534
)

// ErrSandboxUnavailable is wrapped by the error NewHost and NewMirror
// return when the sandbox cannot run on this machine: bwrap is not
// installed, user namespaces are not allowed, or the system is not
// Linux. Nothing falls back to running commands without the sandbox.
var ErrSandboxUnavailable = errors.New("exec: the sandbox cannot run here")

// sandboxUser is the name of the command's user in the sandbox's
// /etc/passwd and /etc/group.
const sandboxUser = "sandbox"

// RootUser is the host user and group the commands run as when this
// process is root: UID and GID, DefaultSandboxUser for either that is 0
// or less.
func (s *Sandbox) RootUser() (uid, gid int) {
	uid, gid = s.UID, s.GID
	if uid <= 0 {
		uid = DefaultSandboxUser
	}
	if gid <= 0 {
		gid = DefaultSandboxUser
	}
	return uid, gid
}

// withDefaults is l with its zero fields set to the defaults.
func (l SandboxLimits) withDefaults() SandboxLimits {
	if l.Processes == 0 {
		l.Processes = DefaultSandboxProcesses
	}
	if l.CPUSeconds == 0 {
		l.CPUSeconds = DefaultSandboxCPUSeconds
	}
	if l.FileBytes == 0 {
		l.FileBytes = DefaultSandboxFileBytes
	}
	if l.AddressSpaceBytes == 0 {
		l.AddressSpaceBytes = DefaultSandboxAddressSpaceBytes
	}
	return l
}

// prlimitArgs are prlimit's options that set l (defaults applied),
// the process limit only when nproc is set.
func (l SandboxLimits) prlimitArgs(nproc bool) []string {
	l = l.withDefaults()
	v := func(n int64) string {
		if n < 0 {
			return "unlimited"
		}
		return strconv.FormatInt(n, 10)
	}
	a := []string{
		"--cpu=" + v(int64(l.CPUSeconds)),
		"--fsize=" + v(l.FileBytes),
		"--as=" + v(l.AddressSpaceBytes),
	}
	if nproc {
		a = append(a, "--nproc="+v(int64(l.Processes)))
	}
	return a
}

// sandboxUnavailable is an ErrSandboxUnavailable error with a reason.
func sandboxUnavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSandboxUnavailable, fmt.Sprintf(format, args...))
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
