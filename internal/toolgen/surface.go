package toolgen

// The model surface: package toolspec's surface_gen.go (what every tool
// shares) and one <tool>_gen.go per tool.

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

func surface(m *Model) *jen.File {
	f := newFile()
	f.Comment("WorkspaceRoot is the directory the tools default to, as in the reference.")
	f.Const().Id("WorkspaceRoot").Op("=").Lit(m.WorkspaceRoot)
	f.Comment("OutputDir is the workspace directory where exec saves the full output of a stream it cuts, as in the reference.")
	f.Const().Id("OutputDir").Op("=").Lit(m.OutputDir)
	f.Comment("SchemaDialect is the JSON Schema dialect every input schema declares.")
	f.Const().Id("SchemaDialect").Op("=").Lit(m.SchemaDialect)

	// Tool names.
	var names []jen.Code
	var list []jen.Code
	for _, t := range m.Tools {
		names = append(names, jen.Id("Tool"+goName(t.Name)).Op("=").Lit(t.Name))
		list = append(list, jen.Id("Tool"+goName(t.Name)))
	}
	f.Comment("The tool names, as the model calls them.")
	f.Const().Defs(names...)
	f.Comment("ToolNames lists every tool of the spec in the order a tool set offers them.")
	f.Var().Id("ToolNames").Op("=").Index().String().Values(list...)

	// Output.
	var kinds []jen.Code
	for _, k := range m.OutputKinds {
		kinds = append(kinds, comment(k.Doc), jen.Id("Output"+goName(k.Key)).Id("OutputKind").Op("=").Lit(k.Name))
	}
	f.Comment("The output kinds, as the spec names them (see Output).")
	f.Const().Defs(kinds...)
	f.Comment("The part types of a content output, as the reference spells them.")
	f.Const().Defs(
		jen.Id("ContentTextPart").Op("=").Lit(m.ContentParts.TextType),
		jen.Id("ContentFilePart").Op("=").Lit(m.ContentParts.FileType),
		jen.Id("ContentFileData").Op("=").Lit(m.ContentParts.DataType),
	)

	var infos []jen.Code
	for _, t := range m.Tools {
		infos = append(infos, jen.Values(
			kv("Name", jen.Id("Tool"+goName(t.Name))),
			kv("Available", jen.Lit(t.Available)),
			kv("Mutates", jen.Lit(t.Mutates)),
			kv("Media", jen.Lit(t.Media)),
			kv("Streams", jen.Lit(t.Streams)),
			kv("Params", jen.Id(goName(t.Name)+"Params")),
			kv("Rules", jen.Id(goName(t.Name)+"Rules")),
			outputSchemaKV(t),
			kv("ConstrainedSampling", jen.Lit(t.ConstrainedSampling)),
		))
	}
	f.Comment("Tools describes every tool of the spec, in ToolNames order.")
	f.Var().Id("Tools").Op("=").Index().Id("ToolInfo").Add(lines(infos))
	specTable(f, m)

	// Handler.
	var methods []jen.Code
	var cases []jen.Code
	for _, t := range m.Tools {
		if !t.Available {
			continue
		}
		n := goName(t.Name)
		methods = append(methods, jen.Id(n).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Id(n+"Args"),
		).Params(jen.Id("Output"), jen.Error()))
		cases = append(cases, jen.Case(jen.Id("Tool"+n)).Block(
			jen.Var().Id("args").Id(n+"Args"),
			jen.If(jen.Err().Op(":=").Id("decode").Call(jen.Op("&").Id("args")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Id("Output").Values(), jen.Err()),
			),
			jen.Return(jen.Id("h").Dot(n).Call(jen.Id("ctx"), jen.Id("args"))),
		))
	}
	f.Add(comment("Handler runs the tools; package core implements it. A tool failure is an Output the model sees (error text, or a json object with an error key), never a Go error. A Go error means the call could not be completed at all: the context was cancelled, or something that is not the model's doing failed. A tool the spec declares but does not mark available has no method here until it is implemented."))
	f.Type().Id("Handler").Interface(methods...)
	f.Add(comment("Invoke runs the named tool on h. decode fills the tool's argument struct (a pointer to ReadArgs for read, and so on); its error is returned as is. An unknown or unavailable tool gives an *UnknownToolError."))
	cases = append(cases, jen.Default().Block(
		jen.Return(jen.Id("Output").Values(), jen.Op("&").Id("UnknownToolError").Values(jen.Dict{jen.Id("Tool"): jen.Id("tool")})),
	))
	f.Func().Id("Invoke").Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("h").Id("Handler"),
		jen.Id("tool").String(),
		jen.Id("decode").Func().Params(jen.Id("args").Any()).Error(),
	).Params(jen.Id("Output"), jen.Error()).Block(jen.Switch(jen.Id("tool")).Block(cases...))
	// Argument messages.
	templateDecl(f, "MsgArgumentsInvalid", m.Arguments.Invalid, "the message for arguments that fail validation; problems are joined with ArgumentsProblemSeparator. Ours, not the reference's (deviation invalidArguments).")
	f.Comment("ArgumentsProblemSeparator joins the problems of one invalid call.")
	f.Const().Id("ArgumentsProblemSeparator").Op("=").Lit(m.Arguments.ProblemSeparator)
	f.Comment("ArgumentsMaxProblems is how many problems one message lists at most.")
	f.Const().Id("ArgumentsMaxProblems").Op("=").Add(num(m.Arguments.MaxProblems))
	limitsDecl(f, "Workspace", m.Limits)
	for _, t := range m.Arguments.Problems {
		templateDecl(f, "MsgArguments"+goName(t.Name), t, "")
	}
	var typeNames []jen.Code
	for _, n := range m.Arguments.TypeNames {
		typeNames = append(typeNames, jen.Id("TypeName"+goName(n.Name)).Op("=").Lit(n.Text))
	}
	f.Comment("How the argument messages name a JSON value's type.")
	f.Const().Defs(typeNames...)

	// The opt-in argument listing.
	for _, t := range m.ArgumentList.Templates {
		templateDecl(f, "ArgList"+goName(t.Name), t, "")
	}
	var argTypes []jen.Code
	for _, n := range m.ArgumentList.TypeNames {
		argTypes = append(argTypes, jen.Lit(n.Name).Op(":").Lit(n.Text))
	}
	f.Comment("ArgListTypeNames names a schema's type in the argument listing, by its JSON Schema name.")
	f.Var().Id("ArgListTypeNames").Op("=").Map(jen.String()).String().Add(lines(argTypes))

	// Shared messages.
	for _, t := range m.Messages {
		templateDecl(f, "Msg"+goName(t.Name), t, "")
	}

	// Approval of calls.
	for _, t := range m.Approval {
		templateDecl(f, "MsgApproval"+goName(t.Name), t, "")
	}

	resultDecl(f, m.ErrorResult)
	failureResultDecl(f, m)

	var devs []jen.Code
	for _, d := range m.Deviations {
		devs = append(devs, jen.Values(
			kv("Name", jen.Lit(d.Name)),
			kv("Reference", jen.Lit(d.Reference)),
			kv("Ours", jen.Lit(d.Ours)),
		))
	}
	catalog(f, m)

	f.Comment("Deviations lists where the tools differ from @cloudflare/computer 0.8.0 on purpose.")
	f.Var().Id("Deviations").Op("=").Index().Id("Deviation").Add(lines(devs))
	return f
}

// failureResultDecl emits FailureResult, which puts a message in the
// failure branch of a tool's output schema.
func failureResultDecl(f *jen.File, m *Model) {
	var cases []jen.Code
	for _, t := range m.Tools {
		if r, ok := failureResult(t.OutputSchema); ok {
			cases = append(cases, jen.Case(jen.Id("Tool"+goName(t.Name))).Block(
				jen.Return(jen.Id(r.Name).Values(jen.Dict{jen.Id("Error"): jen.Id("message")}), jen.True()),
			))
		}
	}
	f.Add(comment("FailureResult is message as the named tool's failure result, the branch of its output schema with an error field (ErrorResult for write, edit and delete, PublishFailure for publish), for a failure the model sees as error text (invalid arguments) where a program expects the output schema's form. It is false for a tool without an output schema."))
	f.Func().Id("FailureResult").Params(jen.Id("tool"), jen.Id("message").String()).Params(jen.Id("Result"), jen.Bool()).Block(
		jen.Switch(jen.Id("tool")).Block(cases...),
		jen.Return(jen.Nil(), jen.False()),
	)
}

// outputSchemaKV is the OutputSchema of a tool's ToolInfo, nothing for a
// tool without one.
func outputSchemaKV(t Tool) jen.Code {
	if len(t.OutputSchema) == 0 {
		return jen.Null()
	}
	return kv("OutputSchema", jen.Id(goName(t.Name)+"OutputSchema"))
}

// catalogEntries lists every message template with its Go name, in spec
// order: argument problems, shared messages, the argument listing's, the
// approval's, then each tool's.
func catalogEntries(m *Model) (names []string, tpls []Template) {
	add := func(name string, t Template) {
		names = append(names, name)
		tpls = append(tpls, t)
	}
	add("MsgArgumentsInvalid", m.Arguments.Invalid)
	for _, t := range m.Arguments.Problems {
		add("MsgArguments"+goName(t.Name), t)
	}
	for _, t := range m.Messages {
		add("Msg"+goName(t.Name), t)
	}
	for _, t := range m.ArgumentList.Templates {
		add("ArgList"+goName(t.Name), t)
	}
	for _, t := range m.Approval {
		add("MsgApproval"+goName(t.Name), t)
	}
	for _, tool := range m.Tools {
		for _, t := range tool.Messages {
			add("Msg"+goName(tool.Name)+goName(t.Name), t)
		}
	}
	return names, tpls
}

// SamplePrefix is the tool-name prefix of the Catalog's prefixed samples.
const SamplePrefix = "ws_"

// catalog emits Catalog: every message with a sample rendering made by
// calling the generated code, so a golden file can pin them all.
func catalog(f *jen.File, m *Model) {
	names, tpls := catalogEntries(m)
	var entries []jen.Code
	for i, t := range tpls {
		args := map[string]jen.Code{}
		for _, a := range t.Args {
			if a.Type == "int" {
				args[a.Name] = jen.Lit(12345)
			} else {
				args[a.Name] = jen.Lit("<" + a.Name + ">")
			}
		}
		entry := []jen.Code{
			kv("Name", jen.Lit(names[i])),
			kv("Template", lit(t.Text)),
			kv("Sample", templateCall(names[i], t, jen.Lit(""), args)),
		}
		if namesTools(t) {
			entry = append(entry, kv("Prefixed", templateCall(names[i], t, jen.Lit(SamplePrefix), args)))
		}
		entries = append(entries, jen.Values(entry...))
	}
	f.Comment("Catalog lists every message a model can see, in spec order.")
	f.Var().Id("Catalog").Op("=").Index().Id("CatalogEntry").Add(lines(entries))
}

func tool(m *Model, t Tool) *jen.File {
	f := newFile()
	n := goName(t.Name)

	// Description.
	switch {
	case t.Description.Template != nil:
		templateDecl(f, n+"Description", *t.Description.Template, "the "+t.Name+" tool's description for the given limits, as the reference words it.")
	case t.Description.Exec != nil:
		execDescription(f, t)
	default:
		f.Comment(n + "Description is what the model is told the " + t.Name + " tool does.")
		f.Const().Id(n + "Description").Op("=").Lit(t.Description.Text)
	}

	// Input schema.
	if isStaticSchema(t) {
		f.Comment(n + "InputSchema is the JSON Schema of the " + t.Name + " tool's arguments, as the model receives it.")
		f.Const().Id(n + "InputSchema").Op("=").Add(lit(schemaText(m, t.Params)))
	} else {
		execSchema(m, f, t)
	}

	if len(t.OutputSchema) > 0 {
		var names []string
		for _, r := range t.OutputSchema {
			names = append(names, r.Name)
		}
		f.Add(comment(n + "OutputSchema is the JSON Schema of the " + t.Name + " tool's results (" + strings.Join(names, " or ") + "), as the reference declares it (draft-07, a top-level anyOf)."))
		f.Const().Id(n + "OutputSchema").Op("=").Add(lit(outputSchemaText(m, t.OutputSchema)))
	}

	// Parameters and rules.
	var params []jen.Code
	for _, p := range t.Params {
		params = append(params, paramValue(p))
	}
	f.Comment(n + "Params are the " + t.Name + " tool's parameters in schema order.")
	f.Var().Id(n + "Params").Op("=").Index().Id("Param").Add(lines(params))
	var rules []jen.Code
	for _, r := range t.Rules {
		rules = append(rules, jen.Values(
			kv("Param", jen.Lit(r.Param)),
			kv("GreaterThan", num(r.GreaterThan)),
			kv("Requires", jen.Lit(r.Requires)),
			kv("Message", jen.Lit(r.Message.Text)),
		))
	}
	f.Comment(n + "Rules are the " + t.Name + " tool's cross-argument rules.")
	if len(rules) == 0 {
		f.Var().Id(n + "Rules").Index().Id("Rule")
	} else {
		f.Var().Id(n + "Rules").Op("=").Index().Id("Rule").Add(lines(rules))
	}

	// Argument structs.
	argsStruct(f, n+"Args", "the "+t.Name+" tool's arguments after validation, defaults applied. A pointer field is nil when the model left the argument out.", t.Params)

	limitsDecl(f, n, t.Limits)

	for _, msg := range t.Messages {
		templateDecl(f, "Msg"+n+goName(msg.Name), msg, "")
	}
	for _, r := range t.Results {
		resultDecl(f, r)
	}
	return f
}

// limitsDecl declares limits as <prefix><Name>Default (and Min, Max).
func limitsDecl(f *jen.File, prefix string, list []Limit) {
	var limits []jen.Code
	for _, l := range list {
		base := prefix + goName(l.Name)
		limits = append(limits, comment(fmt.Sprintf("%sDefault: %s In %s.", base, l.Doc, l.Unit)), jen.Id(base+"Default").Int64().Op("=").Add(num(l.Default)))
		if l.Min != nil {
			limits = append(limits, jen.Id(base+"Min").Int64().Op("=").Add(num(*l.Min)))
		}
		if l.Max != nil {
			limits = append(limits, jen.Id(base+"Max").Int64().Op("=").Add(num(*l.Max)))
		}
	}
	if len(limits) > 0 {
		f.Const().Defs(limits...)
	}
}

func isStaticSchema(t Tool) bool {
	for _, p := range t.Params {
		if p.When != "always" || len(p.Descriptions) > 0 || p.Kind == "enum" {
			return false
		}
	}
	return true
}

func schemaText(m *Model, params []Param) string {
	obj := objectSchema(params)
	// The top level also names the dialect, first.
	return `{"$schema":` + quote(m.SchemaDialect) + "," + obj[1:]
}

func paramValue(p Param) jen.Code {
	vals := []jen.Code{
		kv("Name", jen.Lit(p.Name)),
		kv("Kind", jen.Id("Kind"+goName(p.Kind))),
	}
	if p.Optional {
		vals = append(vals, kv("Optional", jen.True()))
	}
	if p.Default != nil {
		vals = append(vals, kv("HasDefault", jen.True()), kv("Default", jen.Lit(*p.Default)))
	}
	if p.Minimum != nil {
		vals = append(vals, kv("Minimum", num(*p.Minimum)))
	}
	if p.ExclMinimum != nil {
		vals = append(vals, kv("Minimum", num(*p.ExclMinimum)), kv("ExclusiveMinimum", jen.True()))
	}
	if p.Maximum != nil {
		vals = append(vals, kv("Maximum", num(*p.Maximum)))
	}
	if p.MinLength != nil {
		vals = append(vals, kv("MinLength", num(*p.MinLength)))
	}
	if p.MaxBytes != nil {
		vals = append(vals, kv("MaxBytes", num(*p.MaxBytes)))
	}
	if p.MaxTotal != nil {
		vals = append(vals, kv("MaxTotalBytes", num(*p.MaxTotal)))
	}
	if p.MaxItems != nil {
		vals = append(vals, kv("MaxItems", num(*p.MaxItems)))
	}
	vals = append(vals, kv("When", jen.Id("When"+goName(p.When))))
	if len(p.Items) > 0 {
		var items []jen.Code
		for _, it := range p.Items {
			items = append(items, paramValue(it))
		}
		vals = append(vals, kv("Items", jen.Index().Id("Param").Values(items...)))
	}
	return jen.Values(vals...)
}

func argsStruct(f *jen.File, name, doc string, params []Param) {
	var fields []jen.Code
	for _, p := range params {
		optional := p.Optional && p.Default == nil
		tag := p.Name
		if optional {
			tag += ",omitempty"
		}
		var typ jen.Code
		switch p.Kind {
		case "string", "enum":
			typ = jen.String()
			if optional {
				typ = jen.Op("*").String()
			}
		case "integer":
			typ = jen.Int64()
			if optional {
				typ = jen.Op("*").Int64()
			}
		case "boolean":
			typ = jen.Bool()
			if optional {
				typ = jen.Op("*").Bool()
			}
		case "stringOrList":
			typ = jen.Id("StringList")
		case "array":
			typ = jen.Index().Id(p.ItemsGoName)
			argsStruct(f, p.ItemsGoName, "one element of "+p.Name+".", p.Items)
		case "stringRecord":
			typ = jen.Map(jen.String()).String()
		case "jsonRecord":
			typ = jen.Qual("encoding/json", "RawMessage")
		}
		desc := p.Description
		if desc == "" && len(p.Descriptions) > 0 {
			desc = p.Descriptions[0].Text
		}
		var c jen.Code = jen.Null()
		if desc != "" {
			c = comment(desc)
		}
		fields = append(fields, c, jen.Id(goName(p.Name)).Add(typ).Tag(map[string]string{"json": tag}))
	}
	f.Add(comment(name + " holds " + doc))
	f.Type().Id(name).Struct(fields...)
}

func resultDecl(f *jen.File, r Result) {
	var fields []jen.Code
	var constants []string
	for _, fd := range r.Fields {
		if fd.constant() {
			constants = append(constants, fd.Name+" is always "+fd.Type)
			continue
		}
		tag := fd.Name
		if fd.Optional {
			tag += ",omitempty"
		}
		pointer := fd.Optional || fd.Nullable
		var typ jen.Code
		switch fd.Type {
		case "string":
			typ = jen.String()
		case "int":
			typ = jen.Int64()
		case "bool":
			typ = jen.Bool()
		case "true":
			typ, pointer = jen.Bool(), false
		case "json":
			typ, pointer = jen.Qual("encoding/json", "RawMessage"), false
		default:
			typ, pointer = jen.Index().Id(strings.TrimPrefix(fd.Type, "[]")), false
		}
		if pointer {
			typ = jen.Op("*").Add(typ)
		}
		var c jen.Code = jen.Null()
		if fd.Doc != "" {
			c = comment(fd.Doc)
		}
		fields = append(fields, c, jen.Id(goName(fd.Name)).Add(typ).Tag(map[string]string{"json": tag}))
	}
	doc := r.Name + " is " + strings.ToLower(r.Doc[:1]) + r.Doc[1:] + " Its fields serialize in the reference's key order; a nil list must be made empty before serializing."
	if len(constants) > 0 {
		doc += " Its JSON (AppendJSON) also has keys no field holds: " + strings.Join(constants, ", ") + "."
	}
	f.Add(comment(doc))
	f.Type().Id(r.Name).Struct(fields...)
	appendJSONDecl(f, r)
}

// appendJSONDecl declares r's AppendJSON, which writes what encoding/json
// writes for r's struct (key order, omitempty, null for a nil pointer or
// list) with the runtime's string writer, without reflection. A result
// with a json field (a json.RawMessage that has to be checked and
// compacted) has none: it goes through encoding/json.
func appendJSONDecl(f *jen.File, r Result) {
	for _, fd := range r.Fields {
		if fd.Type == "json" {
			return
		}
	}
	body := []jen.Code{jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('{'))}
	for _, fd := range r.Fields {
		field := jen.Id("r").Dot(goName(fd.Name))
		key := jen.Id("appendKey").Call(jen.Id("b"), jen.Lit(quote(fd.Name)))
		pointer := (fd.Optional || fd.Nullable) && (fd.Type == "string" || fd.Type == "int" || fd.Type == "bool")
		value := func(v *jen.Statement) jen.Code {
			switch fd.Type {
			case "string":
				return jen.Id("b").Op("=").Id("AppendJSONString").Call(key, v)
			case "int":
				return jen.Id("b").Op("=").Qual("strconv", "AppendInt").Call(key, v, jen.Lit(10))
			case "bool", "true":
				return jen.Id("b").Op("=").Qual("strconv", "AppendBool").Call(key, v)
			}
			return jen.Id("b").Op("=").Id("appendList").Call(jen.Id("b"), jen.Lit(quote(fd.Name)), v)
		}
		switch {
		case fd.constant():
			body = append(body, jen.Id("b").Op("=").Append(key, jen.Lit(fd.Type).Op("...")))
		case pointer && fd.Optional:
			body = append(body, jen.If(jen.Add(field).Op("!=").Nil()).Block(value(jen.Op("*").Add(field))))
		case pointer:
			null := jen.Id("b").Op("=").Append(key, jen.Lit("null").Op("..."))
			body = append(body, jen.If(jen.Add(field).Op("==").Nil()).Block(null).Else().Block(value(jen.Op("*").Add(field))))
		case fd.Optional && fd.Type == "true":
			body = append(body, jen.If(field).Block(value(field)))
		case fd.Optional && strings.HasPrefix(fd.Type, "[]"):
			body = append(body, jen.If(jen.Len(field).Op(">").Lit(0)).Block(value(field)))
		default:
			body = append(body, value(field))
		}
	}
	body = append(body, jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}'))))
	f.Comment("AppendJSON appends r as JSON.stringify writes it (encoding/json's")
	f.Comment("output for the struct, without HTML escaping) and returns the extended slice.")
	f.Func().Params(jen.Id("r").Id(r.Name)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).Index().Byte().Block(body...)
	failedDecl(f, r)
}

// failedDecl declares r's failed, which makes r a Result (ResultOutput
// takes one) and says whether the JSON AppendJSON writes has an error key,
// the failure Output.IsError reports.
func failedDecl(f *jen.File, r Result) {
	failed := jen.False()
	for _, fd := range r.Fields {
		if fd.Name != "error" {
			continue
		}
		// Present when AppendJSON writes it: an optional key only when set.
		field := jen.Id("r").Dot(goName(fd.Name))
		switch {
		case !fd.Optional:
			failed = jen.True()
		case fd.Type == "string" || fd.Type == "int" || fd.Type == "bool":
			failed = jen.Add(field).Op("!=").Nil()
		case fd.Type == "true":
			failed = field
		default:
			failed = jen.Len(field).Op(">").Lit(0)
		}
	}
	f.Comment("failed reports whether r's JSON has an error key.")
	f.Func().Params(jen.Id("r").Id(r.Name)).Id("failed").Params().Bool().Block(jen.Return(failed))
}
