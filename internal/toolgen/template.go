package toolgen

// Spec message templates as Go constants and functions of their
// arguments.

import (
	"github.com/agenttools/agenttools/internal/placeholder"
	"github.com/dave/jennifer/jen"
)

// render is the Go expression producing the template's text from
// expressions for its arguments.
func render(t Template, args map[string]jen.Code) jen.Code {
	var parts []jen.Code
	for _, s := range placeholder.Parse(t.Text) {
		if s.Arg == "" {
			parts = append(parts, jen.Lit(s.Literal))
			continue
		}
		a, _ := t.arg(s.Arg)
		v := args[s.Arg]
		switch {
		case s.Format == "kb":
			parts = append(parts, jen.Id("formatKB").Call(v))
		case s.Format == "size":
			parts = append(parts, jen.Id("FormatSize").Call(v))
		case s.Format == "json":
			parts = append(parts, jen.Id("QuoteJSON").Call(v))
		case s.Format == "mode":
			parts = append(parts, jen.Id("formatMode").Call(v))
		case a.Type == "int":
			parts = append(parts, jen.Qual("strconv", "FormatInt").Call(v, jen.Lit(10)))
		default:
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return jen.Lit("")
	}
	expr := parts[0]
	for _, p := range parts[1:] {
		expr = jen.Add(expr).Op("+").Add(p)
	}
	return expr
}

// namesTools reports whether t names another tool (an argument of type
// tool): its Go function then takes the tool set's prefix first
// (toolspec.ToolPrefix) and spells each such tool's name with it.
func namesTools(t Template) bool {
	for _, a := range t.Args {
		if a.Type == "tool" {
			return true
		}
	}
	return false
}

// toolName is the Go expression of the name a tool set with prefix offers
// the tool under.
func toolName(prefix jen.Code, tool string) jen.Code {
	return jen.Add(prefix).Dot("Name").Call(jen.Id("Tool" + goName(tool)))
}

// templateCall is the Go expression of the text of the template declared
// as name (templateDecl), from expressions for its arguments other than
// the tools it names, and for the prefix when it names tools.
func templateCall(name string, t Template, prefix jen.Code, args map[string]jen.Code) jen.Code {
	if len(t.Args) == 0 {
		return jen.Id(name)
	}
	var params []jen.Code
	if namesTools(t) {
		params = append(params, prefix)
	}
	for _, a := range t.Args {
		if a.Type != "tool" {
			params = append(params, args[a.Name])
		}
	}
	return jen.Id(name).Call(params...)
}

func argType(t string) jen.Code {
	if t == "int" {
		return jen.Int64()
	}
	return jen.String()
}

// templateDecl declares a template as a constant (no arguments) or a
// function returning the text.
func templateDecl(f *jen.File, name string, t Template, doc string) {
	if doc == "" {
		doc = t.Doc
	}
	if doc != "" {
		doc = " " + doc
	}
	if len(t.Args) == 0 {
		f.Add(comment(name + " is the text " + quote(t.Text) + "." + doc))
		f.Const().Id(name).Op("=").Add(lit(t.Text))
		f.Line()
		return
	}
	var params []jen.Code
	if namesTools(t) {
		params = append(params, jen.Id("prefix").Id("ToolPrefix"))
		doc += " It names other tools as a tool set with the given prefix offers them."
	}
	f.Add(comment(name + " renders " + quote(t.Text) + "." + doc))
	args := map[string]jen.Code{}
	for _, a := range t.Args {
		if a.Type == "tool" {
			args[a.Name] = toolName(jen.Id("prefix"), a.Name)
			continue
		}
		params = append(params, jen.Id(a.Name).Add(argType(a.Type)))
		args[a.Name] = jen.Id(a.Name)
	}
	f.Func().Id(name).Params(params...).String().Block(jen.Return(render(t, args)))
	f.Line()
}
