package anthropic_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttools/agenttools/adapters/anthropic"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// runMessages is the agent loop a program writes on the SDK: it sends the
// conversation with the set's tools, appends the reply, and answers its
// tool_use blocks with ExecuteTurn until the model answers. It returns the
// answer's text.
func runMessages(ctx context.Context, t *testing.T, client sdk.Client, set *anthropic.Tools) string {
	t.Helper()
	params := sdk.MessageNewParams{
		Model:     model,
		MaxTokens: 1024,
		Tools:     set.Params(),
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(agentcase.Prompt))},
	}
	for {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		results, ok, err := set.ExecuteTurn(ctx, msg)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if msg.StopReason != sdk.StopReasonEndTurn {
				t.Errorf("the loop ended on stop_reason %q", msg.StopReason)
			}
			return text(msg.Content)
		}
		params.Messages = append(params.Messages, results)
	}
}

func text(content []sdk.ContentBlockUnion) string {
	var parts []string
	for _, c := range content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "")
}

// TestMessagesSession runs a recorded session (every tool, an image and a
// PDF read, a failing read, invalid arguments, a tool the set does not
// offer, several calls in one turn) through the SDK's client and the
// Messages API: every request declares our exact tools, the tool_result
// blocks carry exactly what the raw adapter answers the same calls (is_error
// for failures, an image block and a document block after the text), in
// the calls' order, and exec's snapshots reach the loop's context.
func TestMessagesSession(t *testing.T) {
	checkSession(t, "messages.txtar", runMessages, func(c toolCall, out toolspec.Output) resultBlock { return wantResult(c.ID, out) })
}

// runBetaMessages is runMessages on the beta Messages API, the loop a
// program writes there with BetaParams and ExecuteBetaTurn.
func runBetaMessages(ctx context.Context, t *testing.T, client sdk.Client, set *anthropic.Tools) string {
	t.Helper()
	params := sdk.BetaMessageNewParams{
		Model:     model,
		MaxTokens: 1024,
		Tools:     set.BetaParams(),
		Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock(agentcase.Prompt))},
	}
	for {
		msg, err := client.Beta.Messages.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		results, ok, err := set.ExecuteBetaTurn(ctx, msg)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			var answer sdk.Message
			if err := json.Unmarshal([]byte(msg.RawJSON()), &answer); err != nil {
				t.Fatal(err)
			}
			return text(answer.Content)
		}
		params.Messages = append(params.Messages, results)
	}
}

// TestBetaMessagesSession runs the recorded session through a loop of
// one's own on the beta Messages API (BetaParams, ExecuteBetaTurn): the
// requests carry what the Messages loop sends, byte for byte (its golden
// file, messages.txtar), and the same checks hold.
func TestBetaMessagesSession(t *testing.T) {
	checkSession(t, "messages.txtar", runBetaMessages, func(c toolCall, out toolspec.Output) resultBlock { return wantResult(c.ID, out) })
}

// checkSession runs session.json through run, with a core.WithSnapshots
// function on its context, and checks the session: the tools declared
// (by the first request; on a message thread the others declare none),
// the tool_result of each call against want of the raw adapter's output,
// their order, exec's snapshots, and the golden file name.
func checkSession(t *testing.T, name string, run func(context.Context, *testing.T, sdk.Client, *anthropic.Tools) string, want func(toolCall, toolspec.Output) resultBlock) {
	t.Helper()
	api := serve(t, "session.json")
	ws, opts := workspace(t)
	set, err := anthropic.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	var snapshots []string
	ctx := core.WithSnapshots(t.Context(), func(o toolspec.Output) { snapshots = append(snapshots, string(o.JSON)) })
	answer := run(ctx, t, api.client(), set)
	if answer != agentcase.Answer {
		t.Errorf("answer %q", answer)
	}

	reqs := api.requests(t)
	declared := declarations(t, set.Executor())
	for i, req := range reqs {
		if i == 0 || req.Tools != nil {
			checkTools(t, req.Tools, declared)
		}
	}
	calls := api.calls(t)
	sent, order := results(t, reqs)
	refWS, refOpts := workspace(t)
	outs := reference(t, refWS, refOpts, calls)
	var ids []string
	for i, c := range calls {
		ids = append(ids, c.ID)
		if got, want := decodeResult(t, sent[c.ID]), want(c, outs[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s:\n got %s\nwant %s", c.Name, c.Input, sent[c.ID], mustJSON(want))
		}
	}
	if !slices.Equal(order, ids) {
		t.Errorf("tool results sent in the order %v, want %v", order, ids)
	}
	checkKinds(t, calls, outs)
	checkSnapshots(t, snapshots, sent)
	golden(t, name, reqs, calls, sent, answer)
}

// checkKinds makes sure the recorded session covers what it claims: an
// image, a PDF, failures, invalid arguments and a tool not offered.
func checkKinds(t *testing.T, calls []toolCall, outs []toolspec.Output) {
	t.Helper()
	var image, pdf, failed, invalid, unknown bool
	for i, out := range outs {
		switch {
		case out.HasMedia() && out.Media.IsImage():
			image = true
		case out.HasMedia():
			pdf = true
		case out.IsError():
			failed = true
			invalid = invalid || strings.Contains(out.Text, "path")
			unknown = unknown || calls[i].Name == "shell"
		}
	}
	if !image || !pdf || !failed || !invalid || !unknown {
		t.Errorf("the session covers image %v, PDF %v, failure %v, invalid arguments %v, unknown tool %v", image, pdf, failed, invalid, unknown)
	}
}

// checkSnapshots: exec's running snapshots reached the context's function,
// and the model received the final result only.
func checkSnapshots(t *testing.T, snapshots []string, sent map[string]json.RawMessage) {
	t.Helper()
	if len(snapshots) == 0 {
		t.Error("no running snapshot of exec reached the context's function")
	}
	for _, s := range snapshots {
		if !strings.Contains(s, `"exitCode":null`) {
			t.Errorf("snapshot %s", s)
		}
	}
	for id, r := range sent {
		if strings.Contains(string(r), `exitCode\":null`) {
			t.Errorf("%s: the model received a running snapshot: %s", id, r)
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// runToolRunner runs the conversation through the SDK's beta tool runner
// with the set's BetaTools, on a message thread (the runner's default),
// and returns the answer's text.
func runToolRunner(ctx context.Context, t *testing.T, client sdk.Client, set *anthropic.Tools, definitions []sdk.BetaToolUnionParam) string {
	t.Helper()
	runner := client.Beta.Messages.NewToolRunner(set.BetaTools(), sdk.BetaToolRunnerParams{
		BetaMessageNewParams: sdk.BetaMessageNewParams{
			Model:     model,
			MaxTokens: 1024,
			Tools:     definitions,
			Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock(agentcase.Prompt))},
		},
	})
	msg, err := runner.RunToCompletion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var answer sdk.Message
	if err := json.Unmarshal([]byte(msg.RawJSON()), &answer); err != nil {
		t.Fatal(err)
	}
	return text(answer.Content)
}

// wantRunnerResult is the tool_result the beta tool runner must send for
// the raw adapter's output out: a failure as the runner sends a tool's Go
// error, "Error: " and our text, is_error true; anything else as its
// blocks, with no is_error.
func wantRunnerResult(id string, out toolspec.Output) resultBlock {
	r := wantResult(id, out)
	if out.IsError() {
		text := "Error: " + out.AsText()
		r.Content = []contentBlock{{Type: "text", Text: &text}}
		return r
	}
	r.IsError = nil
	return r
}

// TestToolRunnerSession runs the recorded session through the SDK's beta
// tool runner (RunToCompletion, on its default message thread): the first
// request declares our exact tools, each tool_result carries the raw
// adapter's answer to the same call (a failure after the runner's
// "Error: " prefix, with is_error), and exec's snapshots reach the
// runner's context. A tool the set does not offer is the runner's to
// answer, with its own text.
func TestToolRunnerSession(t *testing.T) {
	runner := func(ctx context.Context, t *testing.T, client sdk.Client, set *anthropic.Tools) string {
		return runToolRunner(ctx, t, client, set, nil)
	}
	checkSession(t, "toolrunner.txtar", runner, func(c toolCall, out toolspec.Output) resultBlock {
		want := wantRunnerResult(c.ID, out)
		if c.Name == "shell" {
			text := "Error: Tool 'shell' not found"
			want.Content = []contentBlock{{Type: "text", Text: &text}}
		}
		return want
	})
}
