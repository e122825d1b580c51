//go:build unix

package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Helpers of the tests that run the built command as another user.

// nobodyUID is the user the read-only tests run the command as.
const nobodyUID = 65534

// sharedTempDir makes a directory every user can enter and read, and
// only this one write (a temporary directory's parents are private).
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "agenttools-shared")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// publicBinary is a copy of the built command in a directory every user
// can enter.
func publicBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(sharedTempDir(t), "agenttools")
	data, err := os.ReadFile(agenttoolsBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// asUser prepares a command to run as uid (and its own group).
func asUser(uid int) func(*osexec.Cmd) {
	return func(cmd *osexec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
}

// cliRun runs the built command as prep makes it, in a scratch
// directory every user can write, and returns what it did.
func cliRun(t *testing.T, prep func(*osexec.Cmd), args ...string) result {
	t.Helper()
	scratch := sharedTempDir(t)
	if err := os.Chmod(scratch, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(args[0], args[1:]...)
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "HOME="+scratch, "XDG_CACHE_HOME="+scratch)
	prep(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*osexec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return result{code, stdout.String(), stderr.String()}
}
