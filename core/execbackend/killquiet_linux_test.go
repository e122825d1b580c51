package execbackend_test

import (
	"context"
	"syscall"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

// Killing a command that keeps forking makes it print nothing: a fork
// that fails because of the kill (the shell's "Cannot fork") is not the
// command's output. The kill lands at a different point of the loop on
// each round.
func TestHostKillProvokesNoOutput(t *testing.T) {
	forEachBackend(t, testKillProvokesNoOutput)
}

func testKillProvokesNoOutput(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	rounds := 40
	if b.Sandbox {
		rounds = 10 // each round sets a sandbox up: a fraction of a second
	}
	for i := range rounds {
		ctx, stop := context.WithTimeout(t.Context(), hang)
		run := startAndKill(t, ctx, h, `echo started; while :; do sh -c 'true & true'; done`)
		ev, err := run.Next(ctx)
		stop()
		if err != nil || ev.Kind != execbackend.Exit || ev.Code != 128+int(syscall.SIGKILL) {
			t.Fatalf("round %d, after Kill: %+v (%q), %v", i, ev, ev.Data, err)
		}
	}
}
