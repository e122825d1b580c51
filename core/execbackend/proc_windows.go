package execbackend

import (
	"fmt"
	osexec "os/exec"
	"runtime"
	"syscall"
)

// hostProcs: the host backend does not run on Windows.
type hostProcs struct{ maxTasks int }

func (h *Host) confinement() Confinement { return Confinement{Kind: "none"} }

// hostSupported says why there is no host backend (nor mirror, which
// runs its commands as host does) here: a run needs sessions, process
// groups and pipes with read deadlines.
func hostSupported(backend string) error {
	return fmt.Errorf("exec: the %s backend does not run on %s: it runs on Unix systems only", backend, runtime.GOOS)
}

type runProcs struct{}

func (h *Host) start(newCmd func() *osexec.Cmd) (*osexec.Cmd, *runProcs, error) {
	return nil, nil, hostSupported("host")
}

func (p *runProcs) kill(bool) error { return nil }

func (p *runProcs) release() {}

func readNow(fd uintptr, buf []byte) (int, error) { return syscall.Read(syscall.Handle(fd), buf) }
