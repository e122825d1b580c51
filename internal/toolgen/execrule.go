package toolgen

// The exec tool's description and input schema, which depend on its
// backends: the rule is the spec's, rendered at run time.

import (
	"slices"
	"strings"

	"github.com/agenttools/agenttools/internal/placeholder"
	"github.com/dave/jennifer/jen"
)

func execDescription(f *jen.File, t Tool) {
	p := t.Description.Exec
	hintExpr := map[string]jen.Code{}
	for _, h := range p.Hints {
		templateDecl(f, "exec"+goName(h.Name), h, "A hint of exec's description.")
		hintExpr[h.Name] = templateCall("exec"+goName(h.Name), h, jen.Id("prefix"), nil)
	}
	f.Comment("ExecDefaultShellText and ExecDefaultCallableText describe a backend that says nothing of itself.")
	f.Const().Defs(
		jen.Id("ExecDefaultShellText").Op("=").Lit(p.DefaultShell),
		jen.Id("ExecDefaultCallableText").Op("=").Lit(p.DefaultCallable),
		jen.Id("execCallableMark").Op("=").Lit(p.CallableMark),
	)
	templateDecl(f, "execOutputHint", p.OutputHint, "how the reply cuts long output.")
	templateDecl(f, "execBackendItem", p.BackendItem, "one backend in the multi-backend list.")

	lineCode := func(lines []string, vals map[string]jen.Code) []jen.Code {
		var out []jen.Code
		for _, line := range lines {
			switch line {
			case "{backendItems}":
				out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("backends")).Block(
					jen.Id("mark").Op(":=").Lit(""),
					jen.If(jen.Id("b").Dot("Callable")).Block(jen.Id("mark").Op("=").Id("execCallableMark")),
					jen.Id("lines").Op("=").Append(jen.Id("lines"), jen.Id("execBackendItem").Call(
						jen.Id("b").Dot("ID"), jen.Id("mark"), jen.Id("b").Dot("DescribedText").Call())),
				))
			case "{callableSection}":
				sectionVals := map[string]jen.Code{"ids": jen.Qual("strings", "Join").Call(jen.Id("callable"), jen.Lit(", "))}
				for k, v := range vals {
					sectionVals[k] = v
				}
				var sec []jen.Code
				for _, s := range p.CallableSection {
					sec = append(sec, render(Template{Text: s, Args: argsOf(s)}, sectionVals))
				}
				out = append(out, jen.If(jen.Len(jen.Id("callable")).Op(">").Lit(0)).Block(
					jen.Id("lines").Op("=").Append(jen.Id("lines"), jen.List(sec...)),
				))
			default:
				out = append(out, jen.Id("lines").Op("=").Append(jen.Id("lines"), render(Template{Text: line, Args: argsOf(line)}, vals)))
			}
		}
		return out
	}
	vals := map[string]jen.Code{"outputHint": jen.Id("output"), "text": jen.Id("only").Dot("DescribedText").Call()}
	for k, v := range hintExpr {
		vals[k] = v
	}
	body := []jen.Code{
		jen.Id("output").Op(":=").Add(templateCall("execOutputHint", p.OutputHint, jen.Id("prefix"),
			map[string]jen.Code{"maxLines": jen.Id("maxLines"), "maxBytes": jen.Id("maxBytes")})),
		jen.Var().Id("lines").Index().String(),
	}
	single := func(lines []string) []jen.Code {
		return append(lineCode(lines, vals), jen.Return(jen.Qual("strings", "Join").Call(jen.Id("lines"), jen.Lit("\n"))))
	}
	body = append(body, jen.If(jen.Len(jen.Id("backends")).Op("==").Lit(1)).Block(
		append([]jen.Code{
			jen.Id("only").Op(":=").Id("backends").Index(jen.Lit(0)),
			jen.If(jen.Id("only").Dot("Callable")).Block(single(p.SingleCallable)...),
		}, single(p.SingleShell)...)...,
	))
	body = append(body,
		jen.Var().Id("callable").Index().String(),
		jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("backends")).Block(
			jen.If(jen.Id("b").Dot("Callable")).Block(
				jen.Id("callable").Op("=").Append(jen.Id("callable"), jen.Id("QuoteJSON").Call(jen.Id("b").Dot("ID"))),
			),
		),
	)
	body = append(body, lineCode(p.Multiple, vals)...)
	body = append(body, jen.Return(jen.Qual("strings", "Join").Call(jen.Id("lines"), jen.Lit("\n"))))
	f.Add(comment("ExecDescription is the exec tool's description for its backends (at least one) and output window (maxLines lines, maxBytes bytes per stream), rendered by the reference's rule: one backend is described on its own, several are listed with how to choose. It names the other tools as a tool set with the given prefix offers them (\"\" for the spec's names)."))
	f.Func().Id("ExecDescription").Params(
		jen.Id("prefix").Id("ToolPrefix"), jen.Id("backends").Index().Id("ExecBackend"), jen.Id("maxLines"), jen.Id("maxBytes").Int64(),
	).String().Block(body...)
}

// argsOf declares every placeholder of a rule line as a string argument.
func argsOf(text string) []Arg {
	var out []Arg
	for _, s := range placeholder.Parse(text) {
		if s.Arg != "" && !slices.ContainsFunc(out, func(a Arg) bool { return a.Name == s.Arg }) {
			out = append(out, Arg{Name: s.Arg, Type: "string"})
		}
	}
	return out
}

// execSchema emits ExecInputSchema, which offers the parameters whose
// `when` holds for the backends and picks description variants.
func execSchema(m *Model, f *jen.File, t Tool) {
	n := goName(t.Name)
	body := []jen.Code{
		jen.Id("multiple").Op(":=").Len(jen.Id("backends")).Op(">").Lit(1),
		jen.Id("callable").Op(":=").Lit(0),
		jen.Var().Id("ids").Index().String(),
		jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("backends")).Block(
			jen.Id("ids").Op("=").Append(jen.Id("ids"), jen.Id("QuoteJSON").Call(jen.Id("b").Dot("ID"))),
			jen.If(jen.Id("b").Dot("Callable")).Block(jen.Id("callable").Op("++")),
		),
		jen.Id("variant").Op(":=").Map(jen.String()).Bool().Values(jen.Dict{
			jen.Lit("shell"):    jen.Id("callable").Op("==").Lit(0),
			jen.Lit("callable"): jen.Id("callable").Op("==").Len(jen.Id("backends")),
			jen.Lit("mixed"):    jen.Id("callable").Op(">").Lit(0).Op("&&").Id("callable").Op("<").Len(jen.Id("backends")),
			jen.Lit("single"):   jen.Op("!").Id("multiple"),
			jen.Lit("multiple"): jen.Id("multiple"),
		}),
		jen.Var().Id("props").Index().String(),
		jen.Var().Id("required").Index().String(),
	}
	usesDefinitions := false
	for _, p := range t.Params {
		var cond jen.Code
		switch p.When {
		case "multipleBackends":
			cond = jen.Id("multiple")
		case "callableBackend":
			cond = jen.Id("callable").Op(">").Lit(0)
		}
		if p.Kind == "jsonRecord" {
			usesDefinitions = true
		}
		var stmts []jen.Code
		add := func(desc string) jen.Code {
			frag := quote(p.Name) + ":" + paramSchema(p, desc)
			if pre, post, ok := strings.Cut(frag, enumMark); ok {
				return jen.Id("props").Op("=").Append(jen.Id("props"), jen.Add(lit(pre)).Op("+").Qual("strings", "Join").Call(jen.Id("ids"), jen.Lit(",")).Op("+").Add(lit(post)))
			}
			return jen.Id("props").Op("=").Append(jen.Id("props"), lit(frag))
		}
		if len(p.Descriptions) > 0 {
			var cases []jen.Code
			for _, d := range p.Descriptions {
				cases = append(cases, jen.Case(jen.Id("variant").Index(jen.Lit(d.Name))).Block(add(d.Text)))
			}
			stmts = append(stmts, jen.Switch().Block(cases...))
		} else {
			stmts = append(stmts, add(p.Description))
		}
		if !p.Optional && p.Default == nil {
			stmts = append(stmts, jen.Id("required").Op("=").Append(jen.Id("required"), lit(quote(p.Name))))
		}
		if cond != nil {
			body = append(body, jen.If(cond).Block(stmts...))
		} else {
			body = append(body, stmts...)
		}
	}
	body = append(body, jen.Id("text").Op(":=").Add(lit(`{"$schema":`+quote(m.SchemaDialect)+`,"type":"object","properties":{`)).
		Op("+").Qual("strings", "Join").Call(jen.Id("props"), jen.Lit(",")).
		Op("+").Add(lit(`},"required":[`)).Op("+").Qual("strings", "Join").Call(jen.Id("required"), jen.Lit(",")).Op("+").Lit("]"))
	if usesDefinitions {
		body = append(body, jen.If(jen.Id("callable").Op(">").Lit(0)).Block(
			jen.Id("text").Op("+=").Add(lit(`,"definitions":`+jsonValueDefinition)),
		))
	}
	body = append(body, jen.Return(jen.Id("text").Op("+").Add(lit(`,"additionalProperties":false}`))))
	f.Add(comment(n + "InputSchema is the JSON Schema of the " + t.Name + " tool's arguments for its backends, as the model receives it: backend is offered (and required) only with several backends, input only when a backend is callable."))
	f.Func().Id(n + "InputSchema").Params(jen.Id("backends").Index().Id("ExecBackend")).String().Block(body...)
}
