package toolgen

// The table package toolspec's Surface is built from: what an overlay may
// change of each tool, and what it is checked against.

import (
	"github.com/dave/jennifer/jen"
)

// specTable emits specTools: per tool its description (a template, or
// none for exec, whose rule assembles it), the description's arguments,
// its input schema when fixed, the parameter descriptions (an array's
// item properties as "edits.oldText"; varies marks one chosen by exec's
// backends) and the limits with their bounds (limitMin and limitMax,
// core's range, where the spec gives none).
func specTable(f *jen.File, m *Model) {
	var rows []jen.Code
	for _, t := range m.Tools {
		n := goName(t.Name)
		fields := []jen.Code{kv("name", jen.Id("Tool"+n))}
		switch {
		case t.Description.Template != nil:
			fields = append(fields, kv("description", lit(t.Description.Template.Text)))
			var args []jen.Code
			for _, a := range t.Description.Template.Args {
				args = append(args, jen.Values(jen.Lit(a.Name), jen.Lit(a.Type)))
			}
			fields = append(fields, kv("args", jen.Index().Id("specArg").Values(args...)))
		case t.Description.Exec != nil:
			fields = append(fields, kv("rule", jen.True()))
		default:
			fields = append(fields, kv("description", lit(t.Description.Text)))
		}
		if isStaticSchema(t) {
			fields = append(fields, kv("schema", jen.Id(n+"InputSchema")))
		}
		var params []jen.Code
		var add func(prefix string, list []Param)
		add = func(prefix string, list []Param) {
			for _, p := range list {
				row := []jen.Code{kv("name", jen.Lit(prefix+p.Name))}
				if p.Description != "" {
					row = append(row, kv("description", lit(p.Description)))
				}
				if len(p.Descriptions) > 0 {
					row = append(row, kv("varies", jen.True()))
				}
				params = append(params, jen.Values(row...))
				add(prefix+p.Name+".", p.Items)
			}
		}
		add("", t.Params)
		fields = append(fields, kv("params", jen.Index().Id("specParam").Add(lines(params))))
		var limits []jen.Code
		for _, l := range t.Limits {
			base := n + goName(l.Name)
			lo, hi := jen.Id("limitMin"), jen.Id("limitMax")
			if l.Min != nil {
				lo = jen.Id(base + "Min")
			}
			if l.Max != nil {
				hi = jen.Id(base + "Max")
			}
			limits = append(limits, jen.Values(
				kv("name", jen.Lit(l.Name)), kv("def", jen.Id(base+"Default")),
				kv("min", lo), kv("max", hi), kv("unit", jen.Lit(l.Unit)), kv("settable", jen.Lit(l.Settable)),
			))
		}
		if len(limits) > 0 {
			fields = append(fields, kv("limits", jen.Index().Id("specLimit").Add(lines(limits))))
		}
		rows = append(rows, jen.ValuesFunc(func(g *jen.Group) {
			for _, fd := range fields {
				g.Line().Add(fd)
			}
			g.Line()
		}))
	}
	f.Comment("specTools is what an overlay may change of each tool (see Surface), in ToolNames order.")
	f.Var().Id("specTools").Op("=").Index().Id("specTool").Add(lines(rows))
}
