package main

import (
	"bytes"
	"context"
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
	if os.Geteuid() != 0 {
		t.Skip("runs agenttools as another user")
	}
	bin := publicBinary(t)
	dir := testws.PublicDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	prep, left := testws.Capped(t, testws.Nobody, 300, 400)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, bin, "call", "--dir", dir, "--exec-timeout", "4000", "exec", `{"command":"b(){ b|b& b; }; b"}`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+dir)
	// An escaped bomb holds the output pipes: stop waiting for them.
	cmd.WaitDelay = 5 * time.Second
	prep(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *osexec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, osexec.ErrWaitDelay) {
		t.Fatal(err)
	}
	if cmd.ProcessState.ExitCode() != 0 || !strings.Contains(stdout.String(), `"exitCode":137`) || !strings.Contains(stdout.String(), "Killed after 4000 ms") {
		t.Errorf("exit %d, stdout %q, stderr %q", cmd.ProcessState.ExitCode(), last(stdout.String(), 300), last(stderr.String(), 300))
	}
	if procs := left(); len(procs) > 0 {
		t.Errorf("%d processes of the command outlived the call", len(procs))
	}
}
