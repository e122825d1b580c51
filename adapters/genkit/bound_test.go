package genkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/internal/agentcase"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// TestBoundKeepsOtherGoroutines: under Bound, a call of ours that returns
// a Go error to code other than Genkit's loop (a tool of the user's that
// calls ours with a context of its own and answers the model itself, or
// the caller calling a tool directly) does not end the run's other calls:
// the run goes on, each later call of ours returns its result, and no
// goroutine but one Genkit started for a tool request is ended.
func TestBoundKeepsOtherGoroutines(t *testing.T) {
	t.Run("a tool of the user's", func(t *testing.T) {
		g, set := defined(t)
		read, _ := set.Named(toolspec.ToolRead)
		// guarded_read gives our read a context of its own (here one
		// already over) and answers the model when the call fails.
		genkit.DefineTool(g, "guarded_read", "Reads a file, or says it could not.", func(tc *ai.ToolContext, input map[string]any) (string, error) {
			ctx, cancel := context.WithCancel(tc)
			cancel()
			if _, err := read.RunRaw(ctx, input); err != nil {
				return "could not read in time", nil
			}
			return "read", nil
		})
		model := newScriptedModel([]agentcase.Call{
			{ID: "call_1", Tool: "guarded_read", Args: `{"path":"/workspace/notes.txt"}`},
			{ID: "call_2", Tool: toolspec.ToolRead, Args: `{"path":"/workspace/notes.txt"}`},
		})
		done := make(chan error, 1)
		go func() {
			_, err := agentgenkit.Generate(t.Context(), g, ai.WithModel(model.define(g)), ai.WithPrompt(agentcase.Prompt),
				ai.WithTools(append(set.Refs(), ai.ToolName("guarded_read"))...))
			done <- err
		}()
		if err := await(t, done, "Generate (the second call's goroutine was ended)"); err != nil {
			t.Fatal(err)
		}
		if r := model.results["call_2"]; r == nil {
			t.Error("the model never received read's result")
		}
	})
	t.Run("a direct call", func(t *testing.T) {
		ws, opts := agentcase.Workspace(t)
		set, err := agentgenkit.New(ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		read, _ := set.Named(toolspec.ToolRead)
		input := map[string]any{"path": "/workspace/notes.txt"}
		returned := make(chan error, 1)
		go func() {
			ended := true
			defer func() {
				if ended {
					returned <- errors.New("the caller's goroutine was ended")
				}
			}()
			_, err := agentgenkit.Bound(t.Context(), func(ctx context.Context) (any, error) {
				over, cancel := context.WithCancel(ctx)
				cancel()
				if _, err := read.RunRaw(over, input); !errors.Is(err, context.Canceled) {
					t.Errorf("a call on a cancelled context: %v", err)
				}
				return read.RunRaw(ctx, input)
			})
			ended = false
			returned <- err
		}()
		if err := await(t, returned, "Bound"); err != nil {
			t.Error(err)
		}
	})
}

// await is what done delivers, within a minute (a generous guard against
// a hang: a test that passes takes a fraction of it).
func await(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

// TestBoundRetry: under one Bound, a Generate whose context of its own
// ended while it called our tools (a timeout the caller set) fails, and
// a Generate the caller runs again on a live context gets its calls'
// results: the first run's failure does not end the second run's calls.
func TestBoundRetry(t *testing.T) {
	g, set := defined(t)
	first := newScriptedModel([]agentcase.Call{{ID: "call_1", Tool: toolspec.ToolRead, Args: `{"path":"/workspace/notes.txt"}`}})
	second := newScriptedModel([]agentcase.Call{{ID: "call_2", Tool: toolspec.ToolRead, Args: `{"path":"/workspace/notes.txt"}`}})
	firstModel := first.define(g)
	secondModel := genkit.DefineModel(g, "second", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true}}, second.generate)
	done := make(chan error, 1)
	go func() {
		_, err := agentgenkit.Bound(t.Context(), func(ctx context.Context) (*ai.ModelResponse, error) {
			attempt, cancel := context.WithCancel(ctx)
			defer cancel()
			// The attempt's time runs out while the model asks for a call.
			first.onTurn = func(int) { cancel() }
			if _, err := genkit.Generate(attempt, g, ai.WithModel(firstModel), ai.WithPrompt(agentcase.Prompt), ai.WithTools(set.Refs()...)); err == nil {
				t.Error("the attempt whose context ended succeeded")
			}
			return genkit.Generate(ctx, g, ai.WithModel(secondModel), ai.WithPrompt(agentcase.Prompt), ai.WithTools(set.Refs()...))
		})
		done <- err
	}()
	if err := await(t, done, "the second Generate"); err != nil {
		t.Fatal(err)
	}
	if second.results["call_2"] == nil {
		t.Error("the model never received the second run's read")
	}
}

// defined is a Genkit with the tool set over agentcase's workspace
// defined on it.
func defined(t *testing.T) (*genkit.Genkit, *agentgenkit.Tools) {
	t.Helper()
	g := initGenkit(t)
	ws, opts := agentcase.Workspace(t)
	set, err := agentgenkit.Define(g, ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, set
}
