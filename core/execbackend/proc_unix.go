//go:build unix && !linux

package execbackend

import (
	"fmt"
	osexec "os/exec"
	"syscall"
	"time"
)

// hostProcs: off Linux there is nothing to find out.
type hostProcs struct{ maxTasks int }

func (h *Host) confinement() Confinement { return Confinement{Kind: "process group"} }

func hostSupported(string) error { return nil }

// runProcs are the processes of one run: the shell, leader of a session
// (and process group) of its own, and all it started that stayed in its
// process group.
type runProcs struct{ pid int }

// start starts the command in a session of its own. Nothing caps how
// many processes it makes.
func (h *Host) start(newCmd func() *osexec.Cmd) (*osexec.Cmd, *runProcs, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd, &runProcs{pid: cmd.Process.Pid}, nil
}

// kill kills the run's process group until none of it is left. A
// process that made a group or session of its own is not found.
func (p *runProcs) kill(exited bool) error {
	deadline := time.Now().Add(killWait)
	for {
		err := syscall.Kill(-p.pid, syscall.SIGKILL)
		if err == syscall.ESRCH || exited && err == syscall.EPERM {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("exec: the command's process group outlived the kill: %v", err)
		}
		time.Sleep(time.Millisecond) // killed processes take a moment to exit
	}
}

func (p *runProcs) release() {}

// readNow reads what descriptor fd holds without waiting.
func readNow(fd uintptr, buf []byte) (int, error) { return syscall.Read(int(fd), buf) }
