// Package genkit adapts the workspace tools to Firebase Genkit for Go
// (github.com/firebase/genkit/go): each tool is an ai.Tool whose
// definition has the tool's JSON Schema as its input schema. Define
// registers the tools on a *genkit.Genkit, so that Generate finds them
// by name; New builds them unregistered, for users who pass tools to
// each Generate call (Genkit registers those for that call only).
// Generate is genkit.Generate with the tools' calls bound to it (see
// Bound).
//
//	g := genkit.Init(ctx, genkit.WithPlugins(...))
//	set, err := agentgenkit.Define(g, ws, agenttools.Options{})
//	resp, err := agentgenkit.Generate(ctx, g,
//		ai.WithPrompt("Fix the failing test in /workspace"),
//		ai.WithTools(set.Refs()...),
//		ai.WithMaxTurns(20))
//
// examples/genkit is a complete program.
//
// # Several workspaces in one Genkit instance
//
// Genkit finds a tool by its name in g's registry: ai.WithTools keeps a
// tool passed to Generate only when g holds no tool of that name, and
// otherwise runs the one g holds, without a word. So after
// Define(g, wsA, opts), the tools of New(wsB, opts).Refs() passed to
// Generate on g are never run: the model's read reads workspace A, its
// write writes there. Give each set its own prefix
// (agenttools.Options.Prefix: "a_" offers a_read, a_write, ...; exec's
// description names a_read), and sets never meet. Define refuses names g
// already holds, and RefsFor refuses a set whose names g holds for other
// tools; Refs cannot see g and checks nothing.
//
// # What the model receives
//
// Every output is a Go string in the ToolResponse's Output: the text of
// a text or error-text output, and for a json output the JSON text
// exactly as core produced it (JavaScript's JSON.stringify form, the
// reference's key order). Structured JSON cannot keep that: Genkit runs
// every tool through its JSON action interface (RunRawMultipart
// marshals the tool's result and unmarshals it into an any), so an
// object, a map or a json.RawMessage reaches the model plugin as a
// map[string]any, which the plugin re-serializes with Go's sorted keys
// and HTML escaping. A string is the only value that arrives byte for
// byte. Plugins then send it as they send any Output: compat_oai,
// anthropic and ollama json.Marshal it, so the model reads a JSON string
// literal whose value is the exact text (a text output goes the same
// way); googlegenai sends a non-object Output as the function response
// {"name": tool, "content": output}.
//
// read is a multipart tool (ai.NewMultipartTool).
// For an image or PDF its ai.MultipartToolResponse has the text part as
// Output and one media part whose URL is a data: URI,
// data:<media type>;base64,<bytes>; its other answers have no content
// parts. googlegenai sends the media part to the model; compat_oai,
// anthropic and ollama send only the Output.
//
// A tool failure and invalid arguments are outputs, never a Go error,
// because Genkit aborts Generate on a tool's error. A tool returns an
// error only for Genkit's tool interrupt (see Approval) and when its
// context is cancelled: RunRaw's error then wraps
// context.Canceled, while Generate fails with Genkit's INTERNAL error
// "tool %q failed: ..." that holds only the message (errors.Is does not
// see context.Canceled).
//
// # Arguments
//
// The tools take the model's arguments as the reference does: core
// checks them, and for arguments it refuses (missing, of the wrong type,
// out of range, unknown keys, not an object, null) the model receives
// core's invalid-arguments text as the tool's output, the text the raw
// adapter answers, and the run goes on. Genkit itself would check a
// tool's input against its input schema before the tool runs
// (core.ActionDef.RunJSON: base.UnmarshalAndNormalize, then gojsonschema)
// and make Generate fail on a violation ("data did not match expected
// schema: ..."), and it drops every null-valued object field while it
// decodes the input. So each tool is Genkit's own (ai.NewTool,
// ai.NewMultipartTool) built without an input schema, which Genkit then
// does not check, and the schema is put back where a model plugin reads
// it: the tool's Definition, and the action the tool registers, whose
// Desc Generate reads for the definitions it sends (the same value as
// the schema would have been). The action hands the tool the JSON
// Generate gives it (the model's arguments as the plugin decoded them,
// encoded again: keys sorted, numbers as Go writes a float64), so nulls
// reach core and core's own rules apply to them: core refuses an
// optional argument given as null, as it does through every adapter.
// RunRaw and RunRawMultipart give core their input encoded to JSON the
// same way.
//
// exec returns its final result (a core.WithSnapshots function on the
// context given to Generate receives its running snapshots). Genkit
// tools have no running output:
// a tool is a plain action (ai.ToolContext carries no stream callback),
// and Generate streams a turn's tool message only after all of the
// turn's tools have finished. Generate runs the tool requests of one
// turn concurrently; the tools are safe for that.
//
// # Approval
//
// The calls of the tools agenttools.Options.Approve names wait for a
// human through Genkit's tool interrupts. Such a call, once core has
// checked its arguments (invalid ones are answered as always, nobody is
// asked), interrupts: Generate returns a response whose FinishReason is
// ai.FinishReasonInterrupted and whose Interrupts() holds the call, its
// interrupt metadata the agenttools.ApprovalRequest (tool, spec name, the
// arguments as the tool will run them) as JSON, its keys sorted, since
// Genkit keeps metadata as maps (Request decodes it).
// Nothing has changed, and the model has not been told. The caller
// resumes with Genkit's restart of the call carrying the decision:
//
//	for resp.FinishReason == ai.FinishReasonInterrupted {
//		opt, err := set.Approve(resp, func(req agenttools.ApprovalRequest) bool { return askHuman(req) })
//		...
//		resp, err = agentgenkit.Generate(ctx, g, ai.WithMessages(resp.History()...), ai.WithTools(set.Refs()...), opt)
//	}
//
// An approved call runs; a refused one changes nothing, and the model
// receives core's "The user did not approve this <tool> call; nothing
// was changed." in the tool's failure form as the call's output. Only an
// explicit approval runs a call: a restart without ApprovedKey true
// (Genkit's plain restart) is a refusal. The other calls of the
// interrupted turn have run, and Genkit hands the model their kept
// outputs with the resumed ones. It works the same with genkit.Generate,
// and with registered (Define) and unregistered (New) tools. Genkit
// hands the model only a restarted call's Output: a restarted read of an
// image or PDF reaches it as the text part. With an
// Options.Approver, the approver decides instead and nothing interrupts.
// (A model plugin must put the request in its response, as Genkit's do,
// for resp.History to hold the conversation.)
//
// # Genkit's own behaviour
//
// Genkit runs the tool requests of one turn concurrently, and when one
// of them fails (a tool's error, a tool it does not know) Generate
// returns at once while the turn's other calls go on running, each then
// waiting forever to hand Genkit its result. Generate and Bound tie
// the calls of this package's tools to the run: they are cancelled when
// it returns (a running command is killed) and leave no goroutine
// behind. genkit.Generate alone does not.
//
// genkit.Init calls signal.NotifyContext(ctx, os.Interrupt,
// syscall.SIGTERM) and discards the stop function, so from then on
// SIGINT and SIGTERM never end the process: they only cancel the
// context Init handed to plugins (and to the reflection server, which
// Init starts only when GENKIT_ENV=dev). The caller's context is not
// cancelled. A program that calls Init must watch for those signals
// itself (its own signal.NotifyContext) to stop on Ctrl-C. Init needs no
// network and reads only GENKIT_ENV and a ./prompts directory if there
// is one.
//
// Definitions: the input schema is core's JSON Schema decoded into a
// map[string]any (numbers as json.Number, so bounds keep their literal
// form), so plugins serialize it with its keys sorted; the values are
// core's. Genkit's own description of the registered action (Desc) has
// the same schema. The plain tools declare the output schema
// {"type":"string"}, read Genkit's multipart response schema. Generate
// sends the definitions in no fixed order (it collects them in a map).
//
// The package imports core, toolspec and Genkit; only programs and tests
// import it.
package genkit

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// Tools is the tool set over one workspace, as Genkit tools. All, Named
// and the per-tool accessors find them.
type Tools struct {
	set adapt.Set[ai.Tool]
	g   *genkit.Genkit // the instance Define registered the tools on; nil for New
	// schemas are the tools' JSON Schemas as the maps Genkit takes.
	schemas map[string]map[string]any
}

// Define builds the tool set for ws and registers every tool on g, so
// that Generate can name them (ai.WithTools(set.Refs()...) or
// ai.ToolName). It fails when g or ws is nil, an option is out of range,
// or g already has a tool of one of the names; then it registers
// nothing.
func Define(g *genkit.Genkit, ws *vfs.Workspace, opts agenttools.Options) (*Tools, error) {
	if g == nil {
		return nil, errors.New("genkit: no *genkit.Genkit")
	}
	ex, err := newExecutor(ws, opts)
	if err != nil {
		return nil, err
	}
	for _, t := range ex.Tools() {
		if genkit.LookupTool(g, t.Name) != nil {
			return nil, fmt.Errorf("genkit: a tool named %q is already defined; give the sets different prefixes (Options.Prefix)", t.Name)
		}
	}
	return build(ex, g)
}

// New builds the tool set for ws without registering it: pass the tools
// to each Generate call (ai.WithTools(set.Refs()...)), which registers
// them for that call. It fails when ws is nil or an option is out of
// range.
func New(ws *vfs.Workspace, opts agenttools.Options) (*Tools, error) {
	ex, err := newExecutor(ws, opts)
	if err != nil {
		return nil, err
	}
	return build(ex, nil)
}

func newExecutor(ws *vfs.Workspace, opts agenttools.Options) (*core.Executor, error) {
	if opts.Approver == nil {
		opts.Approver = core.ApproverFunc(interrupter)
	}
	return adapt.Executor("genkit", ws, opts)
}

func build(ex *core.Executor, g *genkit.Genkit) (*Tools, error) {
	s := &Tools{g: g, schemas: map[string]map[string]any{}}
	for _, t := range ex.Tools() {
		dec := json.NewDecoder(strings.NewReader(t.InputSchema))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("genkit: the input schema of %s: %w", t.Name, err)
		}
		s.schemas[t.Name] = m
	}
	s.set.Init(ex, adapt.Forms[ai.Tool]{Plain: s.plain, Media: s.media, Streaming: s.streaming})
	if g != nil {
		for _, t := range s.set.All() {
			genkit.RegisterAction(g, t)
		}
	}
	return s, nil
}

// Refs returns All as ai.ToolRef values, for ai.WithTools.
func (s *Tools) Refs() []ai.ToolRef {
	all := s.set.All()
	refs := make([]ai.ToolRef, len(all))
	for i, t := range all {
		refs[i] = t
	}
	return refs
}

// RefsFor is Refs for a Generate call on g, after checking that g holds
// no other tool under one of the set's names: Generate would run that
// one in place of this set's (see the package documentation). It fails
// then, naming the tool; give the sets different prefixes
// (agenttools.Options.Prefix). The tools Define registered on g are the
// set's own.
func (s *Tools) RefsFor(g *genkit.Genkit) ([]ai.ToolRef, error) {
	if g == nil {
		return nil, errors.New("genkit: no *genkit.Genkit")
	}
	if s.g != g {
		for _, t := range s.set.All() {
			if genkit.LookupTool(g, t.Name()) != nil {
				return nil, fmt.Errorf("genkit: g holds another tool named %q, which Generate would run in place of this set's; give the sets different prefixes (Options.Prefix)", t.Name())
			}
		}
	}
	return s.Refs(), nil
}

// plain is a tool whose output is a string (see the package
// documentation).
func (s *Tools) plain(t core.Tool) ai.Tool {
	return s.tool(t, ai.NewTool(t.Name, t.Description, func(tc *ai.ToolContext, input any) (string, error) {
		out, err := s.call(tc, t.Name, input)
		if err != nil {
			return "", err
		}
		return Response(out).Output.(string), nil
	}))
}

// media is a multipart tool: an image or PDF comes with a media part.
func (s *Tools) media(t core.Tool) ai.Tool {
	return s.tool(t, ai.NewMultipartTool(t.Name, t.Description, func(tc *ai.ToolContext, input any) (*ai.MultipartToolResponse, error) {
		out, err := s.call(tc, t.Name, input)
		if err != nil {
			return nil, err
		}
		return Response(out), nil
	}))
}

// streaming: Genkit tools have no running output; exec answers its final
// result, as a plain tool.
func (s *Tools) streaming(t core.Tool) ai.Tool { return s.plain(t) }

// call runs one call with the arguments the caller gave Genkit (see
// withArgs; input, Genkit's decoding of them, only when they are not on
// the context), with the decision a restarted call carries. The error is
// only for Genkit's interrupt (a call waiting for approval) and a
// cancelled context. A call that
// Generate (this package's) no longer waits for ends its goroutine
// instead of returning (see generation.settle).
func (s *Tools) call(tc *ai.ToolContext, name string, input any) (toolspec.Output, error) {
	args, ok := tc.Value(argsKey{}).(json.RawMessage)
	if !ok {
		var err error
		if args, err = json.Marshal(input); err != nil {
			// Genkit decoded input from JSON, so it always encodes again.
			return toolspec.Output{}, err
		}
	}
	out, err := s.set.Executor().Call(s.decision(tc, name), name, args)
	if gen, ok := tc.Value(generationKey{}).(*generation); ok {
		// Genkit takes an interrupt as it takes a result: it goes on
		// waiting for the turn's other calls.
		if interrupted, _ := ai.IsToolInterruptError(err); interrupted {
			gen.settle(tc, nil)
		} else {
			gen.settle(tc, err)
		}
	}
	return out, err
}

// Response is an output as a Genkit tool returns it: Output is a string
// (the text of a text or error-text output, the JSON text of a json
// output, the text part of a content output); a content output adds one
// media part, its URL a data: URI with the media type and the bytes in
// base64.
func Response(out toolspec.Output) *ai.MultipartToolResponse {
	resp := &ai.MultipartToolResponse{Output: out.AsText()}
	if out.HasMedia() {
		resp.Content = []*ai.Part{ai.NewMediaPart(out.Media.MediaType, DataURI(out.Media))}
	}
	return resp
}

// DataURI is a file as a data: URI: data:<media type>;base64,<bytes>.
func DataURI(m *toolspec.Media) string {
	return "data:" + m.MediaType + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
}
