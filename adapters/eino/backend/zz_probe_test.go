package backend_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino/backend"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

func TestZZProbe(t *testing.T) {
	for _, timeout := range []int64{0, 500} {
		ws, dir := testws.Host(t, "")
		exec, _ := execbackend.NewHost(ws, execbackend.HostOptions{})
		b := mustNew(t, ws, agenttools.Options{Backends: []execbackend.Backend{exec}, ExecTimeout: timeout})
		pid := testws.PIDFIFO(t, filepath.Join(dir, "pid"))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			r, err := b.(*backend.ShellBackend).Execute(ctx, &filesystem.ExecuteRequest{Command: "setsid sleep 300 & echo $! > pid; (trap '' TERM; sleep 301) & wait"})
			t.Logf("%v %v", r, err)
			done <- err
		}()
		exited := testws.Watch(t, pid())
		if timeout == 0 {
			cancel()
		}
		<-done
		t.Logf("timeout %d: exited %v", timeout, exited(5*time.Second))
		cancel()
	}
}
