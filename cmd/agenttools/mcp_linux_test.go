//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/internal/testws"
)

// SIGTERM (what a client sends when a call outlives its shutdown wait)
// kills a running command with the server, which exits 130.
func TestMCPSignalDuringExec(t *testing.T) {
	dir := t.TempDir()
	s := startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--exec", "host")
	exited := sleepCall(s, dir)
	terminate(t, s.cmd)
	// Killed, it exits soon; how soon depends on the scheduler.
	if !exited(time.Minute) {
		t.Errorf("the command outlived the server")
	}
}

// A signal ends the server even when the client stopped reading and an
// answer cannot be written.
func TestMCPSignalWhileOutputIsFull(t *testing.T) {
	// The answer pipe holds 4 KiB, less than the tools/list answer.
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	if _, err := unix.FcntlInt(outW.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(agenttoolsBinary(t), "mcp", "--db", filepath.Join(t.TempDir(), "ws.db"))
	cmd.Stdout = outW
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// The initialize answer, byte by byte so that nothing after it is read.
	var line []byte
	for len(line) == 0 || line[len(line)-1] != '\n' {
		b := make([]byte, 1)
		if _, err := io.ReadFull(outR, b); err != nil {
			t.Fatalf("initialize: %q %v", line, err)
		}
		line = append(line, b...)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// Once the answer's first byte is there, the server is writing an
	// answer the pipe cannot hold, and nobody reads the rest.
	if _, err := io.ReadFull(outR, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	terminate(t, cmd)
}

// terminate sends the server SIGTERM and requires it to exit with
// status 130 (within a generous minute).
func terminate(t *testing.T, cmd *osexec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var exit *osexec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("exit: %v, want status 130", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not exit after SIGTERM")
	}
}

// A client that is gone (it closed the server's stdin, as when it is
// killed) leaves nothing running: the call in flight gets the grace
// period (2 s), then is cancelled, its command killed, and the server
// exits 0.
func TestMCPClientGone(t *testing.T) {
	dir := t.TempDir()
	s := startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--exec", "host")
	exited := sleepCall(s, dir)
	s.in.Close()
	if rest := s.waitExit(); len(rest) != 0 {
		t.Errorf("answered a client that is gone: %s", rest)
	}
	if !exited(time.Minute) {
		t.Errorf("the command outlived the server")
	}
}

// A client that closed its end of the server's stdout: the first answer
// that cannot be written cancels the call in flight at once (no grace
// period), its command is killed, and the server exits 0, its stdin
// still open.
func TestMCPClientClosedOutput(t *testing.T) {
	dir := t.TempDir()
	s := startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--exec", "host")
	exited := sleepCall(s, dir)
	s.outPipe.Close()
	s.write([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	s.waitExit()
	if !exited(time.Minute) {
		t.Errorf("the command outlived the server")
	}
}

// sleepCall calls exec on a command that sleeps, waits until it runs,
// and returns a function that reports whether it exited within a time.
func sleepCall(s *rawServer, dir string) func(time.Duration) bool {
	s.t.Helper()
	started := testws.PIDFIFO(s.t, filepath.Join(dir, "pid"))
	s.write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo $$ > pid && exec sleep 7999"}}}`))
	return testws.Watch(s.t, started())
}
