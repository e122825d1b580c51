package toolgen

import (
	"path"
	"strings"

	"github.com/dave/jennifer/jen"
)

const coreImport = "github.com/agenttools/agenttools/core"

// AdapterTarget is one framework adapter whose tool accessors toolgen
// writes. The adapter's type Tools holds its tools in a field
//
//	set adapt.Set[T]
//
// (T is the framework's tool type), filled by its hand-written bridge
// with set.Init and an adapt.Forms of its plain, media and streaming
// forms.
type AdapterTarget struct {
	Dir       string // relative to the module root
	Package   string
	Framework string // as its users name it
	// ToolType is the framework's tool type: import path and name.
	ToolPath, ToolName string
	// MediaDoc and StreamDoc say, in the accessors' documentation, what
	// becomes of an image or PDF and of running snapshots in this
	// framework.
	MediaDoc, StreamDoc string
	// Module is the adapter's own module, as a directory of this
	// repository, when it is not in the main one ("" when it is): a
	// framework whose requirements cannot share one build list with the
	// others'. Its tests, parity included, run in that module.
	Module string
	// Annotations is true for the MCP adapter: toolgen writes its
	// annotations function, the spec's title and hints of each tool as
	// the go-sdk's ToolAnnotations.
	Annotations bool
}

// AdapterTargets are the framework adapters, each generated into
// Dir/AdapterFile.
var AdapterTargets = []AdapterTarget{
	{Dir: "adapters/langchaingo", Package: "langchaingo", Framework: "langchaingo", ToolPath: "github.com/tmc/langchaingo/tools", ToolName: "Tool",
		MediaDoc:  "A call can answer an image or PDF; the tool returns its text part.",
		StreamDoc: "langchaingo tools have no running output: the running snapshots reach a core.WithSnapshots callback on the context, and the tool returns the result."},
	{Dir: "adapters/genkit", Package: "genkit", Framework: "Genkit", ToolPath: "github.com/firebase/genkit/go/ai", ToolName: "Tool",
		MediaDoc:  "A call can answer an image or PDF, which reaches the model as a media part.",
		StreamDoc: "Genkit tools have no running output: the running snapshots reach a core.WithSnapshots callback on the context, and the tool returns the result."},
	{Dir: "adapters/eino", Package: "eino", Framework: "Eino", ToolPath: "github.com/cloudwego/eino/components/tool", ToolName: "BaseTool",
		MediaDoc:  "A call can answer an image or PDF: the tool returns its text part, and Middleware (adk) or MediaRewriter puts the image or file part in its tool message.",
		StreamDoc: "A call streams its running snapshots before its result (see StreamingTool)."},
	{Dir: "adapters/mcp", Package: "mcp", Framework: "MCP", ToolPath: "github.com/agenttools/agenttools/adapters/mcp", ToolName: "Tool",
		MediaDoc:    "A call can answer an image (ImageContent) or a PDF (an embedded resource).",
		StreamDoc:   "A call sends its running snapshots as progress notifications when the client asked for progress.",
		Annotations: true},
	{Dir: "adapters/openai", Package: "openai", Framework: "OpenAI", ToolPath: "github.com/agenttools/agenttools/adapters/openai", ToolName: "Tool",
		MediaDoc:  "A call can answer an image or PDF: Chat Completions gets its text part in the tool message (and, with MediaMessage, the media in a user message after it); the Responses API gets the text and an input_image or input_file in the function call output.",
		StreamDoc: "The running snapshots reach a core.WithSnapshots callback on the context; the call's output is the result."},
	{Dir: "adapters/anthropic", Package: "anthropic", Framework: "Anthropic", ToolPath: "github.com/agenttools/agenttools/adapters/anthropic", ToolName: "Tool", Module: "adapters/anthropic",
		MediaDoc:  "A call can answer an image (an image block in its tool_result) or a PDF (a document block).",
		StreamDoc: "The running snapshots reach a core.WithSnapshots callback on the context; the tool_result is the result."},
}

// AdapterFile is the generated file of every adapter.
const AdapterFile = "tools_gen.go"

// adapterFile writes an adapter's accessors: one per tool, typed with the
// framework's tool type and documented in its words, and the set's own.
// (Which form each tool takes is chosen at run time from the spec's tool
// table, by internal/adapt.Forms.) These files stay one per adapter: a
// method promoted from a shared generic type would show neither the
// framework's type nor its documentation on pkg.go.dev.
func adapterFile(m *Model, a AdapterTarget) *jen.File {
	f := jen.NewFilePathName("github.com/agenttools/agenttools/"+a.Dir, a.Package)
	f.HeaderComment(Header)
	f.ImportName(coreImport, "core")
	f.ImportName(genImport, "toolspec")
	toolType := jen.Qual(a.ToolPath, a.ToolName)
	typeName := path.Base(a.ToolPath) + "." + a.ToolName

	for _, t := range m.Tools {
		if !t.Available {
			continue
		}
		n := goName(t.Name)
		doc := n + " returns the " + t.Name + " tool (" + typeName + ", " + a.Framework + "), named with the options' prefix, and false when the options leave it out"
		switch {
		case t.Mutates && t.Name == "exec":
			doc += " (a read-only set does, as does one without exec backends)"
		case t.Mutates && t.Name == "publish":
			doc += " (a read-only set does, as does one without a publisher or with Assets false)"
		case t.Mutates:
			doc += " (a read-only set does)"
		}
		doc += ". Its arguments: " + paramSummary(t.Params) + "."
		if t.Media {
			doc += " " + a.MediaDoc
		}
		if t.Streams {
			doc += " " + a.StreamDoc
		}
		f.Add(comment(doc))
		f.Func().Params(jen.Id("s").Op("*").Id("Tools")).Id(n).Params().Params(toolType, jen.Bool()).Block(
			jen.Return(jen.Id("s").Dot("set").Dot("Spec").Call(jen.Qual(genImport, "Tool"+n))),
		)
	}

	// The set's accessors.
	f.Comment("All returns the tools the options offer, in the reference's order.")
	f.Func().Params(jen.Id("s").Op("*").Id("Tools")).Id("All").Params().Index().Add(toolType).Block(
		jen.Return(jen.Id("s").Dot("set").Dot("All").Call()),
	)
	f.Comment("Named returns the offered tool the model calls name (with the options' prefix), and false when the options leave it out.")
	f.Func().Params(jen.Id("s").Op("*").Id("Tools")).Id("Named").Params(jen.Id("name").String()).Params(toolType, jen.Bool()).Block(
		jen.Return(jen.Id("s").Dot("set").Dot("Named").Call(jen.Id("name"))),
	)
	f.Comment("Executor is the core executor behind the tools.")
	f.Func().Params(jen.Id("s").Op("*").Id("Tools")).Id("Executor").Params().Op("*").Qual(coreImport, "Executor").Block(
		jen.Return(jen.Id("s").Dot("set").Dot("Executor").Call()),
	)
	if a.Annotations {
		mcpAnnotations(f, m)
	}
	return f
}

const sdkImport = "github.com/modelcontextprotocol/go-sdk/mcp"

// mcpAnnotations writes func annotations(name string) *sdk.ToolAnnotations.
// Every hint the spec declares is written, a default value too; the
// go-sdk (v1.8.0) holds destructiveHint and openWorldHint as *bool, left
// out of the JSON when nil, and readOnlyHint and idempotentHint as bool,
// always sent, whose zero value is MCP's default.
func mcpAnnotations(f *jen.File, m *Model) {
	f.ImportAlias(sdkImport, "sdk")
	hint := func(field string, pointer bool, v *bool) jen.Code {
		if v == nil {
			return jen.Null()
		}
		if pointer {
			return kv(field, jen.New(jen.Lit(*v)))
		}
		return kv(field, jen.Lit(*v))
	}
	f.Add(comment("annotations returns the MCP annotations spec/tools.cue declares for the tool called name, a new value on each call, and nil for a name the spec does not declare."))
	f.Func().Id("annotations").Params(jen.Id("name").String()).Op("*").Qual(sdkImport, "ToolAnnotations").Block(
		jen.Switch(jen.Id("name")).BlockFunc(func(g *jen.Group) {
			for _, t := range m.Tools {
				if !t.Available {
					continue
				}
				a := t.Annotations
				g.Case(jen.Qual(genImport, "Tool"+goName(t.Name))).Return(jen.Op("&").Qual(sdkImport, "ToolAnnotations").Values(
					kv("Title", lit(a.Title)),
					hint("ReadOnlyHint", false, a.ReadOnly),
					hint("DestructiveHint", true, a.Destructive),
					hint("IdempotentHint", false, a.Idempotent),
					hint("OpenWorldHint", true, a.Open),
				))
			}
		}),
		jen.Return(jen.Nil()),
	)
}

// paramSummary lists parameters for a doc comment: name, kind, and when
// it is optional or offered only with some exec backends.
func paramSummary(params []Param) string {
	var parts []string
	for _, p := range params {
		var notes []string
		if p.Optional {
			notes = append(notes, "optional")
		}
		switch p.When {
		case "multipleBackends":
			notes = append(notes, "with several backends")
		case "callableBackend":
			notes = append(notes, "with a callable backend")
		}
		kind := map[string]string{
			"stringOrList": "string or list of strings",
			"array":        "list of objects",
			"stringRecord": "object of strings",
			"jsonRecord":   "object",
		}[p.Kind]
		if kind == "" {
			kind = p.Kind
		}
		parts = append(parts, p.Name+" ("+strings.Join(append([]string{kind}, notes...), ", ")+")")
	}
	return strings.Join(parts, ", ")
}
