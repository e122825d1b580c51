package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/internal/testws"
)

// A fork bomb run by a user with a process limit (root ignores it) does
// not take agenttools down with it: the command is confined below the
// user's limit, so agenttools keeps room for its threads, answers at the
// timeout, and every process of the command is gone when it does. The
// test runs under a hard cap of its own (the user's limit and a pids
// cgroup) so that a bomb that escapes cannot take the machine down.
func TestForkBombAsAnotherUser(t *testing.T) {
	forkBomb(t, 300, 400, nil)
}

// The same where what binds is not the user's process limit, which is
// left large, but the pids cgroup agenttools itself runs in (a
// container's pids limit, a systemd unit's TasksMax) and agenttools
// cannot make a cgroup of its own: the command's process limit then
// keeps agenttools's reserve free within that cgroup.
func TestForkBombInACappedCgroup(t *testing.T) {
	forkBomb(t, 0, 400, nil)
}

// forkBomb runs a fork bomb through agenttools as testws.Loner, with the
// user's process limit nproc (0: as this process has it) and in a new
// pids cgroup that holds at most maxTasks tasks. When the bomb is well
// under way, during is called (nil: nothing).
func forkBomb(t *testing.T, nproc, maxTasks int, during func()) {
	cmd, capped := cappedCall(t, nproc, maxTasks, "--exec-timeout", "6000", "exec", `{"command":"b(){ b|b& b; }; b"}`)
	// An escaped bomb holds the output pipes: stop waiting for them.
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		// Well under way: the cgroup holds half of what it may.
		deadline := time.Now().Add(time.Minute)
		for capped.Tasks() < maxTasks/2 {
			if time.Now().After(deadline) {
				t.Fatalf("the bomb holds %d tasks after a minute", capped.Tasks())
			}
			time.Sleep(5 * time.Millisecond)
		}
		during()
	}
	err := cmd.Wait()
	var exit *osexec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, osexec.ErrWaitDelay) {
		t.Fatal(err)
	}
	if cmd.ProcessState.ExitCode() != 0 || !strings.Contains(stdout.String(), `"exitCode":137`) || !strings.Contains(stdout.String(), "Killed after 6000 ms") {
		t.Errorf("exit %d, stdout %q, stderr %q", cmd.ProcessState.ExitCode(), last(stdout.String(), 300), last(stderr.String(), 300))
	}
	// The bomb was held below the cgroup's cap, by the reserve.
	if n := capped.Refused(); n != 0 {
		t.Errorf("the cgroup refused %d forks: the command took the tasks agenttools keeps for itself", n)
	}
	if procs := capped.Left(); len(procs) > 0 {
		t.Errorf("%d processes of the command outlived the call", len(procs))
	}
}

// The same, while processes of the same user outside that cgroup end
// during the run: the room they leave in the user's process limit is
// not the command's to take, since they were never in the cgroup.
func TestForkBombWhileOtherProcessesEnd(t *testing.T) {
	var others []*osexec.Cmd
	for range 80 {
		other := osexec.Command("sleep", "600")
		testws.AsUser(testws.Loner)(other)
		if err := other.Start(); err != nil {
			t.Fatal(err)
		}
		others = append(others, other)
	}
	end := func() {
		for _, other := range others {
			_ = other.Process.Kill()
			_ = other.Wait()
		}
		others = nil
	}
	defer end()
	forkBomb(t, 0, 400, end)
}

// A command run by a user who cannot make cgroups (so its processes are
// held by their session and the run's mark) leaves a daemon behind: a
// double fork with setsid whose parent is gone (the shell goes on once
// the daemon is in its own session and its parent reaped). It is gone
// when the call answers.
func TestOrphanAsAnotherUser(t *testing.T) {
	cmd, capped := cappedCall(t, 0, 100, "exec", `{"command":"mkfifo ready; (setsid sh -c 'echo > ready; exec sleep 100' >/dev/null 2>&1 &); read _ < ready; echo started"}`)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `started`) {
		t.Fatalf("%v: %s", err, last(string(out), 300))
	}
	if procs := capped.Left(); len(procs) > 0 {
		t.Errorf("%d processes of the command outlived the call: %v", len(procs), procs)
	}
}

// cappedCall is `agenttools call --dir DIR args...` run as testws.Loner
// in a fresh directory DIR, with the user's process limit nproc (0: as
// this process has it), in a new pids cgroup that holds at most maxTasks
// tasks (see testws.Capped), and killed after two minutes; and that
// cgroup. It skips the test where it cannot run as another user.
func cappedCall(t *testing.T, nproc, maxTasks int, args ...string) (*osexec.Cmd, *testws.Cap) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs agenttools as another user")
	}
	bin := publicBinary(t)
	dir := testws.PublicDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	capped := testws.Capped(t, testws.Loner, nproc, maxTasks)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := osexec.CommandContext(ctx, bin, append([]string{"call", "--dir", dir}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+dir)
	capped.Prep(cmd)
	return cmd, capped
}

// TestKilledProcessesAreGoneWhenTheCallEnds: a process of the run that is
// killed when the run ends is gone, not still exiting, when the call
// returns. A daemon that holds 128 MiB takes a while to exit once killed
// (the kernel frees its memory after its environment can no longer be
// read); the call must wait for that.
func TestKilledProcessesAreGoneWhenTheCallEnds(t *testing.T) {
	daemon := `awk 'BEGIN { s = "xxxxxxxxxxxxxxxx"; while (length(s) < 134217728) s = s s; system("echo > ready; sleep 100") }'`
	command := "mkfifo ready; (setsid sh -c '" + strings.ReplaceAll(daemon, "'", `'\''`) + "' >/dev/null 2>&1 &); read _ < ready; echo started"
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	cmd, capped := cappedCall(t, 0, 100, "--exec-timeout", "60000", "exec", string(args))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `started`) {
		t.Fatalf("%v: %s", err, last(string(out), 300))
	}
	if procs := capped.Left(); len(procs) > 0 {
		t.Errorf("%d processes of the command outlived the call: %v", len(procs), procs)
	}
}
