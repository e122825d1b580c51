//go:build linux

package mcp_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

// A generous guard against a hang: a test that passes takes a fraction
// of it.
const hang = time.Minute

// hostWire serves the tools with exec on the host, in a fresh directory,
// over pipes, on ctx, with the given grace period, and initializes the
// session.
func hostWire(t *testing.T, ctx context.Context, grace time.Duration) (*wire, string) {
	t.Helper()
	ws, dir := testws.Host(t, "")
	backend, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := mcp.New(ws, agenttools.Options{Backends: []execbackend.Backend{backend}})
	if err != nil {
		t.Fatal(err)
	}
	set.Grace = grace
	w := serveSet(t, ctx, set)
	w.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w, dir
}

// sleeper calls exec with id 2 on a command that sleeps, waits until it
// runs, and returns a function reporting whether it has exited within
// a generous minute.
func sleeper(w *wire, dir string) (exited func() bool) {
	w.t.Helper()
	// The command writes its pid into a FIFO: reading it waits for the
	// command to start, without polling.
	started := testws.PIDFIFO(w.t, filepath.Join(dir, "pid"))
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo $$ > pid && exec sleep 7999"}}}`)
	watch := testws.Watch(w.t, started())
	return func() bool { return watch(hang) }
}

// ended waits for Serve to return (within a generous minute).
func (w *wire) ended() error {
	w.t.Helper()
	select {
	case err := <-w.done:
		return err
	case <-time.After(hang):
		w.t.Fatal("Serve did not return")
		return nil
	}
}

// rest is what Serve wrote that was not read yet, up to its end.
func (w *wire) rest() string {
	w.t.Helper()
	data, err := io.ReadAll(w.out)
	if err != nil {
		w.t.Fatal(err)
	}
	return string(data)
}

// Cancelling Serve's context ends the calls in flight (a running
// command is killed) and Serve returns, without waiting for the command
// to be reaped.
func TestServeCancelKillsCommands(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	w, dir := hostWire(t, ctx, time.Hour)
	exited := sleeper(w, dir)
	// Another request with the running call's id is refused.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got := w.line(); got != `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"a request with id 2 is still in flight"}}` {
		t.Errorf("a second request with id 2: %s", got)
	}
	cancel()
	if err := w.ended(); err != context.Canceled {
		t.Errorf("Serve: %v, want context.Canceled", err)
	}
	// The command was killed: it exits (Serve does not wait until it
	// has, and when it does depends on the scheduler).
	if !exited() {
		t.Errorf("the command is still running")
	}
}

// When the client's input ends, a call still running after the grace
// period is cancelled and not answered (its command killed), and Serve
// returns nil.
func TestServeEndOfInputCancelsCalls(t *testing.T) {
	w, dir := hostWire(t, context.WithoutCancel(t.Context()), time.Nanosecond)
	exited := sleeper(w, dir)
	w.in.Close()
	if err := w.ended(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !exited() {
		t.Errorf("the command is still running")
	}
	if rest := w.rest(); rest != "" {
		t.Errorf("answered after the grace period: %s", rest)
	}
}

// A call that ends within the grace period after the client's input
// ended is answered, and then Serve returns nil.
func TestServeEndOfInputAnswers(t *testing.T) {
	w, dir := hostWire(t, context.WithoutCancel(t.Context()), time.Hour)
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		t.Fatal(err)
	}
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"read line < release && echo \"got $line\""}}}`)
	w.in.Close()
	// Opening the FIFO waits for the command to open it.
	if err := os.WriteFile(release, []byte("it\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := w.line(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"command\":`) || !strings.Contains(got, `got it\\n`) {
		t.Errorf("the answer after the input ended: %s", got)
	}
	if err := w.ended(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// When the client closed its end of Serve's output, the first answer
// that cannot be written cancels the calls in flight at once (a command
// is killed, however long the grace period) and Serve returns nil, its
// input still open.
func TestServeOutputClosedCancels(t *testing.T) {
	w, dir := hostWire(t, context.WithoutCancel(t.Context()), time.Hour)
	exited := sleeper(w, dir)
	w.outFile.Close()
	w.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if err := w.ended(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !exited() {
		t.Errorf("the command is still running")
	}
}

// A request the client cancelled is not answered (MCP: a cancelled
// request gets no response); its command is killed, and it is no longer
// in flight: the end of the input ends Serve without the grace period.
func TestServeCancelledRequestIsNotAnswered(t *testing.T) {
	w, dir := hostWire(t, context.WithoutCancel(t.Context()), time.Hour)
	exited := sleeper(w, dir)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"no longer needed"}}`)
	if !exited() {
		t.Errorf("the cancelled command is still running")
	}
	w.ping(3)
	w.in.Close()
	if err := w.ended(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if rest := w.rest(); rest != "" {
		t.Errorf("the cancelled request was answered: %s", rest)
	}
}
