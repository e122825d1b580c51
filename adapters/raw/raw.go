// Package raw is the framework-free adapter: tool definitions (name,
// description, JSON Schema) and a call that returns the model output as
// core renders it. It is the reference point of every other adapter:
// each renders this output for its framework and adds nothing.
package raw

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// Definition is one tool as the model is told about it. OutputSchema is
// the JSON Schema of the tool's json results (the reference's, a draft-07
// anyOf of the success and the failure object: write, edit, delete,
// publish), nil for a tool without one; it describes Execute's JSON,
// never error text (invalid arguments).
type Definition struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Tools is a tool set over one workspace.
type Tools struct {
	ex *core.Executor
}

// New builds the tool set for ws. It fails when an option is out of range.
func New(ws *vfs.Workspace, opts agenttools.Options) (*Tools, error) {
	ex, err := adapt.Executor("raw", ws, opts)
	if err != nil {
		return nil, err
	}
	return &Tools{ex: ex}, nil
}

// Executor is the core executor behind the tool set.
func (t *Tools) Executor() *core.Executor { return t.ex }

// Definitions lists the tools offered, in the reference's order.
func (t *Tools) Definitions() []Definition {
	var out []Definition
	for _, tool := range t.ex.Tools() {
		d := Definition{Name: tool.Name, Description: tool.Description, InputSchema: json.RawMessage(tool.InputSchema)}
		if tool.OutputSchema != "" {
			d.OutputSchema = json.RawMessage(tool.OutputSchema)
		}
		out = append(out, d)
	}
	return out
}

// Execute runs the tool name with the arguments the model sent (JSON
// text) and returns what the model must see. Invalid arguments and tool
// failures are outputs (error text, or a json object with an error key,
// whose Kind is OutputJSON as a result's: Output.IsError tells them);
// the error is only for an unknown tool (*toolspec.UnknownToolError), a
// cancelled context, or an error of Options.Approver. A tool that needs
// approval (Options.Approve) asks Options.Approver, or takes the decision
// core.WithApproval put on ctx; a refused call changes nothing and its
// output is the refusal (see core.Executor.Call).
func (t *Tools) Execute(ctx context.Context, name string, args []byte) (toolspec.Output, error) {
	return t.ex.Call(ctx, name, args)
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type fileData struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type filePart struct {
	Type      string   `json:"type"`
	Data      fileData `json:"data"`
	MediaType string   `json:"mediaType"`
	Filename  string   `json:"filename"`
}

// ContentParts is a content output's parts as JSON, as the reference
// lists them: a text part, then a file part with the bytes in base64.
func ContentParts(o toolspec.Output) json.RawMessage {
	parts := []any{textPart{Type: toolspec.ContentTextPart, Text: o.Text}}
	if o.HasMedia() {
		parts = append(parts, filePart{
			Type:      toolspec.ContentFilePart,
			Data:      fileData{Type: toolspec.ContentFileData, Data: base64.StdEncoding.EncodeToString(o.Media.Data)},
			MediaType: o.Media.MediaType,
			Filename:  o.Media.Filename,
		})
	}
	return marshal(parts)
}

// Value is the output's value as JSON: the string of a text or error-text
// output, the object of a json output, the parts of a content output.
func Value(o toolspec.Output) json.RawMessage {
	switch o.Kind {
	case toolspec.OutputJSON:
		return json.RawMessage(o.JSON)
	case toolspec.OutputContent:
		return ContentParts(o)
	}
	return marshal(o.Text)
}

// ModelOutput is the output as the reference's model output object,
// {"type": kind, "value": value}. A json output's value is compacted as
// encoding/json compacts a json.RawMessage, except the JSON of a result
// core wrote (toolspec.Output.FromResult): that is compact already, and
// its object is the one core wrote around it, returned without reading
// or copying it (it shares the output's memory). It panics when a json
// output's value, checked, is not JSON.
func ModelOutput(o toolspec.Output) json.RawMessage {
	if object, ok := o.ModelOutput(); ok {
		return object
	}
	value := Value(o)
	if o.Kind == toolspec.OutputJSON {
		var err error
		if value, err = core.CompactJSON(value); err != nil {
			panic(err)
		}
	}
	kind := marshal(o.Kind)
	out := make([]byte, 0, len(`{"type":,"value":}`)+len(kind)+len(value))
	out = append(out, `{"type":`...)
	out = append(out, kind...)
	out = append(out, `,"value":`...)
	out = append(out, value...)
	return append(out, '}')
}

func marshal(v any) json.RawMessage {
	b, err := core.MarshalJSON(v)
	if err != nil {
		panic(err)
	}
	return b
}
