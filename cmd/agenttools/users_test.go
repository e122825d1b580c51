//go:build unix

package main

import (
	"os"
	osexec "os/exec"
	"testing"

	"github.com/agenttools/agenttools/internal/testws"
)

// Helpers of the tests that run the built command as another user.

// publicBinary is a copy of the built command in a directory every user
// can enter.
func publicBinary(t *testing.T) string {
	t.Helper()
	return testws.PublicCopy(t, agenttoolsBinary(t))
}

// cliRun runs the built command as prep makes it, in a scratch
// directory every user can write, and returns what it did.
func cliRun(t *testing.T, prep func(*osexec.Cmd), args ...string) result {
	t.Helper()
	scratch := testws.PublicDir(t)
	if err := os.Chmod(scratch, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(args[0], args[1:]...)
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "HOME="+scratch, "XDG_CACHE_HOME="+scratch)
	prep(cmd)
	return runCmd(t, cmd)
}
