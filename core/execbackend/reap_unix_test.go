//go:build unix

package execbackend_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

// A cancelled run's Next returns only once the command's process has
// been reaped: killed but not yet waited for, it is a zombie, a process
// that kill -0 still finds after the call that cancelled it. Each run is
// one chance for the reap to lag behind the return; before the fix, one
// run in about twenty found the zombie, so the test makes forty.
func TestHostCancelReapsTheCommand(t *testing.T) {
	ws, dir := testws.Host(t, "")
	h := newHost(t, ws, execbackend.HostOptions{})
	for i := range 40 {
		ctx, cancel := context.WithCancel(t.Context())
		run, err := h.Start(ctx, execbackend.Request{Command: `echo $$ > pid; echo started; exec sleep 100`})
		if err != nil {
			t.Fatal(err)
		}
		guard, stop := context.WithTimeout(t.Context(), hang)
		ev, err := run.Next(guard)
		stop()
		if err != nil || ev.Kind != execbackend.Stdout || string(ev.Data) != "started\n" {
			t.Fatalf("run %d: first event %+v, %v", i, ev, err)
		}
		cancel()
		if _, err := run.Next(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: Next after cancel: %v", i, err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "pid"))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("run %d: the command's process %d is still there after Next returned (kill -0: %v)", i, pid, err)
		}
	}
}
