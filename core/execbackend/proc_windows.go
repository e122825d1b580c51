package execbackend

import (
	"errors"
	osexec "os/exec"
	"syscall"
)

// hostProcs: the host backend does not run on Windows.
type hostProcs struct{ maxTasks int }

func (h *Host) confinement() Confinement { return Confinement{Kind: "none"} }

// hostSupported says why there is no host backend here: a run needs
// sessions, process groups and pipes with read deadlines.
func hostSupported() error {
	return errors.New("exec: the host backend runs on Unix systems only")
}

type runProcs struct{}

func (h *Host) start(newCmd func() *osexec.Cmd) (*osexec.Cmd, *runProcs, error) {
	return nil, nil, hostSupported()
}

func (p *runProcs) kill(bool) error { return nil }

func (p *runProcs) release() {}

func readNow(fd uintptr, buf []byte) (int, error) { return syscall.Read(syscall.Handle(fd), buf) }
