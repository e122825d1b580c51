package genkit

import (
	"context"
	"encoding/json"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"

	"github.com/agenttools/agenttools/core"
)

// tool makes gt, Genkit's tool for t, the set's tool.
func (s *Tools) tool(t core.Tool, gt ai.Tool) ai.Tool {
	return &tool{Tool: gt, schema: s.schemas[t.Name]}
}

// tool is Genkit's tool (ai.NewTool, ai.NewMultipartTool) built without
// an input schema, so that Genkit checks no input, with the tool's own
// schema put back wherever a model plugin reads it: its Definition, and
// the action it registers, which Generate looks up for the definitions
// it sends and for the calls it runs (see action).
type tool struct {
	ai.Tool
	schema map[string]any
}

// Definition is Genkit's, with the tool's input schema.
func (t *tool) Definition() *ai.ToolDefinition {
	d := t.Tool.Definition()
	d.InputSchema = t.schema
	return d
}

// Register registers the tool's action (Genkit's, under each of its
// keys) as an action with the tool's schema.
func (t *tool) Register(r api.Registry) {
	t.Tool.Register(schemaRegistry{Registry: r, schema: t.schema})
}

// RunRaw is RunRawMultipart's Output, as Genkit's.
func (t *tool) RunRaw(ctx context.Context, input any) (any, error) {
	resp, err := t.RunRawMultipart(ctx, input)
	if err != nil {
		return nil, err
	}
	return resp.Output, nil
}

// RunRawMultipart gives the tool input encoded as JSON, nulls and all.
func (t *tool) RunRawMultipart(ctx context.Context, input any) (*ai.MultipartToolResponse, error) {
	args, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	return t.Tool.RunRawMultipart(withArgs(ctx, args), input)
}

// schemaRegistry is a registry that records each action as an action
// with the tool's schema.
type schemaRegistry struct {
	api.Registry
	schema map[string]any
}

func (r schemaRegistry) RegisterAction(key string, a api.Action) {
	r.Registry.RegisterAction(key, &action{Action: a, schema: r.schema})
}

// action is a tool's Genkit action as registered: Desc has the tool's
// input schema, which Generate sends the model (ai.ToolDef.Definition
// reads it), while Genkit's own action, whose description has no input
// schema and which so checks nothing, runs the call. RunJSON puts the
// JSON it is given (Generate's encoding of the model's decoded
// arguments) on the context for the tool, because Genkit's action
// decodes it dropping every null-valued field.
type action struct {
	api.Action
	schema map[string]any
}

func (a *action) Desc() api.ActionDesc {
	d := a.Action.Desc()
	d.InputSchema = a.schema
	return d
}

func (a *action) Register(r api.Registry) { r.RegisterAction(a.Desc().Key, a) }

func (a *action) RunJSON(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	return a.Action.RunJSON(withArgs(ctx, input), input, cb)
}

func (a *action) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	return a.Action.RunJSONWithTelemetry(withArgs(ctx, input), input, cb)
}

// argsKey holds a call's arguments as JSON on its context.
type argsKey struct{}

func withArgs(ctx context.Context, args json.RawMessage) context.Context {
	return context.WithValue(ctx, argsKey{}, args)
}
