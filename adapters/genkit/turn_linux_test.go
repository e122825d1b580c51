//go:build linux

package genkit_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"go.uber.org/goleak"

	"github.com/agenttools/agenttools"
	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// A generous guard against a hang: a test that passes takes a fraction
// of it.
const hang = time.Minute

// When a turn fails while exec runs a command of the same turn, the
// command does not outlive Generate: the package's Generate returns,
// the command's process is gone, and no goroutine of the run is left
// (Genkit's own would wait forever to hand over exec's result). The
// turn fails by another tool's error, or by the caller cancelling the
// context while two commands run (the first call's error stops the run;
// the second's result would be waited on forever), also when the two
// run restarted, approved after an interrupt (Genkit runs restarted
// calls as it runs a turn's, and stops at the first error the same way).
func TestFailedTurnEndsCalls(t *testing.T) {
	for _, c := range []struct {
		name string
		// second is the turn's other call, or "" for a second exec.
		second string
		// approve makes exec wait for approval: the calls run when the
		// interrupted generation is resumed.
		approve bool
	}{
		{"a call fails", "fail", false},
		{"cancelled", "", false},
		{"cancelled while restarted", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			initCtx, stopInit := context.WithCancel(t.Context())
			g := genkit.Init(initCtx)
			ws, dir := testws.Host(t, "")
			backend, err := execbackend.NewHost(ws, execbackend.HostOptions{})
			if err != nil {
				t.Fatal(err)
			}
			toolOpts := agenttools.Options{Backends: []execbackend.Backend{backend}}
			if c.approve {
				toolOpts.Approve = []string{toolspec.ToolExec}
			}
			set, err := agentgenkit.Define(g, ws, toolOpts)
			if err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			genkit.DefineTool(g, "fail", "Fails once released.", func(tc *ai.ToolContext, _ any) (string, error) {
				<-release
				return "", errors.New("the call failed")
			})

			// The commands write their pids into FIFOs: reading one
			// waits for its command to start, without polling.
			started := []func() int{testws.PIDFIFO(t, filepath.Join(dir, "pid1"))}
			calls := []*ai.Part{sleeper("pid1", "call_1")}
			tools := []ai.ToolRef{ai.ToolName("exec")}
			if c.second == "" {
				started = append(started, testws.PIDFIFO(t, filepath.Join(dir, "pid2")))
				calls = append(calls, sleeper("pid2", "call_2"))
			} else {
				calls = append(calls, ai.NewToolRequestPart(&ai.ToolRequest{Name: c.second, Ref: "call_2", Input: map[string]any{}}))
				tools = append(tools, ai.ToolName(c.second))
			}
			model := genkit.DefineModel(g, "turn", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true}},
				func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
					return &ai.ModelResponse{Request: req, Message: ai.NewModelMessage(calls...), FinishReason: ai.FinishReasonStop}, nil
				})

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			opts := []ai.GenerateOption{ai.WithModel(model), ai.WithTools(tools...), ai.WithMaxTurns(2)}
			if c.approve {
				resp, err := agentgenkit.Generate(ctx, g, append(opts, ai.WithPrompt("Run the tests"))...)
				if err != nil {
					t.Fatal(err)
				}
				approve, err := set.Approve(resp, func(core.ApprovalRequest) bool { return true })
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, ai.WithMessages(resp.History()...), approve)
			} else {
				opts = append(opts, ai.WithPrompt("Run the tests"))
			}
			done := make(chan error, 1)
			go func() {
				_, err := agentgenkit.Generate(ctx, g, opts...)
				done <- err
			}()
			var exited []func(time.Duration) bool
			for _, s := range started {
				exited = append(exited, testws.Watch(t, s()))
			}
			// Every command runs: the turn fails now.
			close(release)
			if c.second == "" {
				cancel()
			}
			select {
			case err := <-done:
				want := "the call failed"
				if c.second == "" {
					want = context.Canceled.Error()
				}
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Generate: %v, want an error with %q", err, want)
				}
			case <-time.After(hang):
				t.Fatal("Generate did not return")
			}
			for i, exited := range exited {
				if !exited(hang) {
					t.Errorf("command %d still runs after Generate returned", i+1)
				}
			}
			stopInit()
			deadline := time.Now().Add(hang)
			for {
				// Find retries for a moment; a goroutine ends once its
				// command has been reaped.
				err := goleak.Find(before)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("a goroutine is left behind: %v", err)
				}
			}
		})
	}
}

// sleeper is a tool request for a command that writes its pid into the
// FIFO fifo and sleeps.
func sleeper(fifo, ref string) *ai.Part {
	return ai.NewToolRequestPart(&ai.ToolRequest{Name: "exec", Ref: ref, Input: map[string]any{
		"command": fmt.Sprintf("echo $$ > %s && exec sleep 7999", fifo),
	}})
}
