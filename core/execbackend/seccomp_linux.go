package execbackend

import (
	"encoding/binary"
	"runtime"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refusedCalls are the system calls the sandbox refuses outright, with
// ENOSYS as a kernel without them would: the kernel's keyrings (add_key,
// request_key, keyctl) are in no namespace bwrap makes, so a command
// would inherit this process's session keyring and read the keys in it,
// and as root's unprivileged user share that user's keyring with every
// other sandbox; clone3 passes its flags in memory a filter cannot read,
// so it is refused whole (the C library then falls back to clone, whose
// flags are checked below).
var refusedCalls = []string{"add_key", "request_key", "keyctl", "clone3"}

// newUserCalls are the system calls that make a user namespace when
// their first argument (flags) holds CLONE_NEWUSER: refused too, so that
// a command cannot make one, in which it would hold every capability
// over the namespaces it makes next and reach the kernel code that only
// such capabilities reach (bwrap's --disable-userns does the same only
// where it makes a user namespace itself, which it does not as root).
var newUserCalls = []string{"unshare", "clone"}

// sandboxFilter is the seccomp program bwrap installs before the command
// starts (--seccomp: struct sock_filter entries in this machine's byte
// order): refusedCalls, and newUserCalls with CLONE_NEWUSER, fail with
// ENOSYS, as does every system call of another ABI than this machine's
// own (i386 on amd64, x32), which would otherwise take numbers the
// filter does not check; the rest is allowed. The program is built by
// github.com/elastic/go-seccomp-bpf; it fails on an architecture that
// package has no system call table for.
func sandboxFilter() ([]byte, error) {
	group := seccomp.SyscallGroup{
		Names:  refusedCalls,
		Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS),
	}
	for _, name := range newUserCalls {
		group.NamesWithCondtions = append(group.NamesWithCondtions, seccomp.NameWithConditions{
			Name:       name,
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: unix.CLONE_NEWUSER}},
		})
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{group}}
	program, err := policy.Assemble()
	if err != nil {
		return nil, sandboxUnavailable("no seccomp filter for %s: %v", runtime.GOARCH, err)
	}
	raw, err := bpf.Assemble(program)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		out = binary.NativeEndian.AppendUint16(out, in.Op)
		out = append(out, in.Jt, in.Jf)
		out = binary.NativeEndian.AppendUint32(out, in.K)
	}
	return out, nil
}
