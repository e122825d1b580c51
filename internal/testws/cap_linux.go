package testws

import (
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/agenttools/agenttools/internal/cgroup"
)

// Cap is a pids cgroup made for one test: a hard cap on the processes
// of what the test runs in it.
type Cap struct {
	group *cgroup.Group
	// Prep prepares a command to run in the cgroup (see Capped).
	Prep func(*osexec.Cmd)
}

// Left lists the processes left in the cgroup.
func (c *Cap) Left() []int { return c.group.Procs() }

// Tasks is how many tasks the cgroup holds now.
func (c *Cap) Tasks() int { return c.group.Tasks() }

// Refused is how many forks the cgroup refused because it was full.
func (c *Cap) Refused() int { return c.group.Refused() }

// Capped makes a cgroup for a command to run as uid with at most nproc
// processes for that user (RLIMIT_NPROC, which root ignores; nproc 0
// leaves the limit as this process has it) and inside a new cgroup that
// holds at most maxTasks tasks: a hard cap for a test that may start
// processes without end. Its Prep prepares such a command. When the
// test ends every process in the cgroup is killed and the cgroup
// removed. It skips the test where no cgroup with the pids controller
// can be made (not root, or no such controller).
func Capped(tb testing.TB, uid, nproc, maxTasks int) *Cap {
	tb.Helper()
	var group *cgroup.Group
	for _, p := range cgroup.Find() {
		if !p.Pids {
			continue
		}
		g, err := p.New(fmt.Sprintf("agenttools-test-%d-%d", os.Getpid(), time.Now().UnixNano()), maxTasks)
		if err == nil {
			group = g
			break
		}
	}
	if group == nil {
		tb.Skip("no cgroup with the pids controller can be made here, so no hard cap on the processes of the test")
	}
	tb.Cleanup(func() {
		if err := group.Kill(-1, time.Now().Add(time.Minute)); err != nil {
			tb.Error(err)
		}
		if err := group.Remove(); err != nil {
			tb.Error(err)
		}
	})
	dir, err := os.Open(group.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { dir.Close() })
	prep := func(cmd *osexec.Cmd) {
		// A shell sets the limit and execs the program; for v1 it moves
		// itself into the group first (v2 is entered at the fork).
		script := `exec "$@"`
		if nproc > 0 {
			script = "ulimit -u " + strconv.Itoa(nproc) + " && " + script
		}
		if group.Version() == 1 {
			script = `echo $$ > "$0"/cgroup.procs && ` + script
		}
		cmd.Args = append([]string{"bash", "-c", script, group.Dir}, cmd.Args...)
		cmd.Path = "/bin/bash"
		cmd.Err = nil
		AsUser(uid)(cmd)
		if group.Version() == 2 {
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = int(dir.Fd())
		} else if err := group.Chown(uid); err != nil {
			tb.Fatal(err)
		}
	}
	return &Cap{group: group, Prep: prep}
}
