// Package eino adapts the workspace tools to github.com/cloudwego/eino
// (v0.7.36): each tool is a tool.BaseTool for an adk.ChatModelAgent, a
// compose.ToolsNode or a react agent (flow/agent/react), described by the
// exact JSON Schema.
//
//	set, err := eino.New(ws, agenttools.Options{})
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Name:        "coder",
//		Description: "works in the workspace",
//		Model:       chatModel,
//		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: set.All()}},
//		Middlewares: []adk.AgentMiddleware{set.Middleware()}, // read's images as image parts
//	})
//	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Fix the failing test")
//
// or, with a react agent:
//
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.All()},
//		MessageRewriter:  set.MediaRewriter(),
//		MaxStep:          40,
//	})
//	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Fix the failing test")})
//
// # What the model is sent
//
// Info gives a schema.ToolInfo whose ParamsOneOf holds the tool's JSON
// Schema (core.Tool.InputSchema) parsed into an eino-contrib/jsonschema
// Schema (schema.NewParamsOneOfByJSONSchema). Every keyword and value is
// kept, and so is the order of the properties (an ordered map), but a
// chat model that marshals the Schema writes the keys of each schema
// object in the Schema struct's field order, not the spec's: $schema,
// $ref, anyOf, items, properties, additionalProperties, propertyNames,
// enum, maximum, minimum, required, description, default, then type, then
// the keywords Schema has no field for (draft-07's definitions, which
// exec's input parameter uses with a callable backend), kept in Extras
// as their exact JSON text. So the spec's
//
//	{"$schema":…,"type":"object","properties":{"path":{"type":"string","description":…}},"required":[…],"additionalProperties":false}
//
// reaches the model as
//
//	{"$schema":…,"properties":{"path":{"description":…,"type":"string"}},"additionalProperties":false,"required":[…],"type":"object"}
//
// the same JSON value, the same length, another key order. Numbers keep
// their text (json.Number); encoding/json escapes <, > and & in strings,
// which the spec's schemas do not contain. $schema stays draft-07.
//
// # What the model receives
//
// A tool's result is what core produced, never re-worded; a tool failure
// or arguments that fail the schema are results too, never a Go error
// (eino turns a tool's Go error into a graph error that ends the run). A
// Go error means only that the context was cancelled, or is eino's
// interrupt of a call waiting for approval (see Approval).
//
//   - ls, find, grep, write, edit, delete, read (*Tool, a
//     tool.InvokableTool): InvokableRun returns the string of Text: the
//     JSON text of a json output (JavaScript's JSON.stringify form, the
//     reference's key order), the text of an error-text output, the text
//     part of read's image or PDF. A ToolsNode puts it in the tool
//     message's Content. So every call of read is seen as the others are:
//     an adk.ChatModelAgent emits its tool event and a
//     compose.ToolMiddleware's Invokable function wraps it (eino v0.7.36
//     does neither for an enhanced tool).
//   - read's image or PDF reaches the model through a hook that rewrites
//     the tool message before the next chat model call: Middleware, an
//     adk.AgentMiddleware for a ChatModelAgent, or MediaRewriter, for
//     react.AgentConfig.MessageRewriter or any graph. The message becomes
//     the text part then an image part (image/*) or a file part (anything
//     else, a PDF) with the bytes in base64 and the media type, in
//     UserInputMultiContent, with Content empty: what a ToolsNode builds
//     for an enhanced tool. So the chat model must send a tool message's
//     UserInputMultiContent. eino's file part has no name: the file name
//     is not passed. Some chat models refuse such a message (eino-ext's
//     OpenAI model v0.1.7 takes multipart content from user messages
//     only): leave the hook out, or use TextRead, and an image or PDF
//     reaches the model as its text part. With EnhancedRead, read is a
//     *MediaTool instead, a tool.EnhancedInvokableTool whose InvokableRun
//     returns the parts (Result), which a ToolsNode turns into that same
//     message with no hook, but which adk does not see.
//   - exec (*StreamingTool, both a tool.InvokableTool and a
//     tool.StreamableTool): InvokableRun returns the final result. A
//     ToolsNode calls InvokableRun when the graph is invoked and
//     StreamableRun when it is streamed, and concatenates the chunks of a
//     stream into the tool message's Content. So StreamableRun run by a
//     ToolsNode (compose.GetToolCallID is set) streams one chunk, the
//     final result, and the model receives exactly that. Run by anyone
//     else, it streams the running snapshots (json, exitCode null, at most
//     one per 100 ms), then the final result, each chunk one whole JSON
//     object: a reader keeps the last chunk, it never concatenates them.
//     To watch a run inside an agent, put core.WithSnapshots on the
//     context the agent runs with; a function already on the context of
//     StreamableRun receives the snapshots too.
//
// # Approval
//
// The calls of the tools agenttools.Options.Approve names wait for a
// human through eino's interrupt and resume. Such a call, once core has
// checked its arguments (invalid ones are answered as always, nobody is
// asked), interrupts (tool.Interrupt) with the *agenttools.ApprovalRequest
// (tool, spec name, the arguments as the tool will run them) as its
// info: nothing has changed and the model has not been told. The run
// must have a checkpoint store: an adk Runner's RunnerConfig.CheckPointStore
// (run with adk.WithCheckPointID), or, for a compose graph,
// compose.WithCheckPointStore when it is compiled (invoked with
// compose.WithCheckPointID). The interrupt's contexts (the adk event's
// Action.Interrupted.InterruptContexts, or compose.ExtractInterruptInfo's)
// hold the requests; ResumeTargets turns decisions into the resume data:
//
//	targets := eino.ResumeTargets(interrupted.InterruptContexts, func(req agenttools.ApprovalRequest) bool { return askHuman(req) })
//	events, err := runner.ResumeWithParams(ctx, checkpointID, &adk.ResumeParams{Targets: targets})
//
// An approved call runs; a refused one changes nothing, and the model
// receives core's "The user did not approve this <tool> call; nothing
// was changed." in the tool's failure form as the tool's result. A call
// the resume does not target (Runner.Resume names none) interrupts
// again. The ToolsNode keeps the results of the turn's other calls in
// the checkpoint. The react agent (flow/agent/react) compiles its graph
// without a checkpoint store, so its Generate cannot be resumed: add its
// graph (ExportGraph) as a node of a graph compiled with one. With an
// Options.Approver, the approver decides instead and nothing interrupts.
package eino

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// Tools is the tool set over one workspace, as eino tools: a
// *StreamingTool for exec, a *Tool for the others (read included, or a
// *MediaTool for read with EnhancedRead). All, Named and the per-tool
// accessors find them.
type Tools struct {
	set adapt.Set[tool.BaseTool]
	// readForm is how New builds read: plainRead, textRead or enhancedRead.
	readForm int
	stash    mediaStash
}

const (
	plainRead = iota
	textRead
	enhancedRead
)

// Option changes how New builds the tools.
type Option func(*Tools)

// TextRead makes read's image or PDF reach the model as its text part
// only, even with Middleware or MediaRewriter: they attach nothing. For
// chat models that refuse a tool message with multipart content
// (eino-ext's OpenAI model v0.1.7 accepts UserInputMultiContent on user
// messages only). read is a plain *Tool either way.
func TextRead() Option { return func(s *Tools) { s.readForm = textRead } }

// EnhancedRead makes read a *MediaTool, a tool.EnhancedInvokableTool: a
// compose.ToolsNode puts its parts in the tool message itself, with no
// hook. In eino v0.7.36 such a tool is invisible to adk: a ChatModelAgent
// emits no event for its calls, and a compose.ToolMiddleware sees them
// only through its EnhancedInvokable function (adk.AgentMiddleware's
// WrapToolCall is dropped when it has only that one). For a
// compose.ToolsNode or react agent that needs neither.
func EnhancedRead() Option { return func(s *Tools) { s.readForm = enhancedRead } }

// New builds the tool set for ws. It fails when ws is nil, an option is
// out of range or a tool's JSON Schema does not parse as a
// jsonschema.Schema.
func New(ws *vfs.Workspace, opts agenttools.Options, options ...Option) (*Tools, error) {
	if opts.Approver == nil {
		opts.Approver = core.ApproverFunc(interrupter)
	}
	ex, err := adapt.Executor("eino", ws, opts)
	if err != nil {
		return nil, err
	}
	for _, t := range ex.Tools() {
		if _, err := toolInfo(t); err != nil {
			return nil, err
		}
	}
	s := &Tools{}
	for _, o := range options {
		o(s)
	}
	s.set.Init(ex, adapt.Forms[tool.BaseTool]{Plain: s.plain, Media: s.media, Streaming: s.streaming})
	return s, nil
}

// Infos returns the Info of every tool of All, in order: what an agent
// binds to its chat model.
func (s *Tools) Infos(ctx context.Context) ([]*schema.ToolInfo, error) {
	all := s.set.All()
	infos := make([]*schema.ToolInfo, 0, len(all))
	for _, t := range all {
		info, err := t.Info(ctx)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	return infos, nil
}

func (s *Tools) plain(t core.Tool) tool.BaseTool { return &Tool{base{ex: s.set.Executor(), tool: t}} }

func (s *Tools) media(t core.Tool) tool.BaseTool {
	switch s.readForm {
	case enhancedRead:
		return &MediaTool{base{ex: s.set.Executor(), tool: t}}
	case textRead:
		return s.plain(t)
	}
	return &Tool{base{ex: s.set.Executor(), tool: t, media: &s.stash}}
}

func (s *Tools) streaming(t core.Tool) tool.BaseTool {
	return &StreamingTool{base{ex: s.set.Executor(), tool: t}}
}

// base is what every tool shares: the executor and the tool's name,
// description and schema.
type base struct {
	ex   *core.Executor
	tool core.Tool
	// media, for read as a plain tool, keeps an image or PDF for
	// Middleware or MediaRewriter to attach.
	media *mediaStash
}

// Info describes the tool to the model: its name, description and JSON
// Schema, as in the reference (see the package documentation for the key
// order a marshaled schema has). Each call returns a new ToolInfo and
// Schema, so a chat model may change them.
func (b *base) Info(context.Context) (*schema.ToolInfo, error) { return toolInfo(b.tool) }

func toolInfo(t core.Tool) (*schema.ToolInfo, error) {
	var params jsonschema.Schema
	err := json.Unmarshal([]byte(t.InputSchema), &params)
	if err == nil {
		err = keepUnknown([]byte(t.InputSchema), &params)
	}
	if err != nil {
		return nil, errors.New("eino: the schema of " + t.Name + ": " + err.Error())
	}
	return &schema.ToolInfo{Name: t.Name, Desc: t.Description, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&params)}, nil
}

// schemaKeywords are the keywords jsonschema.Schema has a field for.
var schemaKeywords = func() map[string]bool {
	known := map[string]bool{"type": true}
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		if name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			known[name] = true
		}
	}
	return known
}()

// keepUnknown puts the keywords of raw that s has no field for (draft-07's
// definitions, say) in s.Extras, as their JSON text, in s and in every
// subschema: json.Unmarshal drops them, and a $ref into definitions would
// point nowhere.
func keepUnknown(raw json.RawMessage, s *jsonschema.Schema) error {
	var fields map[string]json.RawMessage
	if s == nil || len(raw) == 0 || raw[0] != '{' {
		return nil // a boolean schema
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	one := func(key string, sub *jsonschema.Schema) error { return keepUnknown(fields[key], sub) }
	list := func(key string, subs []*jsonschema.Schema) error {
		var raws []json.RawMessage
		if err := json.Unmarshal(fields[key], &raws); err != nil || len(raws) != len(subs) {
			return err
		}
		for i := range subs {
			if err := keepUnknown(raws[i], subs[i]); err != nil {
				return err
			}
		}
		return nil
	}
	named := func(key string, sub func(name string) *jsonschema.Schema) error {
		var raws map[string]json.RawMessage
		if err := json.Unmarshal(fields[key], &raws); err != nil {
			return err
		}
		for name, r := range raws {
			if err := keepUnknown(r, sub(name)); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	for key := range fields {
		switch key {
		case "properties":
			err = named(key, func(name string) *jsonschema.Schema {
				if s.Properties == nil {
					return nil
				}
				v, _ := s.Properties.Get(name)
				return v
			})
		case "$defs":
			err = named(key, func(name string) *jsonschema.Schema { return s.Definitions[name] })
		case "patternProperties":
			err = named(key, func(name string) *jsonschema.Schema { return s.PatternProperties[name] })
		case "dependentSchemas":
			err = named(key, func(name string) *jsonschema.Schema { return s.DependentSchemas[name] })
		case "allOf":
			err = list(key, s.AllOf)
		case "anyOf":
			err = list(key, s.AnyOf)
		case "oneOf":
			err = list(key, s.OneOf)
		case "prefixItems":
			err = list(key, s.PrefixItems)
		case "items":
			err = one(key, s.Items)
		case "contains":
			err = one(key, s.Contains)
		case "additionalProperties":
			err = one(key, s.AdditionalProperties)
		case "propertyNames":
			err = one(key, s.PropertyNames)
		case "not":
			err = one(key, s.Not)
		case "if":
			err = one(key, s.If)
		case "then":
			err = one(key, s.Then)
		case "else":
			err = one(key, s.Else)
		case "contentSchema":
			err = one(key, s.ContentSchema)
		default:
			if !schemaKeywords[key] {
				if s.Extras == nil {
					s.Extras = map[string]any{}
				}
				s.Extras[key] = fields[key]
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// call runs the tool with the model's arguments (JSON text), with the
// decision a resumed call was given.
func (b *base) call(ctx context.Context, args string) (toolspec.Output, error) {
	if b.ex.NeedsApproval(b.tool.Name) {
		ctx = decision(ctx)
	}
	return b.ex.Call(ctx, b.tool.Name, []byte(args))
}

// Tool is a workspace tool whose result is a string: ls, find, grep,
// write, edit, delete, and read (unless EnhancedRead).
type Tool struct{ base }

var _ tool.InvokableTool = (*Tool)(nil)

// InvokableRun runs the tool with argumentsInJSON, the model's arguments,
// and returns what the model must see (Text). A failure or invalid
// arguments are that string; the error is only for a cancelled context
// or an interrupt for approval. Options are ignored. For read's image or PDF the string is the text
// part; run by a ToolsNode (compose.GetToolCallID is set) while
// Middleware or MediaRewriter is in use, the media is kept, by call ID,
// for them to attach to the tool message.
func (t *Tool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	out, err := t.call(ctx, argumentsInJSON)
	if err != nil {
		return "", err
	}
	if t.media != nil && out.HasMedia() {
		t.media.keep(compose.GetToolCallID(ctx), out)
	}
	return out.AsText(), nil
}

// MediaTool is read with EnhancedRead: a tool that can answer an image or
// PDF as parts. adk (eino v0.7.36) emits no event for it and a tool
// middleware sees it only through its EnhancedInvokable function.
type MediaTool struct{ base }

var _ tool.EnhancedInvokableTool = (*MediaTool)(nil)

// InvokableRun runs the tool with the model's arguments (toolArgument.Text,
// JSON; nil is no arguments) and returns what the model must see, as
// parts (Result). A failure or invalid arguments are a text part; the
// error is only for a cancelled context or an interrupt for approval.
// Options are ignored.
func (t *MediaTool) InvokableRun(ctx context.Context, toolArgument *schema.ToolArgument, _ ...tool.Option) (*schema.ToolResult, error) {
	args := ""
	if toolArgument != nil {
		args = toolArgument.Text
	}
	out, err := t.call(ctx, args)
	if err != nil {
		return nil, err
	}
	return Result(out), nil
}

// StreamingTool is a workspace tool that reports running snapshots
// before its result: exec. A ToolsNode uses InvokableRun when invoked and
// StreamableRun when streamed; either way the model receives the final
// result only.
type StreamingTool struct{ base }

var (
	_ tool.InvokableTool  = (*StreamingTool)(nil)
	_ tool.StreamableTool = (*StreamingTool)(nil)
)

// InvokableRun runs the tool to the end and returns its final result
// (Text). A failure or invalid arguments are that string; the error is
// only for a cancelled context (the command is killed) or an interrupt
// for approval. Running snapshots
// go to a core.WithSnapshots function on ctx, if any. Options are
// ignored.
func (t *StreamingTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	out, err := t.call(ctx, argumentsInJSON)
	if err != nil {
		return "", err
	}
	return out.AsText(), nil
}

// StreamableRun runs the tool and streams its output as whole JSON
// objects. Run by a ToolsNode (ctx carries a compose.GetToolCallID),
// whose tool message is the concatenation of the chunks, the stream is one
// chunk: the final result. Run by anyone else, it is each running
// snapshot (exitCode null) then the final result (Text); a reader that
// falls behind misses intermediate snapshots, never the final one, and
// the command never waits for it. Cancelling ctx kills the command and
// ends the stream with ctx's error; the reader must be read to the end or
// closed. The returned error is only for a context already cancelled
// or, run by a ToolsNode, an interrupt for approval (run by anyone else,
// the interrupt ends the stream).
func (t *StreamingTool) StreamableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (*schema.StreamReader[string], error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if compose.GetToolCallID(ctx) != "" {
		final, err := t.InvokableRun(ctx, argumentsInJSON)
		if err != nil {
			return nil, err
		}
		return schema.StreamReaderFromArray([]string{final}), nil
	}
	r, w := schema.Pipe[string](1)
	// latest holds the newest snapshot not yet sent; a newer one replaces
	// it, so the command never blocks on the reader.
	latest := make(chan string, 1)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for s := range latest {
			if w.Send(s, nil) {
				for range latest {
				}
			}
		}
	}()
	go func() {
		defer w.Close()
		out, err := t.call(core.WithSnapshots(ctx, func(o toolspec.Output) {
			s := o.AsText()
			select {
			case latest <- s:
			default:
				select {
				case <-latest:
				default:
				}
				latest <- s
			}
		}), argumentsInJSON)
		close(latest)
		<-sent
		if err != nil {
			w.Send("", err)
			return
		}
		w.Send(out.AsText(), nil)
	}()
	return r, nil
}

// Text is out.AsText(): the text of a text or error-text output, the
// JSON text of a json output, the text part of a content output.
//
// Deprecated: use the Output's AsText method.
func Text(out toolspec.Output) string { return out.AsText() }

// Result is an output as eino tool parts: a text part holding Text, then,
// for a content output, an image part (a media type image/*) or a file
// part (any other, a PDF) with the bytes in standard base64 and the media
// type.
func Result(out toolspec.Output) *schema.ToolResult {
	parts := []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: out.AsText()}}
	if out.HasMedia() {
		data := base64.StdEncoding.EncodeToString(out.Media.Data)
		common := schema.MessagePartCommon{Base64Data: &data, MIMEType: out.Media.MediaType}
		if out.Media.IsImage() {
			parts = append(parts, schema.ToolOutputPart{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: common}})
		} else {
			parts = append(parts, schema.ToolOutputPart{Type: schema.ToolPartTypeFile, File: &schema.ToolOutputFile{MessagePartCommon: common}})
		}
	}
	return &schema.ToolResult{Parts: parts}
}
