// Package openai gives the workspace tools to programs written directly
// on the official OpenAI Go SDK, github.com/openai/openai-go/v3, with no
// framework: the caller runs its own loop. Each tool is declared as a
// function tool of the Chat Completions API (Chat) and of the Responses
// API (Responses), with the tool's exact name, description and JSON
// Schema; the set executes the model's function calls and answers them in
// the SDK's own types.
//
// A Chat Completions loop (oai is the SDK's package, imported under
// another name than this one):
//
//	set, err := openai.New(ws, agenttools.Options{})
//	params := oai.ChatCompletionNewParams{Model: model, Tools: set.Chat(), Messages: msgs}
//	for {
//		completion, err := client.Chat.Completions.New(ctx, params)
//		msg := completion.Choices[0].Message
//		if len(msg.ToolCalls) == 0 {
//			break // msg.Content is the answer
//		}
//		answers, err := set.ChatTurn(ctx, msg)
//		params.Messages = append(append(params.Messages, msg.ToParam()), answers...)
//	}
//
// A Responses API loop is the same with Responses, ResponsesTurn and
// ResponseNewParams.PreviousResponseID (or, stateless, the response's
// function calls sent back before their outputs). examples/openai is a
// complete program.
//
// # What the model receives
//
// A call's answer is the raw adapter's output (adapters/raw), as each API
// takes it. Chat Completions tool messages carry text and have no error
// flag: the content is the text of a text or error-text output, the JSON
// text of a json output (JavaScript's JSON.stringify form, the
// reference's key order), or the text line of a read of an image or PDF.
// With MediaMessage, that image or PDF also goes to the model in a user
// message after the turn's tool messages (ChatTurn builds it): an
// image_url part (a data: URI) or, for a PDF, a file part (file_data, a
// data: URI, and filename). The Responses API's function_call_output
// takes the same string, and for an image or PDF the array form: an
// input_text part with the text line, then an input_image (a data: URI)
// or an input_file (file_data, a data: URI, and filename). An image goes
// as the type its bytes show; a file whose bytes are no image or PDF the
// APIs take (a Git LFS pointer saved as .png), which they would refuse
// the request for, goes as its text line alone (deviation
// unreadableMedia).
//
// Invalid arguments, a tool's failure and a name the set does not offer
// are answers the model sees, never a Go error: the invalid-arguments
// text core writes, the tool's failure in its form, and for an unknown
// name the reference pi adapter's text. The error of the Execute and
// Turn methods is only a cancelled context's or an Approver's
// (agenttools.Options.Approver), and stops the loop.
//
// exec's running snapshots reach a core.WithSnapshots function on the
// context given to ExecuteChat, ChatTurn, ExecuteResponses or
// ResponsesTurn; the model receives the final result.
//
// # Declarations
//
// A tool's parameters are its input schema in the SDK's map
// (shared.FunctionParameters), each top-level member a json.RawMessage
// of ours, so every byte below the top level is sent as we wrote it; the
// SDK writes the top-level keys in sorted order ($schema,
// additionalProperties, properties, required, type), as it writes any
// map. Strict declares tools for OpenAI's strict mode, with closed
// schemas (see Strict).
package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// Tool is one workspace tool as the OpenAI APIs declare it: a function
// tool with the tool's name (after the options' prefix), description and
// input schema.
type Tool struct {
	tool core.Tool
	// schema is the declared input schema's top-level members, each its
	// JSON text: the tool's, or closed for strict mode.
	schema map[string]json.RawMessage
	strict bool
}

// Name is what the model calls the tool (with the options' prefix).
func (t Tool) Name() string { return t.tool.Name }

// Strict reports whether the tool is declared for strict mode (see the
// Strict option).
func (t Tool) Strict() bool { return t.strict }

// Chat is the tool's Chat Completions declaration, a function tool
// (ChatCompletionNewParams.Tools). strict is sent as true for a Strict
// tool and left out otherwise, which the API reads as false.
func (t Tool) Chat() openai.ChatCompletionToolUnionParam {
	f := shared.FunctionDefinitionParam{
		Name:        t.tool.Name,
		Description: openai.String(t.tool.Description),
		Parameters:  t.parameters(),
	}
	if t.strict {
		f.Strict = openai.Bool(true)
	}
	return openai.ChatCompletionFunctionTool(f)
}

// Responses is the tool's Responses API declaration, a function tool
// (ResponseNewParams.Tools). strict is always sent, true for a Strict
// tool and false otherwise: the Responses API makes a function tool
// strict when strict is left out.
func (t Tool) Responses() responses.ToolUnionParam {
	return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
		Name:        t.tool.Name,
		Description: openai.String(t.tool.Description),
		Parameters:  t.parameters(),
		Strict:      openai.Bool(t.strict),
	}}
}

// parameters is the input schema as the SDK's map: each top-level member
// a json.RawMessage, so that every byte below the top level is ours,
// key order included, but for the escapes the SDK's encoder (encoding/json)
// writes in every string it sends: <, > and & as \u003c, \u003e and
// \u0026, U+2028 and U+2029 as \u2028 and \u2029, which the API decodes
// to the same text. The top-level keys are sent in the SDK's map order
// (sorted), as any map it sends.
func (t Tool) parameters() map[string]any {
	m := make(map[string]any, len(t.schema))
	for k, v := range t.schema {
		m[k] = v
	}
	return m
}

// Tools is the tool set over one workspace. All, Named and the per-tool
// accessors find its tools; Chat and Responses declare them all.
type Tools struct {
	set   adapt.Set[Tool]
	media bool
	// strict is what the Strict options asked for.
	strict adapt.StrictChoice
}

// Option changes how New builds the tool set.
type Option func(*Tools)

// MediaMessage makes Chat Completions answers carry read's image or PDF
// too, in a user message after the turn's tool messages (see ChatResult
// and ChatTurn), for models that take images or files. Without it a
// Chat Completions model receives the text line only. The Responses API
// always receives the file in the function_call_output.
func MediaMessage() Option { return func(s *Tools) { s.media = true } }

// Strict declares tools for OpenAI's strict mode (Structured Outputs:
// strict true, in both APIs), in which the model's arguments always match
// the schema: with no names, the tools the spec marks for constrained
// sampling, read, write and edit, as the reference's pi adapter does
// (strictArguments); with names, those tools (the spec's names:
// toolspec.ToolRead, ...). A strict tool's schema is closed for the mode
// (every property required, an optional one also taking null in its
// type, additionalProperties false, the keywords strict mode refuses, such
// as default, moved into the description; golden/testdata/strict.txtar
// shows every tool's), which changes what the model sees (deviation
// strictSchemas). A tool whose schema cannot be closed
// (exec's, whose env and input are maps) is declared as without Strict.
// The model then sends null for a field it leaves out: with Strict,
// every call's top-level null on an optional field that takes no null is
// dropped before the arguments are checked, as the pi adapter does.
func Strict(tools ...string) Option {
	return func(s *Tools) { s.strict.Add(tools...) }
}

// New builds the tool set for ws. It fails when ws is nil, an option is
// out of range, or Strict names a tool the spec does not have.
func New(ws *vfs.Workspace, opts agenttools.Options, options ...Option) (*Tools, error) {
	ex, err := adapt.Executor("openai", ws, opts)
	if err != nil {
		return nil, err
	}
	s := &Tools{}
	for _, o := range options {
		o(s)
	}
	if err := s.strict.Check("openai"); err != nil {
		return nil, err
	}
	s.set.Init(ex, adapt.Forms[Tool]{Plain: s.tool, Media: s.tool, Streaming: s.tool})
	return s, nil
}

// tool: every tool has the same form; what an answer holds is the
// output's to say.
func (s *Tools) tool(t core.Tool) Tool {
	text, strict := s.strict.Schema(t, adapt.StrictOpenAI)
	var schema map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &schema); err != nil {
		// The spec's schemas and an overlay's are objects, checked
		// when the surface is built.
		panic("openai: input schema of " + t.Name + ": " + err.Error())
	}
	return Tool{tool: t, schema: schema, strict: strict}
}

// Chat declares every tool of All, in order, for
// ChatCompletionNewParams.Tools.
func (s *Tools) Chat() []openai.ChatCompletionToolUnionParam {
	all := s.set.All()
	out := make([]openai.ChatCompletionToolUnionParam, len(all))
	for i, t := range all {
		out[i] = t.Chat()
	}
	return out
}

// Responses declares every tool of All, in order, for
// ResponseNewParams.Tools.
func (s *Tools) Responses() []responses.ToolUnionParam {
	all := s.set.All()
	out := make([]responses.ToolUnionParam, len(all))
	for i, t := range all {
		out[i] = t.Responses()
	}
	return out
}

// ChatResult is the answer to one Chat Completions tool call.
type ChatResult struct {
	// Message is the tool message (role tool, the call's id), its
	// content the answer as text (see the package documentation).
	Message openai.ChatCompletionMessageParamUnion
	// Media is read's image (an image_url part) or PDF (a file part),
	// for a user message after all the turn's tool messages: the API
	// takes no media in a tool message. Nil without MediaMessage and for
	// any other answer.
	Media []openai.ChatCompletionContentPartUnionParam
}

// ExecuteChat runs one tool call of an assistant message
// (ChatCompletionMessage.ToolCalls) and returns its answer. A function
// call's name and arguments (JSON text) are the function's; a custom
// tool call is answered as a call of a tool the set does not offer,
// unless its name is one of ours, when its input is taken as the
// arguments. The error is only ctx's or an Approver's (see the package
// documentation).
func (s *Tools) ExecuteChat(ctx context.Context, call openai.ChatCompletionMessageToolCallUnion) (ChatResult, error) {
	name, args := call.Function.Name, call.Function.Arguments
	if call.Type == "custom" {
		name, args = call.Custom.Name, call.Custom.Input
	}
	out, err := s.call(ctx, name, args)
	if err != nil {
		return ChatResult{}, err
	}
	r := ChatResult{Message: openai.ToolMessage(out.AsText(), call.ID)}
	if mediaType, ok := sendable(out); s.media && ok {
		r.Media = []openai.ChatCompletionContentPartUnionParam{chatMedia(out.Media, mediaType)}
	}
	return r, nil
}

// sendable reports whether out carries an image or PDF the APIs take, and
// its media type (adapt.SendableMedia).
func sendable(out toolspec.Output) (string, bool) {
	if !out.HasMedia() {
		return "", false
	}
	return adapt.SendableMedia(out.Media)
}

// chatMedia is m, of type mediaType, as a Chat Completions content part.
func chatMedia(m *toolspec.Media, mediaType string) openai.ChatCompletionContentPartUnionParam {
	if m.IsImage() {
		return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURI(m, mediaType)})
	}
	return openai.FileContentPart(openai.ChatCompletionContentPartFileFileParam{
		FileData: openai.String(dataURI(m, mediaType)),
		Filename: openai.String(m.Filename),
	})
}

// ChatTurn answers every tool call of msg, the assistant message of a
// completion, in order, and returns the messages to append after msg
// (msg.ToParam()) before the next request: one tool message per call, in
// call order, then, with MediaMessage and when reads answered images or
// PDFs, one user message holding every media part in call order. It
// returns nil for a message without tool calls. The calls run one after
// another; the error is only ctx's or an Approver's, and then no
// message is returned.
func (s *Tools) ChatTurn(ctx context.Context, msg openai.ChatCompletionMessage) ([]openai.ChatCompletionMessageParamUnion, error) {
	var msgs []openai.ChatCompletionMessageParamUnion
	var media []openai.ChatCompletionContentPartUnionParam
	for _, call := range msg.ToolCalls {
		r, err := s.ExecuteChat(ctx, call)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, r.Message)
		media = append(media, r.Media...)
	}
	if len(media) > 0 {
		msgs = append(msgs, openai.UserMessage(media))
	}
	return msgs, nil
}

// ExecuteResponses runs one function call of a response
// (ResponseOutputItemUnion.AsFunctionCall) and returns its
// function_call_output item, for the next request's input: its output
// the answer's string, or for read's image or PDF the list of an
// input_text and an input_image or input_file (see the package
// documentation). The error is only ctx's or an Approver's.
func (s *Tools) ExecuteResponses(ctx context.Context, call responses.ResponseFunctionToolCall) (responses.ResponseInputItemUnionParam, error) {
	out, err := s.call(ctx, call.Name, call.Arguments)
	if err != nil {
		return responses.ResponseInputItemUnionParam{}, err
	}
	var item responses.ResponseInputItemUnionParam
	if mediaType, ok := sendable(out); ok {
		item = responses.ResponseInputItemParamOfFunctionCallOutput(responses.ResponseFunctionCallOutputItemListParam{
			responses.ResponseFunctionCallOutputItemParamOfInputText(out.Text),
			responsesMedia(out.Media, mediaType),
		})
	} else {
		item = responses.ResponseInputItemParamOfFunctionCallOutput(out.AsText())
	}
	item.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	return item, nil
}

// responsesMedia is m, of type mediaType, as a function_call_output
// part.
func responsesMedia(m *toolspec.Media, mediaType string) responses.ResponseFunctionCallOutputItemUnionParam {
	if m.IsImage() {
		return responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
			ImageURL: openai.String(dataURI(m, mediaType)),
		}}
	}
	return responses.ResponseFunctionCallOutputItemUnionParam{OfInputFile: &responses.ResponseInputFileContentParam{
		FileData: openai.String(dataURI(m, mediaType)),
		Filename: openai.String(m.Filename),
	}}
}

// ResponsesTurn answers every function call among resp's output items,
// in order, and returns their function_call_output items, for the next
// request's input (with PreviousResponseID set to resp.ID; a stateless
// loop sends each call back, call.ToParam(), before its output). It
// returns nil for a response without function calls. The calls run one
// after another; the error is only ctx's or an Approver's, and then no
// item is returned.
func (s *Tools) ResponsesTurn(ctx context.Context, resp *responses.Response) ([]responses.ResponseInputItemUnionParam, error) {
	var items []responses.ResponseInputItemUnionParam
	for _, o := range resp.Output {
		if o.Type != "function_call" {
			continue
		}
		item, err := s.ExecuteResponses(ctx, o.AsFunctionCall())
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// call runs the tool the model named name with args; a name the set
// does not offer is answered, not an error. With Strict the nulls that
// stand for absent fields are dropped first.
func (s *Tools) call(ctx context.Context, name, args string) (toolspec.Output, error) {
	return adapt.Call(ctx, s.set.Executor(), name, []byte(args), s.strict.On())
}

// dataURI is m as data:<mediaType>;base64,<bytes>, the form both APIs
// take inline.
func dataURI(m *toolspec.Media, mediaType string) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
}
