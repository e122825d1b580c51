//go:build unix

package genkit_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/genkit"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// contextPlugin keeps the context genkit.Init hands to plugins.
type contextPlugin struct{ ctx context.Context }

func (p *contextPlugin) Name() string { return "contextplugin" }

func (p *contextPlugin) Init(ctx context.Context) []api.Action {
	p.ctx = ctx
	return nil
}

const signalChild = "AGENTTOOLS_GENKIT_SIGNAL_CHILD"

// genkit.Init installs signal.NotifyContext(ctx, os.Interrupt,
// syscall.SIGTERM) and never stops it: a SIGINT no longer ends the
// process; it only cancels the context Init gave its plugins. The test
// runs itself in a child process that signals itself.
func TestInitSwallowsSignals(t *testing.T) {
	if os.Getenv(signalChild) == "1" {
		plugin := &contextPlugin{}
		genkit.Init(context.Background(), genkit.WithPlugins(plugin))
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		// Returns once Genkit's handler has the signal; without that
		// handler the signal would have ended the process.
		<-plugin.ctx.Done()
		fmt.Println("alive after:", context.Cause(plugin.ctx))
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestInitSwallowsSignals$", "-test.v")
	cmd.Env = append(os.Environ(), signalChild+"=1", "GENKIT_ENV=prod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child died: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "alive after: interrupt signal received") {
		t.Errorf("child output:\n%s", out)
	}
}
