package execbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sandboxer builds the bwrap command line of each run.
type sandboxer struct {
	bwrap, prlimit, setpriv, env string
	// asRoot: this process is root, so bwrap sets up the namespaces
	// with root's rights and setpriv drops to uid and gid.
	asRoot   bool
	uid, gid int // the command's host user and group
	dir      string
	// fixed are the arguments before the workspace's bind, the same for
	// every run.
	fixed []string
	// tail are the arguments between "--" and the shell.
	tail           []string
	passwd, groups []byte
	// path is the commands' PATH: this process's, less the directories
	// the sandbox does not show.
	path string
	// seccomp is the system call filter (sandboxFilter).
	seccomp []byte
}

// systemLinks are the top-level names of the system that the sandbox
// shows as they are on the host: a symbolic link (merged /usr) made
// again, a directory bound read-only.
var systemLinks = []string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"}

// etcEntries are the /etc entries bound read-only into the sandbox,
// where the host has them: what the dynamic linker, the C library,
// TLS clients and common tools read.
var etcEntries = []string{
	"alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
	"nsswitch.conf", "ssl", "ca-certificates", "ca-certificates.conf", "pki", "crypto-policies",
	"mime.types", "services", "protocols", "inputrc", "os-release", "debian_version", "terminfo",
	"magic", "magic.mime",
}

// etcNetwork are the /etc entries bound when the sandbox has the
// network.
var etcNetwork = []string{"resolv.conf", "hosts", "host.conf", "gai.conf"}

// reserved are the sandbox paths the workspace may not be bound at, nor
// above nor below.
var reserved = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/dev", "/tmp", "/var"}

func sandboxSupported() error { return nil }

// newSandboxer checks that the sandbox can run here (bwrap found and
// started once) and prepares its command lines. dir is the workspace
// directory (bound at the same path); shell runs the commands.
func newSandboxer(opts *Sandbox, dir, shell string, procs *hostProcs) (*sandboxer, error) {
	if err := checkSandboxDir(dir); err != nil {
		return nil, err
	}
	s := &sandboxer{dir: dir, asRoot: os.Geteuid() == 0}
	bwrap := opts.Bwrap
	if bwrap == "" {
		bwrap = "bwrap"
	}
	var err error
	if s.bwrap, err = osexec.LookPath(bwrap); err != nil {
		if opts.Bwrap != "" {
			return nil, sandboxUnavailable("Sandbox.Bwrap %s cannot be run: %v", bwrap, err)
		}
		return nil, sandboxUnavailable("bubblewrap (bwrap) is not installed: install the bubblewrap package (apt-get install bubblewrap, dnf install bubblewrap): %v", err)
	}
	if s.prlimit, err = osexec.LookPath("prlimit"); err != nil {
		return nil, sandboxUnavailable("prlimit, which sets the sandbox's limits, is not installed: install util-linux: %v", err)
	}
	if s.env, err = osexec.LookPath("env"); err != nil {
		return nil, sandboxUnavailable("env, which gives the command its environment in the sandbox, is not installed: install coreutils: %v", err)
	}
	for _, p := range []string{s.prlimit, s.env, shell} {
		if err := visibleInSandbox(p); err != nil {
			return nil, err
		}
	}
	s.uid, s.gid = os.Getuid(), os.Getgid()
	if s.asRoot {
		if s.setpriv, err = osexec.LookPath("setpriv"); err != nil {
			return nil, sandboxUnavailable("setpriv, which runs the commands as an unprivileged user when this process is root, is not installed: install util-linux: %v", err)
		}
		if err := visibleInSandbox(s.setpriv); err != nil {
			return nil, err
		}
		s.uid, s.gid = opts.RootUser()
	}
	s.path = sandboxPath(os.Getenv("PATH"), opts.ReadOnly)
	s.passwd = fmt.Appendf(nil, "root:x:0:0:root:/root:/usr/sbin/nologin\n%s:x:%d:%d:%s:/tmp:%s\n", sandboxUser, s.uid, s.gid, sandboxUser, shell)
	s.groups = fmt.Appendf(nil, "root:x:0:\n%s:x:%d:\n", sandboxUser, s.gid)
	if s.seccomp, err = sandboxFilter(); err != nil {
		return nil, err
	}
	s.fixed = s.fixedArgs(opts)
	nproc := true
	if s.asRoot {
		// Without a user namespace RLIMIT_NPROC counts the processes of
		// the command's user on the whole host, every other sandbox's
		// included: one run at its limit would leave the others unable
		// to fork. Where each run gets a pids cgroup, that alone holds
		// the run's processes; a run whose cgroup cannot be made gets the
		// limit as it starts (hostProcs.uncapped).
		procs.init()
		if procs.parent != nil && procs.parent.Pids {
			nproc = false
			if n := opts.Limits.withDefaults().Processes; n > 0 {
				procs.uncapped = uint64(n)
			}
		}
	}
	s.tail = s.tailArgs(opts.Limits, nproc)
	if err := s.probe(shell); err != nil {
		return nil, err
	}
	return s, nil
}

// checkSandboxDir refuses a workspace directory that would hide or sit
// inside the sandbox's system directories.
func checkSandboxDir(dir string) error {
	if !path.IsAbs(dir) || path.Clean(dir) != dir || dir == "/" {
		return fmt.Errorf("exec: the sandbox binds the workspace directory at the same path, which must be an absolute directory below /, not %q", dir)
	}
	for _, r := range reserved {
		if _, ok := within(r, dir); ok {
			return fmt.Errorf("exec: the sandbox cannot bind the workspace directory at %s, inside the system's %s", dir, r)
		}
		if _, ok := within(dir, r); ok {
			return fmt.Errorf("exec: the sandbox cannot bind the workspace directory at %s, over the system's %s", dir, r)
		}
	}
	return nil
}

// visibleInSandbox checks that the program at p is inside what the
// sandbox shows of the host (/usr, or a link into it).
func visibleInSandbox(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	if _, ok := within("/usr", real); !ok {
		return sandboxUnavailable("%s (%s) is outside /usr, which is all of the system the sandbox shows", p, real)
	}
	return nil
}

func (s *sandboxer) fixedArgs(opts *Sandbox) []string {
	a := []string{"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--hostname", sandboxUser}
	if !opts.Network {
		a = append(a, "--unshare-net")
	}
	if s.asRoot {
		// bwrap sets up with root's rights and keeps only what setpriv
		// needs to change to the command's user; setpriv drops them.
		a = append(a, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
	} else {
		a = append(a, "--unshare-user", "--disable-userns")
	}
	a = append(a, "--ro-bind", "/usr", "/usr")
	for _, name := range systemLinks {
		p := "/" + name
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(p); err == nil {
				a = append(a, "--symlink", target, p)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", p, p)
		}
	}
	a = append(a, "--perms", "0755", "--dir", "/etc")
	etc := etcEntries
	if opts.Network {
		etc = append(etc[:len(etc):len(etc)], etcNetwork...)
	}
	for _, name := range etc {
		p := "/etc/" + name
		if _, err := os.Stat(p); err == nil {
			a = append(a, "--ro-bind", p, p)
		}
	}
	// bwrap's /dev is a tmpfs without a bound, which a command that runs
	// as the user namespace's owner (this process not root) could fill:
	// it is made read-only, and /dev/shm, for POSIX shared memory, is a
	// tmpfs of the same bound as /tmp that the command may write.
	tmpfs := func(at string) {
		a = append(a, "--perms", "1777")
		if tmp := opts.TmpBytes; tmp >= 0 {
			if tmp == 0 {
				tmp = DefaultSandboxTmpBytes
			}
			a = append(a, "--size", strconv.FormatInt(tmp, 10))
		}
		a = append(a, "--tmpfs", at)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev")
	tmpfs("/dev/shm")
	a = append(a, "--remount-ro", "/dev")
	tmpfs("/tmp")
	a = append(a, "--perms", "0755", "--dir", "/var", "--symlink", "../tmp", "/var/tmp")
	// After the private /tmp, which would hide a path below it. The
	// directories above each are made open to all (bwrap would make them
	// as the host has them, and the command's user could not pass a
	// 0700 /root to a module cache below it); they hold nothing else.
	made := map[string]bool{}
	for _, p := range opts.ReadOnly {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var above []string
		for d := filepath.Dir(p); d != "/" && !made[d]; d = filepath.Dir(d) {
			made[d] = true
			above = append(above, d)
		}
		for _, d := range slices.Backward(above) {
			a = append(a, "--perms", "0755", "--dir", d)
		}
		a = append(a, "--ro-bind", p, p)
	}
	return a
}

func (s *sandboxer) tailArgs(l SandboxLimits, nproc bool) []string {
	var a []string
	if s.asRoot {
		a = append(a, s.setpriv, "--reuid", strconv.Itoa(s.uid), "--regid", strconv.Itoa(s.gid),
			"--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--")
	}
	a = append(a, s.prlimit)
	a = append(a, l.prlimitArgs(nproc)...)
	// env adds the shell's variables to what bwrap was started with:
	// the run's mark (RunEnv) alone.
	return append(a, "--", s.env, "--")
}

// command returns bwrap's arguments for a run of shell with shellArgs
// and the environment env (NAME=value entries), the workspace's host
// directory bound at s.dir and inside as the working directory, and the
// files to hand over from descriptor firstFD on (the sandbox's
// /etc/passwd and /etc/group, and the seccomp filter), which the caller
// closes once the command started.
//
// env is given to the shell alone, by env as the last step: bwrap
// (outside the sandbox, as root when this process is root), setpriv
// (with the rights to change user) and prlimit must run with none of
// the call's variables, or a LD_PRELOAD or LD_LIBRARY_PATH naming a
// library the command built in the workspace would run its code in
// them. The caller starts bwrap with an environment of its own.
func (s *sandboxer) command(bind, inside string, firstFD int, shell string, shellArgs, env []string) ([]string, []*os.File, error) {
	inheritNothing()
	var files []*os.File
	for _, data := range [][]byte{s.passwd, s.groups, s.seccomp} {
		if data == nil {
			continue
		}
		f, err := dataPipe(data)
		if err != nil {
			closeAll(files)
			return nil, nil, err
		}
		files = append(files, f)
	}
	a := make([]string, 0, len(s.fixed)+len(s.tail)+len(shellArgs)+18)
	a = append(a, s.fixed...)
	a = append(a,
		"--perms", "0644", "--ro-bind-data", strconv.Itoa(firstFD), "/etc/passwd",
		"--perms", "0644", "--ro-bind-data", strconv.Itoa(firstFD+1), "/etc/group")
	if s.seccomp != nil {
		a = append(a, "--seccomp", strconv.Itoa(firstFD+2))
	}
	a = append(a, "--bind", bind, s.dir, "--chdir", inside, "--remount-ro", "/", "--")
	a = append(a, s.tail...)
	a = append(a, env...)
	a = append(a, shell)
	return append(a, shellArgs...), files, nil
}

// inheritNothing marks every descriptor of this process from 3 on
// close-on-exec, so that bwrap, and so the command, get only those
// handed over (ExtraFiles): Go opens its own so, but one this process
// inherited open (a socket or pipe of the program that started it) or
// that C code opened would pass into the sandbox.
func inheritNothing() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one at a time.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
		}
	}
}

// dataPipe is the read end of a pipe that holds data (less than a pipe
// holds) and is closed for writing.
func dataPipe(data []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// probeWait bounds the sandbox's trial start in newSandboxer.
const probeWait = 30 * time.Second

// probe starts the sandbox once, on an empty directory, and says why it
// cannot start when it cannot.
func (s *sandboxer) probe(shell string) error {
	empty, err := os.MkdirTemp("", "agenttools-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.Remove(empty)
	args, files, err := s.command(empty, s.dir, 3, shell, []string{"-c", "exit 0"}, nil)
	if err != nil {
		return err
	}
	defer closeAll(files)
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	defer cancel()
	cmd := osexec.CommandContext(ctx, s.bwrap, args...)
	cmd.ExtraFiles = files
	cmd.Env = []string{}
	cmd.Dir = "/"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = err.Error()
	}
	if !s.asRoot && namespaceRefused(msg) {
		return sandboxUnavailable("bwrap cannot make a user namespace (%s): this system does not let unprivileged users make them. Allow them (sysctl user.max_user_namespaces above 0; kernel.unprivileged_userns_clone=1 where the kernel has it; on Ubuntu 24.04 and later an AppArmor profile that lets bwrap use them, or kernel.apparmor_restrict_unprivileged_userns=0), or install bwrap setuid root", msg)
	}
	return sandboxUnavailable("bwrap failed to start a sandbox: %s", msg)
}

// namespaceRefused says whether bwrap's message is about making a
// namespace.
func namespaceRefused(msg string) bool {
	// bwrap says "No permissions to create new namespace", "Creating
	// new namespace failed", "setting up uid map: ..." or "unshare
	// failed: ..." when the kernel refuses.
	for _, s := range []string{"namespace", "uid map", "gid map", "uid_map", "unshare failed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// checkWritable checks that the command's user may write to dir (the
// workspace's host directory) when this process is root: it owns it, or
// its mode lets its group or everyone write.
func (s *sandboxer) checkWritable(dir string) error {
	if !s.asRoot {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	mode := fi.Mode().Perm()
	if int(st.Uid) == s.uid || mode&0o002 != 0 || int(st.Gid) == s.gid && mode&0o020 != 0 {
		return nil
	}
	return fmt.Errorf("exec: this process is root, so the sandbox runs commands as uid %d, gid %d, who may not write to the workspace directory %s (owner %d, mode %o): give it to them (chown -R %d:%d %s) or run the commands as its owner (Sandbox.UID and GID; agenttools --exec-user)",
		s.uid, s.gid, dir, st.Uid, mode, s.uid, s.gid, dir)
}

// giveTree makes the command's user (when this process is root) the
// owner of every file in the mirror's copy dir, so that the command may
// change it, and calls given with the path of each file it gave.
func (s *sandboxer) giveTree(dir string, given func(path string)) error {
	if !s.asRoot {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != s.uid || int(st.Gid) != s.gid) {
			if err := os.Lchown(p, s.uid, s.gid); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			given(p)
		}
		return nil
	})
}

// sandboxPath is the entries of the PATH list that the sandbox shows
// (below /usr, a link into it, or below a ReadOnly path), in order:
// the others would only tell the command the host's directories (a home
// directory's name). With none left, the system's usual ones.
func sandboxPath(list string, readOnly []string) string {
	var keep []string
	for _, dir := range filepath.SplitList(list) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || !filepath.IsAbs(dir) || slices.Contains(keep, dir) {
			continue
		}
		shown := false
		for _, top := range append([]string{"/usr"}, readOnly...) {
			if _, ok := within(filepath.Clean(top), real); ok {
				shown = true
			}
		}
		if shown {
			keep = append(keep, dir)
		}
	}
	if len(keep) == 0 {
		return "/usr/local/bin:/usr/bin:/bin"
	}
	return strings.Join(keep, ":")
}
