package execbackend

import (
	"encoding/binary"
	"runtime"

	"golang.org/x/sys/unix"
)

// The kernel's keyrings are not in any namespace bwrap makes: a command
// would inherit this process's session keyring (and possess, so read,
// the keys in it), and as root's unprivileged user it would share that
// user's keyring with every other sandbox and process of that user. The
// sandbox refuses the keyring system calls (add_key, request_key,
// keyctl) with ENOSYS, as on a kernel built without keys, through a
// seccomp filter bwrap installs before the command starts.

// keyCalls are the numbers of add_key, request_key and keyctl in one
// system call table, with the audit architecture that table is for.
type keyCalls struct {
	arch uint32
	nrs  []uint32
}

// x32 marks the system calls of the x32 ABI, made on the x86-64
// architecture.
const x32 = 0x40000000

// keyCallTables are the system call tables a process may use on this
// machine's architecture (its compat ones included), by GOARCH.
var keyCallTables = map[string][]keyCalls{
	"amd64": {
		{unix.AUDIT_ARCH_X86_64, []uint32{248, 249, 250, x32 | 248, x32 | 249, x32 | 250}},
		{unix.AUDIT_ARCH_I386, []uint32{286, 287, 288}},
	},
	"arm64": {
		{unix.AUDIT_ARCH_AARCH64, []uint32{217, 218, 219}},
		{unix.AUDIT_ARCH_ARM, []uint32{309, 310, 311}},
	},
	"riscv64": {
		{unix.AUDIT_ARCH_RISCV64, []uint32{217, 218, 219}},
	},
}

// Classic BPF as seccomp runs it: load a word of struct seccomp_data,
// compare, return.
const (
	bpfLoadWord = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJumpEq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfReturn   = unix.BPF_RET | unix.BPF_K
	seccompNr   = 0 // offsetof(struct seccomp_data, nr)
	seccompArch = 4 // offsetof(struct seccomp_data, arch)
)

type bpfInstr struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// keyringFilter is the seccomp program (struct sock_filter entries in
// this machine's byte order, as bwrap --seccomp reads them) that makes
// the keyring system calls fail with ENOSYS and lets every other call
// through; nil on an architecture it has no table for.
func keyringFilter() []byte {
	tables := keyCallTables[runtime.GOARCH]
	if len(tables) == 0 {
		return nil
	}
	prog := []bpfInstr{{code: bpfLoadWord, k: seccompArch}}
	var toDeny []int // the jumps to the refusal, resolved at the end
	for _, t := range tables {
		// Not this architecture: on to the next comparison of it.
		prog = append(prog, bpfInstr{code: bpfJumpEq, k: t.arch, jf: uint8(len(t.nrs) + 2)})
		prog = append(prog, bpfInstr{code: bpfLoadWord, k: seccompNr})
		for _, nr := range t.nrs {
			toDeny = append(toDeny, len(prog))
			prog = append(prog, bpfInstr{code: bpfJumpEq, k: nr})
		}
		prog = append(prog, bpfInstr{code: bpfReturn, k: unix.SECCOMP_RET_ALLOW})
		// The next comparison needs the architecture loaded again.
		prog = append(prog, bpfInstr{code: bpfLoadWord, k: seccompArch})
	}
	prog = append(prog, bpfInstr{code: bpfReturn, k: unix.SECCOMP_RET_ALLOW})
	deny := len(prog)
	prog = append(prog, bpfInstr{code: bpfReturn, k: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	for _, i := range toDeny {
		prog[i].jt = uint8(deny - i - 1)
	}
	out := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		out = binary.NativeEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.NativeEndian.AppendUint32(out, in.k)
	}
	return out
}
