// Package anthropic gives the workspace tools to programs written directly
// on the official Anthropic Go SDK, github.com/anthropics/anthropic-sdk-go/v2
// (v2.15.0), with no framework: the caller runs its own loop, or the SDK's
// beta tool runner runs it. Each tool is declared as a client tool with its
// exact name, description and JSON Schema; the set executes the model's
// tool_use blocks and answers them with tool_result blocks.
//
//	set, err := anthropic.New(ws, agenttools.Options{})
//	params := sdk.MessageNewParams{Model: model, MaxTokens: 4096, Tools: set.Params(), Messages: history}
//	for {
//		msg, err := client.Messages.New(ctx, params)
//		// ...
//		params.Messages = append(params.Messages, msg.ToParam())
//		results, ok, err := set.ExecuteTurn(ctx, msg)
//		if err != nil || !ok {
//			break // err: a cancelled context or an Approver's error; !ok: the model answered
//		}
//		params.Messages = append(params.Messages, results)
//	}
//
// # What the model receives
//
// A tool_result block, as the reference's pi adapter answers (its content
// and isError), never re-worded:
//
//   - a text output (a whole read) and a json output (every other result,
//     JavaScript's JSON.stringify form, the reference's key order) are one
//     text block;
//   - a failure the model sees (read's error text, an {"error": ...}
//     object, exec's {command, cwd, backend, error}, arguments that fail
//     the schema, a tool the set does not offer) is the same text block
//     with is_error true; is_error is sent false otherwise, as the SDK's
//     own NewToolResultBlock does;
//   - read of an image is the text block (the reference's text part) then
//     an image block (base64, the file's media type: PNG, JPEG, GIF or
//     WebP, the ones the API takes; the type its bytes show where the
//     extension says another, which the API would refuse); of a PDF, the
//     text block then a document block (a base64 PDF source). A file
//     whose bytes are no image or PDF the API takes (a Git LFS pointer
//     saved as .png) is the text block alone, as the API would refuse
//     the request (deviation unreadableMedia).
//
// # This module
//
// The package is its own Go module, github.com/agenttools/agenttools/adapters/anthropic:
// every anthropic-sdk-go v2 release requires github.com/invopop/jsonschema
// v0.14.0, which Genkit's dependency github.com/google/dotprompt/go does
// not compile with, so a program cannot use this adapter and
// adapters/genkit together until dotprompt moves to it.
//
// # The beta tool runner
//
// BetaTools gives the same tools to client.Beta.Messages.NewToolRunner. The
// runner marks a result as a failure only when the tool's Execute returns a
// Go error, and then sends "Error: " + err.Error() as the text, is_error
// true: so there a failure reaches the model as our exact text after
// "Error: ", and a read of an image or PDF as its blocks. The runner
// itself answers a tool it does not hold ("Error: Tool 'x' not found"),
// and hands Execute the model's input encoded again from a Go value
// (object keys sorted, numbers as float64). A cancelled context or an
// Approver's error becomes such a result too, as the runner offers a tool
// no other way out; a cancelled context then ends the run at its next
// request. The runner runs a turn's tool calls at once, each in a
// goroutine of its own: two exec calls then hand their running snapshots
// to a core.WithSnapshots function at the same time, so it must be safe
// for concurrent use.
//
// A loop of your own on the beta Messages API (client.Beta.Messages.New,
// for a beta feature) declares BetaParams and answers with ExecuteBetaTurn
// (or ExecuteBeta): the same tool_result blocks as the Messages API's,
// in the beta types, with no "Error: " prefix.
//
// # Strict tool use
//
// With the Strict option, the tools it names are declared with strict
// true and a schema closed for Anthropic's strict tool use (see Strict);
// every call's arguments then lose a null the model gives for an
// optional property that takes none, which under strict tool use stands
// for a property left out, before they are checked.
package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// Tool is one workspace tool as the Messages API declares it.
type Tool struct {
	tool core.Tool
	set  *Tools
	// schema is the input schema the tool is declared with: the tool's
	// own, or closed for strict tool use when strict.
	schema string
	strict bool
}

// Name is what the model calls the tool (with the options' prefix).
func (t Tool) Name() string { return t.tool.Name }

// Param is the tool's declaration for MessageNewParams.Tools: a client
// tool with the tool's name, description and input schema, the schema's
// JSON text sent as it is, key order included, but for the escapes the
// SDK's encoder (encoding/json) writes in every string it sends: <, > and
// & as \u003c, \u003e and \u0026, U+2028 and U+2029 as \u2028 and
// \u2029, which the API decodes to the same text; with strict true when
// the Strict option covers it.
func (t Tool) Param() sdk.ToolUnionParam {
	p := &sdk.ToolParam{
		Name:        t.tool.Name,
		Description: sdk.String(t.tool.Description),
		InputSchema: param.Override[sdk.ToolInputSchemaParam](json.RawMessage(t.schema)),
	}
	if t.strict {
		p.Strict = sdk.Bool(true)
	}
	return sdk.ToolUnionParam{OfTool: p}
}

// BetaParam is Param for the beta Messages API (client.Beta.Messages). A
// beta tool runner declares its tools without strict: to send strict,
// put BetaParams in BetaToolRunnerParams.Tools, whose definitions the
// runner sends as given.
func (t Tool) BetaParam() sdk.BetaToolUnionParam {
	p := &sdk.BetaToolParam{
		Name:        t.tool.Name,
		Description: sdk.String(t.tool.Description),
		InputSchema: t.betaSchema(),
	}
	if t.strict {
		p.Strict = sdk.Bool(true)
	}
	return sdk.BetaToolUnionParam{OfTool: p}
}

func (t Tool) betaSchema() sdk.BetaToolInputSchemaParam {
	return param.Override[sdk.BetaToolInputSchemaParam](json.RawMessage(t.schema))
}

// Beta is the tool for the SDK's beta tool runner; see the package
// documentation for what the runner sends the model.
func (t Tool) Beta() sdk.BetaTool { return betaTool{t} }

// Strict reports whether the tool is declared for strict tool use (see
// the Strict option).
func (t Tool) Strict() bool { return t.strict }

// Tools is the tool set over one workspace.
type Tools struct {
	set adapt.Set[Tool]
	// strict is what the Strict options asked for.
	strict adapt.StrictChoice
}

// Option changes how New builds the tool set.
type Option func(*Tools)

// Strict declares tools for Anthropic's strict tool use (strict true), in
// which the model's input always matches the schema: with no names, the
// tools the spec marks for constrained sampling, read, write and edit, as
// the reference's pi adapter does (strictArguments); with names, those
// tools (the spec's names: toolspec.ToolRead, ..., whatever the options'
// prefix). A strict tool's schema is closed for the mode (every property
// required, an optional one also taking null, additionalProperties false,
// the keywords the API refuses moved into the description, as the SDK's
// own schema helper does), which changes what the model sees (deviation
// strictSchemas). A tool whose schema cannot be closed (exec's, whose env
// and input are maps) is declared as without Strict. The model then sends
// null for a field it leaves out: with Strict, every call's top-level null
// on an optional field that takes no null is dropped before the arguments
// are checked, as the pi adapter does. Options given twice add up.
func Strict(tools ...string) Option {
	return func(s *Tools) { s.strict.Add(tools...) }
}

// New builds the tool set for ws. It fails when ws is nil, an option is
// out of range, or Strict names a tool the spec does not have.
func New(ws *vfs.Workspace, opts agenttools.Options, options ...Option) (*Tools, error) {
	ex, err := adapt.Executor("anthropic", ws, opts)
	if err != nil {
		return nil, err
	}
	s := &Tools{}
	for _, o := range options {
		o(s)
	}
	if err := s.strict.Check("anthropic"); err != nil {
		return nil, err
	}
	s.set.Init(ex, adapt.Forms[Tool]{Plain: s.tool, Media: s.tool, Streaming: s.tool})
	return s, nil
}

// tool: every tool has the same form; what a result holds is the
// output's to say.
func (s *Tools) tool(t core.Tool) Tool {
	tool := Tool{tool: t, set: s}
	tool.schema, tool.strict = s.strict.Schema(t, adapt.StrictAnthropic)
	return tool
}

// Params are the declarations of every tool of the set, for
// MessageNewParams.Tools, in the reference's order.
func (s *Tools) Params() []sdk.ToolUnionParam {
	return each(s, Tool.Param)
}

// BetaParams are the declarations of every tool of the set for the beta
// Messages API, in the reference's order: for a loop of your own, whose
// tool_use blocks ExecuteBetaTurn answers, or for a tool runner's
// BetaToolRunnerParams.Tools (to send strict).
func (s *Tools) BetaParams() []sdk.BetaToolUnionParam {
	return each(s, Tool.BetaParam)
}

// BetaTools are the tools of the set for client.Beta.Messages.NewToolRunner,
// in the reference's order; see the package documentation for what the
// runner sends the model.
func (s *Tools) BetaTools() []sdk.BetaTool {
	return each(s, Tool.Beta)
}

func each[T any](s *Tools, f func(Tool) T) []T {
	all := s.set.All()
	out := make([]T, len(all))
	for i, t := range all {
		out[i] = f(t)
	}
	return out
}

// call runs the call of the tool the model named name with input (JSON
// text). A tool failure, invalid arguments and a tool the set does not
// offer are outputs (see adapt.Call); the error is a cancelled context's
// or an Approver's.
func (s *Tools) call(ctx context.Context, name string, input []byte) (toolspec.Output, error) {
	return adapt.Call(ctx, s.set.Executor(), name, input, s.strict.On())
}

// Execute runs the call block asks for and returns its tool_result (see
// the package documentation). exec's running snapshots go to a
// core.WithSnapshots function on ctx. The error is only for what is not
// the model's doing: a cancelled context, or an Approver's error.
func (s *Tools) Execute(ctx context.Context, block sdk.ToolUseBlock) (sdk.ToolResultBlockParam, error) {
	out, err := s.call(ctx, block.Name, block.Input)
	if err != nil {
		return sdk.ToolResultBlockParam{}, err
	}
	return sdk.ToolResultBlockParam{ToolUseID: block.ID, IsError: sdk.Bool(out.IsError()), Content: resultBlocks.of(out)}, nil
}

// ExecuteTurn answers every tool_use block of msg, one after the other in
// the message's order, and returns the user message that carries their
// tool_result blocks in that order, to append after msg.ToParam(). ok is
// false when msg has no tool_use block (the model answered). A call of a
// tool the set does not offer is answered as a failure. The error is
// Execute's, for the first call that fails so.
func (s *Tools) ExecuteTurn(ctx context.Context, msg *sdk.Message) (results sdk.MessageParam, ok bool, err error) {
	answers, err := answerUses(ctx, msg.Content, func(c sdk.ContentBlockUnion) (sdk.ToolUseBlock, bool) {
		return c.AsToolUse(), c.Type == "tool_use"
	}, s.Execute)
	if err != nil || len(answers) == 0 {
		return sdk.MessageParam{}, false, err
	}
	blocks := make([]sdk.ContentBlockParamUnion, len(answers))
	for i := range answers {
		blocks[i] = sdk.ContentBlockParamUnion{OfToolResult: &answers[i]}
	}
	return sdk.NewUserMessage(blocks...), true, nil
}

// ExecuteBeta is Execute for a loop of your own on the beta Messages API
// (client.Beta.Messages.New with BetaParams): the same tool_result, in
// the beta types. The call's arguments are the block's input as the API
// sent it (block.JSON.Input.Raw()), not re-encoded as the tool runner
// hands them; a block made in Go rather than decoded from the API's JSON
// has no such text, and then its Input is encoded (encoding/json).
func (s *Tools) ExecuteBeta(ctx context.Context, block sdk.BetaToolUseBlock) (sdk.BetaToolResultBlockParam, error) {
	input := []byte(block.JSON.Input.Raw())
	if len(input) == 0 && block.Input != nil {
		if data, err := json.Marshal(block.Input); err == nil {
			input = data
		}
	}
	out, err := s.call(ctx, block.Name, input)
	if err != nil {
		return sdk.BetaToolResultBlockParam{}, err
	}
	return sdk.BetaToolResultBlockParam{ToolUseID: block.ID, IsError: sdk.Bool(out.IsError()), Content: betaBlocks.of(out)}, nil
}

// ExecuteBetaTurn is ExecuteTurn for the beta Messages API: the user
// message with the tool_result of every tool_use block of msg, in order,
// to append after msg.ToParam(); ok is false when msg has none.
func (s *Tools) ExecuteBetaTurn(ctx context.Context, msg *sdk.BetaMessage) (results sdk.BetaMessageParam, ok bool, err error) {
	answers, err := answerUses(ctx, msg.Content, func(c sdk.BetaContentBlockUnion) (sdk.BetaToolUseBlock, bool) {
		return c.AsToolUse(), c.Type == "tool_use"
	}, s.ExecuteBeta)
	if err != nil || len(answers) == 0 {
		return sdk.BetaMessageParam{}, false, err
	}
	blocks := make([]sdk.BetaContentBlockParamUnion, len(answers))
	for i := range answers {
		blocks[i] = sdk.BetaContentBlockParamUnion{OfToolResult: &answers[i]}
	}
	return sdk.NewBetaUserMessage(blocks...), true, nil
}

// answerUses answers the tool_use blocks among content (use picks them
// out) with execute, one after the other in order: the turn of either
// API flavour. The error is execute's first.
func answerUses[C, U, R any](ctx context.Context, content []C, use func(C) (U, bool), execute func(context.Context, U) (R, error)) ([]R, error) {
	var answers []R
	for _, c := range content {
		u, ok := use(c)
		if !ok {
			continue
		}
		r, err := execute(ctx, u)
		if err != nil {
			return nil, err
		}
		answers = append(answers, r)
	}
	return answers, nil
}

// betaTool is a Tool as the beta tool runner's BetaTool.
type betaTool struct{ t Tool }

func (b betaTool) Name() string                              { return b.t.tool.Name }
func (b betaTool) Description() string                       { return b.t.tool.Description }
func (b betaTool) InputSchema() sdk.BetaToolInputSchemaParam { return b.t.betaSchema() }

// Execute answers a result the model sees as a failure with a
// FailureError, which the runner sends as "Error: " and its text; any
// other output as its blocks.
func (b betaTool) Execute(ctx context.Context, input json.RawMessage) ([]sdk.BetaToolResultBlockParamContentUnion, error) {
	out, err := b.t.set.call(ctx, b.t.tool.Name, input)
	if err != nil {
		return nil, err
	}
	if out.IsError() {
		return nil, &FailureError{Output: out}
	}
	return betaBlocks.of(out), nil
}

// FailureError is what a beta tool's Execute returns for a result the
// model sees as a failure: its Error is the result's text, which the
// runner sends after "Error: ".
type FailureError struct {
	Output toolspec.Output
}

func (e *FailureError) Error() string { return e.Output.AsText() }

// blockKit makes the content blocks of a tool_result of one API flavour
// (Messages or beta Messages), so that both flavours carry an output
// alike.
type blockKit[B any] struct {
	text  func(text string) B
	image func(mediaType, data string) B
	pdf   func(data string) B
}

// of is out as content blocks: its text, then its image or PDF, base64,
// when the API takes it (adapt.SendableMedia).
func (k blockKit[B]) of(out toolspec.Output) []B {
	blocks := []B{k.text(out.AsText())}
	if !out.HasMedia() {
		return blocks
	}
	mediaType, ok := adapt.SendableMedia(out.Media)
	if !ok {
		return blocks
	}
	data := base64.StdEncoding.EncodeToString(out.Media.Data)
	if out.Media.IsImage() {
		return append(blocks, k.image(mediaType, data))
	}
	return append(blocks, k.pdf(data))
}

var resultBlocks = blockKit[sdk.ToolResultBlockParamContentUnion]{
	text: func(text string) sdk.ToolResultBlockParamContentUnion {
		return sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: text}}
	},
	image: func(mediaType, data string) sdk.ToolResultBlockParamContentUnion {
		return sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{
			OfBase64: &sdk.Base64ImageSourceParam{MediaType: sdk.Base64ImageSourceMediaType(mediaType), Data: data},
		}}}
	},
	pdf: func(data string) sdk.ToolResultBlockParamContentUnion {
		return sdk.ToolResultBlockParamContentUnion{OfDocument: &sdk.DocumentBlockParam{Source: sdk.DocumentBlockParamSourceUnion{
			OfBase64: &sdk.Base64PDFSourceParam{Data: data},
		}}}
	},
}

var betaBlocks = blockKit[sdk.BetaToolResultBlockParamContentUnion]{
	text: func(text string) sdk.BetaToolResultBlockParamContentUnion {
		return sdk.BetaToolResultBlockParamContentUnion{OfText: &sdk.BetaTextBlockParam{Text: text}}
	},
	image: func(mediaType, data string) sdk.BetaToolResultBlockParamContentUnion {
		return sdk.BetaToolResultBlockParamContentUnion{OfImage: &sdk.BetaImageBlockParam{Source: sdk.BetaImageBlockParamSourceUnion{
			OfBase64: &sdk.BetaBase64ImageSourceParam{MediaType: sdk.BetaBase64ImageSourceMediaType(mediaType), Data: data},
		}}}
	},
	pdf: func(data string) sdk.BetaToolResultBlockParamContentUnion {
		return sdk.BetaToolResultBlockParamContentUnion{OfDocument: &sdk.BetaRequestDocumentBlockParam{Source: sdk.BetaRequestDocumentBlockSourceUnionParam{
			OfBase64: &sdk.BetaBase64PDFSourceParam{Data: data},
		}}}
	},
}
