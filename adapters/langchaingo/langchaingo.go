// Package langchaingo adapts the workspace tools to
// github.com/tmc/langchaingo: each tool is a tools.Tool for an agent's
// executor, and Definitions gives the llms.Tool definitions with the
// exact JSON Schemas.
//
// A tool's Call takes the model's JSON arguments and returns what the
// model must see, as a string: the text of a text or error-text output,
// a json output serialized as JavaScript's JSON.stringify does (no
// spaces, the reference's key order). A tool failure or invalid
// arguments are that string too, never a Go error, because a Go error
// aborts langchaingo's executor; Call returns an error only when its
// context is cancelled. read of an image or PDF returns the text part
// only (langchaingo's tool results are strings); use adapters/raw or
// another adapter to hand the model the file itself. exec returns its
// final result; langchaingo tools have no running output, but a
// core.WithSnapshots function on the context given to chains.Run
// receives exec's running snapshots.
//
// langchaingo's agents do not send real schemas: its functions agent
// describes every tool as taking one string, __arg1. WithDefinitions
// wraps a model so that it sends Definitions instead (or the Definition
// of the tools you pass the agent); the agent then passes the model's
// JSON arguments through to Call unchanged, except that it unwraps an
// object whose __arg1 is a string (our schemas have no such argument).
// Without the wrapper, Call still accepts the JSON text the model puts
// in __arg1.
//
//	set, err := langchaingo.New(ws, agenttools.Options{})
//	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(llm, set.Definitions()), set.All())
//	executor := agents.NewExecutor(agent, agents.WithMaxIterations(20))
//	answer, err := chains.Run(ctx, executor, "Fix the failing test in /workspace")
package langchaingo

import (
	"context"
	"encoding/json"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// Tools is the tool set over one workspace, as langchaingo tools. All,
// Named and the per-tool accessors find them.
type Tools struct {
	set adapt.Set[tools.Tool]
}

// New builds the tool set for ws. It fails when ws is nil or an option
// is out of range.
func New(ws *vfs.Workspace, opts agenttools.Options) (*Tools, error) {
	ex, err := adapt.Executor("langchaingo", ws, opts)
	if err != nil {
		return nil, err
	}
	s := &Tools{}
	s.set.Init(ex, adapt.Forms[tools.Tool]{Plain: s.plain, Media: s.media, Streaming: s.streaming})
	return s, nil
}

// Definitions returns the Definition of every tool of All, in order.
func (s *Tools) Definitions() []llms.Tool {
	var defs []llms.Tool
	for _, t := range s.set.All() {
		defs = append(defs, t.(*Tool).Definition())
	}
	return defs
}

// Tool is one workspace tool as a langchaingo tools.Tool.
type Tool struct {
	ex   *core.Executor
	info core.Tool
}

var _ tools.Tool = (*Tool)(nil)

func (s *Tools) plain(t core.Tool) tools.Tool { return &Tool{ex: s.set.Executor(), info: t} }

// media: a langchaingo tool returns a string, so an image or PDF reaches
// the model as its text part.
func (s *Tools) media(t core.Tool) tools.Tool { return s.plain(t) }

// streaming: langchaingo tools have no running output; the final result
// is the string.
func (s *Tools) streaming(t core.Tool) tools.Tool { return s.plain(t) }

// Definition is the tool as an llms.Tool function definition, with its
// exact JSON Schema (a json.RawMessage, sent as is).
func (t *Tool) Definition() llms.Tool {
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
		Name:        t.info.Name,
		Description: t.info.Description,
		Parameters:  json.RawMessage(t.info.InputSchema),
	}}
}

// Name is the tool's name, as in the reference, after the options' prefix
// (agenttools.Options.Prefix).
func (t *Tool) Name() string { return t.info.Name }

// Description is what the model is told the tool does, as in the
// reference.
func (t *Tool) Description() string { return t.info.Description }

// Call runs the tool with input, the model's arguments as JSON text, and
// returns what the model must see (see the package documentation). The
// error is only for a cancelled context.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	out, err := t.ex.Call(ctx, t.info.Name, []byte(input))
	if err != nil {
		return "", err
	}
	return out.AsText(), nil
}

// Text is out.AsText(): the text of a text or error-text output, the
// JSON text of a json output, the text part of a content output.
//
// Deprecated: use the Output's AsText method.
func Text(out toolspec.Output) string { return out.AsText() }

// WithDefinitions wraps model so that every call sends defs as its tools
// (llms.WithTools) in place of the functions an agent passes
// (llms.WithFunctions), and no tool choice but the caller's. Everything
// else passes through.
func WithDefinitions(model llms.Model, defs []llms.Tool) llms.Model {
	return &definedModel{Model: model, defs: defs}
}

type definedModel struct {
	llms.Model
	defs []llms.Tool
}

func (m *definedModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	options = append(options, func(o *llms.CallOptions) {
		o.Functions = nil
		o.Tools = m.defs
	})
	return m.Model.GenerateContent(ctx, messages, options...)
}

func (m *definedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}
