package toolgen

// The table package toolspec's Surface is built from: what an overlay may
// change of each tool, and what it is checked against.

import (
	"slices"

	"github.com/dave/jennifer/jen"
)

// specTable emits specTools: per tool its description (a template, or
// none for exec, whose rule assembles it), the description's arguments,
// the tools exec's description names,
// its input schema when fixed, the parameter descriptions (an array's
// item properties as "edits.oldText"; varies marks one chosen by exec's
// backends) and the limits with their bounds (limitMin and limitMax,
// core's range, where the spec gives none) and the parameters whose
// description states their default.
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
		if names := descriptionTools(t); len(names) > 0 && t.Description.Exec != nil {
			var lits []jen.Code
			for _, name := range names {
				lits = append(lits, jen.Id("Tool"+goName(name)))
			}
			fields = append(fields, kv("names", jen.Index().String().Values(lits...)))
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
			row := []jen.Code{
				kv("name", jen.Lit(l.Name)), kv("def", jen.Id(base+"Default")),
				kv("min", lo), kv("max", hi), kv("settable", jen.Lit(l.Settable)), kv("unit", jen.Lit(l.Unit)),
			}
			if len(l.StatedIn) > 0 {
				var stated []jen.Code
				for _, p := range l.StatedIn {
					stated = append(stated, jen.Lit(p))
				}
				row = append(row, kv("statedIn", jen.Index().String().Values(stated...)))
			}
			limits = append(limits, jen.Values(row...))
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

// descriptionTools are the tools t's description names (its placeholders
// of type tool; for exec, those of its hints and output hint), in the
// order they first appear.
func descriptionTools(t Tool) []string {
	var tpls []Template
	switch {
	case t.Description.Template != nil:
		tpls = append(tpls, *t.Description.Template)
	case t.Description.Exec != nil:
		tpls = append(append(tpls, t.Description.Exec.Hints...), t.Description.Exec.OutputHint)
	}
	var names []string
	for _, tpl := range tpls {
		for _, a := range tpl.Args {
			if a.Type == "tool" && !slices.Contains(names, a.Name) {
				names = append(names, a.Name)
			}
		}
	}
	return names
}
