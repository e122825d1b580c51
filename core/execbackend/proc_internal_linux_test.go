package execbackend

import (
	"os"
	osexec "os/exec"
	"slices"
	"strconv"
	"testing"
)

// runTree tells the run's processes (marked), the user's processes that
// show no environment (unsure: one may be in the middle of an exec), and
// the others, which it leaves out; kernel threads are never unsure. kill
// returns without touching an unsure process once settleWait has passed.
func TestRunTreeTellsUnsureProcesses(t *testing.T) {
	mark := "AGENTTOOLS_RUN=" + runMark()
	start := func(env []string) *osexec.Cmd {
		t.Helper()
		cmd := osexec.Command("sleep", "100")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	marked := start([]string{"PATH=/usr/bin:/bin", mark})
	bare := start([]string{})
	other := start([]string{"PATH=/usr/bin:/bin", "AGENTTOOLS_RUN=" + runMark()})
	// A session no process has, so only the mark finds the run.
	tree, unsure := runTree(1<<30, []byte(mark))
	if !slices.Contains(tree, marked.Process.Pid) || slices.Contains(tree, bare.Process.Pid) || slices.Contains(tree, other.Process.Pid) {
		t.Errorf("tree %v: want %d (marked), not %d (no environment) or %d (another run)", tree, marked.Process.Pid, bare.Process.Pid, other.Process.Pid)
	}
	if !slices.Contains(unsure, bare.Process.Pid) || slices.Contains(unsure, other.Process.Pid) || slices.Contains(unsure, marked.Process.Pid) {
		t.Errorf("unsure %v: want %d (no environment) only of the three", unsure, bare.Process.Pid)
	}
	if slices.Contains(unsure, 2) {
		t.Errorf("unsure %v holds the kernel thread 2", unsure)
	}

	p := &runProcs{pid: marked.Process.Pid, mark: []byte(mark)}
	if err := p.kill(false); err != nil {
		t.Fatal(err)
	}
	if err := marked.Wait(); err == nil {
		t.Error("the marked process was not killed")
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(bare.Process.Pid)); err != nil {
		t.Errorf("the process without environment was killed: %v", err)
	}
}
