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
// wraps a model so that it sends Definitions in place of the agent's
// functions of the same names (or the Definition of the tools you pass
// the agent), and keeps the agent's other tools (a tools.Calculator, say)
// as they were; the agent then passes the model's JSON arguments through
// to Call unchanged, except that it unwraps an object whose __arg1 is a
// string (our schemas have no such argument). Without the wrapper, Call
// still accepts the JSON text the model puts in __arg1. The definitions
// reach openai, anthropic, bedrock and mistral byte for byte;
// langchaingo's googleai and vertex providers take only part of JSON
// Schema, as a map, which WithDefinitions gives them (GoogleTools); its
// ollama provider sends no tools at all (use its openai provider with
// Ollama's OpenAI-compatible endpoint instead).
//
// langchaingo has no way to pause a tool call for a human, so approval
// (agenttools.Options.Approve) is asked of Options.Approver, a function
// called inside Call (it may block while a human decides); a refused call
// changes nothing and the model is sent the refusal as the tool's result.
//
// langchaingo's text-only agents (OneShotAgent, ConversationalAgent)
// show the model a tool's name and Description only. TextAgentTools
// gives the tools with descriptions that also list their arguments, an
// opt-in change of the text the model sees (deviation argumentList):
//
//	agent := agents.NewOneShotAgent(llm, set.TextAgentTools())
//
//	set, err := langchaingo.New(ws, agenttools.Options{})
//	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(llm, set.Definitions()), set.All())
//	executor := agents.NewExecutor(agent, agents.WithMaxIterations(20))
//	answer, err := chains.Run(ctx, executor, "Fix the failing test in /workspace")
package langchaingo

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"

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

// TextAgentTools returns the tools of All for agents that show the model
// only each tool's name and Description, never its schema (langchaingo's
// OneShotAgent, the MRKL agent, and its ConversationalAgent): each
// Description is the reference's followed by the tool's arguments, one
// line each with its name, type, whether it is required and its
// description, rendered from the input schema (toolspec.DescribeArguments).
// This changes the text the model sees (deviation argumentList), so it is
// opt-in: All and Definitions keep the reference's descriptions. The
// model's Action Input, the JSON object those lines describe, is what
// Call takes.
func (s *Tools) TextAgentTools() []tools.Tool {
	all := s.set.All()
	out := make([]tools.Tool, len(all))
	for i, t := range all {
		tool := t.(*Tool)
		out[i] = &listedTool{Tool: tool, description: toolspec.DescribeArguments(tool.info.Description, tool.info.InputSchema)}
	}
	return out
}

// listedTool is a Tool whose description lists its arguments.
type listedTool struct {
	*Tool
	description string
}

func (t *listedTool) Description() string { return t.description }

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
// exact JSON Schema (a json.RawMessage, sent as is; GoogleTools gives
// the form langchaingo's googleai and vertex providers take).
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
// error is only for a cancelled context or, for a tool that needs
// approval, an error of Options.Approver (either stops langchaingo's
// executor).
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
// (llms.WithTools), merged with what the agent and the caller pass: an
// agent's function (llms.WithFunctions, langchaingo's one-string __arg1
// form) named like one of defs is replaced by that definition; every
// other function of the agent is sent as a tool of its own, unchanged,
// after the caller's tools (llms.WithTools) and before defs that no
// function named. A tool the caller passes keeps its place, and a
// definition of the same name is then left out: each name is sent once.
// The tool choice is the caller's. Everything else passes through.
//
// defs keep their exact JSON Schema bytes (json.RawMessage) for the
// providers that send a schema as it is (openai, anthropic, bedrock,
// mistral). When model is langchaingo's googleai or vertex provider,
// whose requests take only a map[string]any of part of JSON Schema, every
// tool sent is given in GoogleTools's form instead.
func WithDefinitions(model llms.Model, defs []llms.Tool) llms.Model {
	return &definedModel{Model: model, defs: defs, google: isGoogle(model)}
}

// googleProviders are the concrete types of langchaingo's providers that
// refuse a schema that is not a map[string]any (googleai.GoogleAI,
// vertex.Vertex in langchaingo v0.1.14), by package path and name: naming
// them so, rather than in a type switch, keeps Google's SDKs out of the
// programs that do not use them.
var googleProviders = map[[2]string]bool{
	{"github.com/tmc/langchaingo/llms/googleai", "GoogleAI"}:      true,
	{"github.com/tmc/langchaingo/llms/googleai/vertex", "Vertex"}: true,
}

func isGoogle(model llms.Model) bool {
	t := reflect.TypeOf(model)
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return googleProviders[[2]string{t.PkgPath(), t.Name()}]
}

type definedModel struct {
	llms.Model
	defs   []llms.Tool
	google bool
}

func (m *definedModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	options = append(options, m.merge)
	return m.Model.GenerateContent(ctx, messages, options...)
}

func (m *definedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// merge is the call option that sends the tools WithDefinitions
// documents.
func (m *definedModel) merge(o *llms.CallOptions) {
	ours := map[string]llms.Tool{}
	for _, d := range m.defs {
		if d.Function != nil {
			ours[d.Function.Name] = d
		}
	}
	sent := map[string]bool{}
	tools := make([]llms.Tool, 0, len(o.Tools)+len(o.Functions)+len(m.defs))
	add := func(t llms.Tool) {
		if t.Function != nil {
			if sent[t.Function.Name] {
				return
			}
			sent[t.Function.Name] = true
		}
		tools = append(tools, t)
	}
	for _, t := range o.Tools {
		add(t)
	}
	for _, f := range o.Functions {
		if d, ok := ours[f.Name]; ok {
			add(d)
			continue
		}
		add(llms.Tool{Type: "function", Function: &f})
	}
	for _, d := range m.defs {
		add(d)
	}
	if m.google {
		tools = GoogleTools(tools)
	}
	o.Functions = nil
	o.Tools = tools
}

// googleKeys are the JSON Schema keywords langchaingo's googleai and
// vertex providers read (v0.1.14); they refuse or drop every other one.
var googleKeys = []string{"type", "description", "properties", "items", "required"}

// GoogleTools returns tools with each function's Parameters as the
// map[string]any that langchaingo's googleai and vertex providers
// require, holding only what they read of JSON Schema: type,
// description, properties and items (recursively) and required. Where a
// schema offers alternatives (anyOf: our string-or-list arguments), the
// map keeps the list alternative, which also takes a single value as a
// list of one, else the first; the alternative's description is the
// property's. enum, bounds, defaults and additionalProperties are left
// out, as those providers leave them out. A tool whose Parameters do not
// marshal to a JSON object is returned unchanged, for the provider to
// report; one without Parameters gets an object with no properties.
// WithDefinitions applies it by itself when it wraps one of those
// providers; call it when building llms.WithTools for them yourself.
func GoogleTools(tools []llms.Tool) []llms.Tool {
	out := make([]llms.Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		if t.Function == nil {
			continue
		}
		f := *t.Function
		if f.Parameters == nil {
			f.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
			out[i].Function = &f
			continue
		}
		data, err := json.Marshal(f.Parameters)
		if err != nil {
			continue
		}
		var schema map[string]any
		if json.Unmarshal(data, &schema) != nil || schema == nil {
			continue
		}
		f.Parameters = googleSchema(schema)
		out[i].Function = &f
	}
	return out
}

// googleSchema is schema with only googleKeys, at every level.
func googleSchema(schema map[string]any) map[string]any {
	if alts, ok := schema["anyOf"].([]any); ok && len(alts) > 0 && schema["type"] == nil {
		pick, _ := alts[0].(map[string]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && am["type"] == "array" {
				pick = am
				break
			}
		}
		if pick != nil {
			merged := maps.Clone(pick)
			if d, ok := schema["description"]; ok {
				merged["description"] = d
			}
			schema = merged
		}
	}
	out := map[string]any{}
	for _, k := range googleKeys {
		v, ok := schema[k]
		if !ok {
			continue
		}
		switch k {
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				continue
			}
			kept := map[string]any{}
			for name, p := range props {
				if pm, ok := p.(map[string]any); ok {
					kept[name] = googleSchema(pm)
				}
			}
			v = kept
		case "items":
			im, ok := v.(map[string]any)
			if !ok {
				continue
			}
			v = googleSchema(im)
		}
		out[k] = v
	}
	return out
}
