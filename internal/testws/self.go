package testws

import (
	"context"
	"io"
	"os"
	osexec "os/exec"
	"testing"
)

// StartSelf starts this test binary again as a helper process, running
// no test (-test.run=^$), with env added to its environment (the helper
// sees it in TestMain or init and plays its part). It returns the
// process, its stdin and its stdout; its stderr goes to stderr. The
// process is killed when ctx ends.
func StartSelf(tb testing.TB, ctx context.Context, env []string, stderr io.Writer) (*osexec.Cmd, io.WriteCloser, io.ReadCloser) {
	tb.Helper()
	cmd := osexec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, stdin, stdout
}
