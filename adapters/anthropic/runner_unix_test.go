//go:build unix

package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/anthropic"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// A context cancelled while the beta tool runner runs a turn's calls at
// once, one of them an exec on the host backend, ends the run with the
// context's error, and the command's process does not outlive it: the
// model's turn writes a file twice and runs a command that would sleep a
// minute; the first running snapshot of the command cancels the context.
func TestToolRunnerCancelledDuringExec(t *testing.T) {
	ws, dir := testws.Host(t, "")
	host, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		t.Skipf("no host backend: %v", err)
	}
	set, err := anthropic.New(ws, agenttools.Options{Backends: []execbackend.Backend{host}})
	if err != nil {
		t.Fatal(err)
	}
	api := newAPI(t)
	api.replay(json.RawMessage(`{"id":"msg_01","type":"message","role":"assistant","model":"`+model+`","content":[`+
		`{"type":"tool_use","id":"toolu_01","name":"write","input":{"path":"/workspace/a.txt","content":"a"}},`+
		`{"type":"tool_use","id":"toolu_02","name":"exec","input":{"command":"echo $$ > pid; echo started; exec sleep 60"}},`+
		`{"type":"tool_use","id":"toolu_03","name":"write","input":{"path":"/workspace/a.txt","content":"c"}}],`+
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`),
		json.RawMessage(`{"id":"msg_02","type":"message","role":"assistant","model":"`+model+`","content":[{"type":"text","text":"done"}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`))
	// The deadline only keeps a broken cancellation from hanging the
	// test for the command's minute.
	deadline, stop := context.WithTimeout(t.Context(), 30*time.Second)
	defer stop()
	ctx, cancel := context.WithCancel(deadline)
	defer cancel()
	ctx = core.WithSnapshots(ctx, func(toolspec.Output) { cancel() })
	client := api.client()
	runner := client.Beta.Messages.NewToolRunner(set.BetaTools(), sdk.BetaToolRunnerParams{
		BetaMessageNewParams: sdk.BetaMessageNewParams{
			Model:     model,
			MaxTokens: 1024,
			Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("run it"))},
		},
	})
	_, err = runner.RunToCompletion(ctx)
	if !errors.Is(err, context.Canceled) || deadline.Err() != nil {
		t.Fatalf("RunToCompletion: %v (deadline: %v), want the cancelled context's error", err, deadline.Err())
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
		t.Errorf("the command's process %d outlived the run: kill -0: %v", pid, err)
	}
}
