package eino_test

import (
	"context"
	"encoding/base64"
	"reflect"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// toolCall is one call as a tool middleware or an adk event saw it.
type toolCall struct{ Name, ID, Args, Result string }

// callRecorder is a compose.ToolMiddleware for plain tools that records
// each call it wraps.
type callRecorder struct {
	mu    sync.Mutex
	calls []toolCall
}

func (r *callRecorder) middleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			out, err := next(ctx, in)
			if err != nil {
				return nil, err
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			r.calls = append(r.calls, toolCall{in.Name, in.CallID, in.Arguments, out.Result})
			return out, nil
		}
	}}
}

// The reads of the adk test: a text file, then an image.
var adkReads = []agentcase.Call{
	{ID: "call_1", Tool: "read", Args: `{"path":"/workspace/notes.txt"}`},
	{ID: "call_2", Tool: "read", Args: `{"path":"/workspace/pixel.png"}`},
}

const (
	notesText = "# Notes\nstatus: draft\nowner: team"
	pixelText = "Read /workspace/pixel.png (image/png, 70 bytes)."
)

// runADK runs a ChatModelAgent over the session's workspace in an adk
// Runner, with the set's Middleware when media is true, a recorder in the
// ToolsConfig's ToolCallMiddlewares and one in an AgentMiddleware's
// WrapToolCall, and returns the tool events it emitted and what each
// recorder saw.
func runADK(t *testing.T, m *scriptedModel, streaming, media bool) (events []toolCall, inConfig, inMiddleware *callRecorder) {
	t.Helper()
	ws, opts := agentcase.Workspace(t)
	set, err := eino.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	inConfig, inMiddleware = &callRecorder{}, &callRecorder{}
	middlewares := []adk.AgentMiddleware{{WrapToolCall: inMiddleware.middleware()}}
	if media {
		middlewares = append(middlewares, set.Middleware())
	}
	agent, err := adk.NewChatModelAgent(t.Context(), &adk.ChatModelAgentConfig{
		Name:        "coder",
		Description: "works in the workspace",
		Model:       m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               set.All(),
			ToolCallMiddlewares: []compose.ToolMiddleware{inConfig.middleware()},
		}},
		Middlewares:   middlewares,
		MaxIterations: len(m.calls) + 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := adk.NewRunner(t.Context(), adk.RunnerConfig{Agent: agent, EnableStreaming: streaming})
	iter := runner.Query(t.Context(), agentcase.Prompt)
	var answer string
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Fatal(ev.Err)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Output.MessageOutput.Role {
		case schema.Tool:
			events = append(events, toolCall{Name: msg.ToolName, ID: msg.ToolCallID, Result: msg.Content})
		case schema.Assistant:
			answer = msg.Content
		}
	}
	if answer != agentcase.Answer {
		t.Errorf("answer %q, want %q", answer, agentcase.Answer)
	}
	return events, inConfig, inMiddleware
}

// In an adk Runner, read is seen as ls and exec are: a ChatModelAgent
// emits a tool event with read's exact text for each call, and tool
// middlewares (the ToolsConfig's and an AgentMiddleware's) wrap each call.
// With the set's Middleware, the image read reaches the model's next
// request as its text part then an image part; without it, as its text.
// Invoked and streamed.
func TestADKRead(t *testing.T) {
	wantCalls := []toolCall{
		{"read", "call_1", adkReads[0].Args, notesText},
		{"read", "call_2", adkReads[1].Args, pixelText},
	}
	wantEvents := []toolCall{{"read", "call_1", "", notesText}, {"read", "call_2", "", pixelText}}
	pixel := base64.StdEncoding.EncodeToString(agentcase.Pixel)
	for _, streaming := range []bool{false, true} {
		for _, media := range []bool{true, false} {
			m := newModel(adkReads)
			events, inConfig, inMiddleware := runADK(t, m, streaming, media)
			if !reflect.DeepEqual(events, wantEvents) {
				t.Errorf("streaming %v, media %v: tool events %q, want %q", streaming, media, events, wantEvents)
			}
			for name, r := range map[string]*callRecorder{"ToolsConfig": inConfig, "AgentMiddleware": inMiddleware} {
				if !reflect.DeepEqual(r.calls, wantCalls) {
					t.Errorf("streaming %v, media %v: the %s tool middleware saw %q, want %q", streaming, media, name, r.calls, wantCalls)
				}
			}
			text := m.state.results["call_1"]
			if text == nil || text.Content != notesText || len(text.UserInputMultiContent) != 0 {
				t.Fatalf("streaming %v, media %v: the text read reached the model as %+v", streaming, media, text)
			}
			img := m.state.results["call_2"]
			if img == nil {
				t.Fatalf("streaming %v, media %v: the image read never reached the model", streaming, media)
			}
			want := pixelText
			if media {
				want = pixelText + "\n[image_url image/png " + pixel + "]"
			}
			if got := messageText(img, 0); got != want || img.ToolName != "read" {
				t.Errorf("streaming %v, media %v: the image read reached the model as %q (tool %q), want %q", streaming, media, got, img.ToolName, want)
			}
		}
	}
}
