package toolgen

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/agenttools/agenttools/internal/placeholder"
)

// Load compiles the spec source (named filename in error messages),
// checks it against the spec's own schema and the rules CUE cannot
// express (every placeholder declared, and so on), and returns the model.
// Errors name the file, line and column.
func Load(filename string, src []byte) (*Model, error) {
	ctx := cuecontext.New()
	v := ctx.CompileBytes(src, cue.Filename(filename))
	if err := v.Err(); err != nil {
		return nil, cueError(err, filename)
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, cueError(err, filename)
	}
	l := &loader{}
	m := l.model(v)
	if len(l.errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(l.errs, "\n"))
	}
	return m, nil
}

// cueErrors words each of CUE's errors as a PosError: CUE's message and
// path, at its first position in filename (the file being read), with
// its other positions in filename as Also. A position elsewhere (in the
// schema an overlay is unified with) says little to the file's author
// and is left out, unless the error has no position in filename.
func cueErrors(err error, filename string) []*PosError {
	var list []*PosError
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		pe := &PosError{Pos: filename, Path: strings.Join(e.Path(), "."), Msg: fmt.Sprintf(format, args...), Err: e}
		positions := cueerrors.Positions(e)
		var here []string
		for _, p := range positions {
			if p.Filename() == filename {
				if pe.line == 0 {
					pe.place(p)
				} else {
					here = append(here, p.String())
				}
			}
		}
		if pe.line == 0 {
			for _, p := range positions {
				switch {
				case p.Filename() == "":
					// not in a file: the root #Overlay the file is unified with
				case pe.line == 0:
					pe.place(p)
				default:
					here = append(here, p.String())
				}
			}
		}
		pe.Also = here
		list = append(list, pe)
	}
	return list
}

// cueError is cueErrors as one error, the mistakes in the order of the
// file.
func cueError(err error, filename string) error {
	return joinSorted(cueErrors(err, filename))
}

type loader struct {
	errs      []string
	toolNames map[string]bool // toolOrder's: what an argument of type tool may be named
}

func (l *loader) fail(v cue.Value, format string, args ...any) {
	l.errs = append(l.errs, fmt.Sprintf("%s: %s", v.Pos(), fmt.Sprintf(format, args...)))
}

type field struct {
	name string
	v    cue.Value
}

// fields lists a struct's regular fields in the order the spec writes them.
func (l *loader) fields(v cue.Value) []field {
	it, err := v.Fields()
	if err != nil {
		l.fail(v, "%v", err)
		return nil
	}
	var out []field
	for it.Next() {
		out = append(out, field{it.Selector().Unquoted(), it.Value()})
	}
	return out
}

func (l *loader) str(v cue.Value, path string) string {
	f := v.LookupPath(cue.ParsePath(path))
	s, err := f.String()
	if err != nil {
		l.fail(v, "%s: %v", path, err)
	}
	return s
}

func (l *loader) optStr(v cue.Value, path string) (string, bool) {
	f := v.LookupPath(cue.ParsePath(path))
	if !f.Exists() {
		return "", false
	}
	s, err := f.String()
	if err != nil {
		l.fail(f, "%v", err)
	}
	return s, true
}

func (l *loader) boolean(v cue.Value, path string) bool {
	b, err := v.LookupPath(cue.ParsePath(path)).Bool()
	if err != nil {
		l.fail(v, "%s: %v", path, err)
	}
	return b
}

func (l *loader) integer(v cue.Value, path string) int64 {
	n, err := v.LookupPath(cue.ParsePath(path)).Int64()
	if err != nil {
		l.fail(v, "%s: %v", path, err)
	}
	return n
}

func (l *loader) optInt(v cue.Value, path string) *int64 {
	return optional(l, v, path, cue.Value.Int64)
}

func (l *loader) optBool(v cue.Value, path string) *bool {
	return optional(l, v, path, cue.Value.Bool)
}

// optional reads the field at path with get, and is nil when the spec
// leaves the field out.
func optional[T any](l *loader, v cue.Value, path string, get func(cue.Value) (T, error)) *T {
	f := v.LookupPath(cue.ParsePath(path))
	if !f.Exists() {
		return nil
	}
	x, err := get(f)
	if err != nil {
		l.fail(f, "%v", err)
	}
	return &x
}

func (l *loader) strings(v cue.Value) []string {
	var out []string
	if err := v.Decode(&out); err != nil {
		l.fail(v, "%v", err)
	}
	return out
}

func (l *loader) namedTexts(v cue.Value) []NamedText {
	var out []NamedText
	for _, f := range l.fields(v) {
		s, err := f.v.String()
		if err != nil {
			l.fail(f.v, "%v", err)
		}
		out = append(out, NamedText{f.name, s})
	}
	return out
}

func (l *loader) templates(v cue.Value) []Template {
	var out []Template
	for _, f := range l.fields(v) {
		out = append(out, l.template(f.name, f.v))
	}
	return out
}

func (l *loader) model(v cue.Value) *Model {
	l.toolNames = map[string]bool{}
	for _, name := range l.strings(v.LookupPath(cue.ParsePath("toolOrder"))) {
		l.toolNames[name] = true
	}
	m := &Model{
		WorkspaceRoot: l.str(v, "workspaceRoot"),
		SchemaDialect: l.str(v, "schemaDialect"),
		OutputDir:     l.str(v, "outputDir"),
	}
	m.OutputInteger.Minimum = l.integer(v, "outputSchemaInteger.minimum")
	m.OutputInteger.Maximum = l.integer(v, "outputSchemaInteger.maximum")
	args := v.LookupPath(cue.ParsePath("arguments"))
	for _, f := range l.fields(args) {
		switch f.name {
		case "invalid":
			m.Arguments.Invalid = l.template(f.name, f.v)
		case "problemSeparator":
			m.Arguments.ProblemSeparator, _ = f.v.String()
		case "typeNames":
			m.Arguments.TypeNames = l.namedTexts(f.v)
		case "maxProblems":
			m.Arguments.MaxProblems = l.integer(args, "maxProblems")
		default:
			m.Arguments.Problems = append(m.Arguments.Problems, l.template(f.name, f.v))
		}
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("argumentList"))) {
		if f.name == "typeNames" {
			m.ArgumentList.TypeNames = l.namedTexts(f.v)
			continue
		}
		m.ArgumentList.Templates = append(m.ArgumentList.Templates, l.template(f.name, f.v))
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("messages"))) {
		m.Messages = append(m.Messages, l.template(f.name, f.v))
	}
	m.Approval = l.templates(v.LookupPath(cue.ParsePath("approval")))
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("workspaceLimits"))) {
		m.Limits = append(m.Limits, l.limit(f.name, f.v))
	}
	tools := v.LookupPath(cue.ParsePath("tools"))
	order := v.LookupPath(cue.ParsePath("toolOrder"))
	seen := map[string]bool{}
	for _, name := range l.strings(order) {
		t := tools.LookupPath(cue.MakePath(cue.Str(name)))
		if !t.Exists() {
			l.fail(order, "toolOrder names %q, which tools does not declare", name)
			continue
		}
		seen[name] = true
		m.Tools = append(m.Tools, l.tool(name, t))
	}
	for _, f := range l.fields(tools) {
		if !seen[f.name] {
			l.fail(f.v, "tool %q is missing from toolOrder", f.name)
		}
	}
	m.ErrorResult = l.result("ErrorResult", v.LookupPath(cue.ParsePath("errorResult")))
	for i, t := range m.Tools {
		m.Tools[i].OutputSchema = l.outputSchema(m, t, tools.LookupPath(cue.MakePath(cue.Str(t.Name), cue.Str("outputSchema"))))
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("outputKinds"))) {
		m.OutputKinds = append(m.OutputKinds, OutputKind{Key: f.name, Name: l.str(f.v, "name"), Doc: l.str(f.v, "doc")})
	}
	parts := v.LookupPath(cue.ParsePath("contentParts"))
	m.ContentParts = ContentParts{
		TextType: l.str(parts, "text.type"),
		TextDoc:  l.str(parts, "text.doc"),
		FileType: l.str(parts, "file.type"),
		DataType: l.str(parts, "file.dataType"),
		FileDoc:  l.str(parts, "file.doc"),
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("deviations"))) {
		m.Deviations = append(m.Deviations, Deviation{
			Name:      f.name,
			Reference: l.str(f.v, "reference"),
			Ours:      l.str(f.v, "ours"),
		})
	}
	l.checkNames(m)
	return m
}

func (l *loader) tool(name string, v cue.Value) Tool {
	t := Tool{
		Name:      name,
		Available: l.boolean(v, "available"),
		Mutates:   l.boolean(v, "mutates"),
		Media:     l.boolean(v, "media"),
		Streams:   l.boolean(v, "streams"),

		ConstrainedSampling: l.boolean(v, "constrainedSampling"),
	}
	t.Annotations = l.annotations(t, v.LookupPath(cue.ParsePath("annotations")))
	d := v.LookupPath(cue.ParsePath("description"))
	switch {
	case d.LookupPath(cue.ParsePath("text")).Exists():
		t.Description.Text = l.str(d, "text")
	case d.LookupPath(cue.ParsePath("template")).Exists():
		tpl := l.template("description", d.LookupPath(cue.ParsePath("template")))
		t.Description.Template = &tpl
	default:
		t.Description.Exec = l.execParts(d.LookupPath(cue.ParsePath("parts")))
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("params"))) {
		t.Params = append(t.Params, l.param(f.name, f.v))
	}
	rules := v.LookupPath(cue.ParsePath("rules"))
	if rules.Exists() {
		it, err := rules.List()
		if err != nil {
			l.fail(rules, "%v", err)
		}
		for it.Next() {
			r := it.Value()
			rule := Rule{
				Param:       l.str(r, "param"),
				GreaterThan: l.integer(r, "greaterThan"),
				Requires:    l.str(r, "requires"),
				Message:     l.template("rule", r.LookupPath(cue.ParsePath("message"))),
			}
			if len(rule.Message.Args) > 0 {
				l.fail(r, "a rule's message is a fixed text (it takes no arguments)")
			}
			if !hasParam(t.Params, rule.Param) || !hasParam(t.Params, rule.Requires) {
				l.fail(r, "rule names a parameter %s does not have", name)
			}
			t.Rules = append(t.Rules, rule)
		}
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("limits"))) {
		t.Limits = append(t.Limits, l.limit(f.name, f.v))
	}
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("messages"))) {
		t.Messages = append(t.Messages, l.template(f.name, f.v))
	}
	l.checkDescription(t, d)
	l.checkStated(t, v)
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("results"))) {
		t.Results = append(t.Results, l.result(f.name, f.v))
	}
	if t.Description.Exec != nil {
		for _, p := range t.Params {
			if p.Kind == "enum" && p.When != "multipleBackends" {
				l.fail(v, "exec: an enum parameter must be offered only with multiple backends")
			}
		}
	}
	return t
}

// checkDescription holds a tool's description to what toolspec.Surface
// renders at run time: a fixed text has no braces, and a template's
// integer placeholders are the tool's limits (rendered with the tool
// set's values), its other placeholders tools.
func (l *loader) checkDescription(t Tool, v cue.Value) {
	switch {
	case t.Description.Template != nil:
		for _, a := range t.Description.Template.Args {
			if a.Type == "tool" || a.Type == "int" && slices.ContainsFunc(t.Limits, func(lim Limit) bool { return lim.Name == a.Name }) {
				continue
			}
			l.fail(v.LookupPath(cue.ParsePath("template.text")), "%s: the description's placeholder {%s} must name a limit of the tool (an int) or a tool", t.Name, a.Name)
		}
		for _, seg := range placeholder.Parse(t.Description.Template.Text) {
			unit, ok := placeholder.Units[seg.Format]
			if i := slices.IndexFunc(t.Limits, func(lim Limit) bool { return lim.Name == seg.Arg }); ok && i >= 0 && t.Limits[i].Unit != unit {
				l.fail(v.LookupPath(cue.ParsePath("template.text")), "%s: the description's {%s|%s} writes %s and %s is in %s", t.Name, seg.Arg, seg.Format, unit, seg.Arg, t.Limits[i].Unit)
			}
		}
	case t.Description.Exec == nil:
		if strings.ContainsAny(t.Description.Text, "{}") {
			l.fail(v.LookupPath(cue.ParsePath("text")), "%s: a fixed description has no braces (a description with placeholders is a template)", t.Name)
		}
	}
}

// checkStated holds a tool's settable limits to what Surface.With can
// keep true when an overlay changes one: the tool's description and
// messages, which an overlay cannot reword with the new value (a
// description states a limit by a placeholder), do not write a settable
// limit's default in digits; a parameter description that states it is
// listed in the limit's statedIn, which names only parameters with a
// description of their own. A default written in words ("one hour") the
// generator cannot see: statedIn lists it by hand.
func (l *loader) checkStated(t Tool, v cue.Value) {
	// A text the model sees, with where the spec writes it.
	type text struct {
		where string // "the description", "message x", "parameter y"
		param string // the parameter as an overlay names it, for a parameter's
		text  string
		at    cue.Value
	}
	var texts []text
	d := v.LookupPath(cue.ParsePath("description"))
	switch e := t.Description.Exec; {
	case t.Description.Template != nil:
		texts = append(texts, text{where: "the description", text: t.Description.Template.Text, at: d})
	case e != nil:
		parts := slices.Concat(e.SingleShell, e.SingleCallable, e.Multiple, e.CallableSection,
			[]string{e.BackendItem.Text, e.CallableMark, e.DefaultShell, e.DefaultCallable, e.OutputHint.Text})
		for _, h := range e.Hints {
			parts = append(parts, h.Text)
		}
		texts = append(texts, text{where: "the description", text: strings.Join(parts, "\n"), at: d})
	default:
		texts = append(texts, text{where: "the description", text: t.Description.Text, at: d})
	}
	for _, m := range t.Messages {
		texts = append(texts, text{where: "message " + m.Name, text: m.Text, at: v.LookupPath(cue.MakePath(cue.Str("messages"), cue.Str(m.Name), cue.Str("text")))})
	}
	described := map[string]bool{}
	var add func(prefix string, at cue.Value, list []Param)
	add = func(prefix string, at cue.Value, list []Param) {
		for _, p := range list {
			pv := at.LookupPath(cue.MakePath(cue.Str(p.Name)))
			if p.Description != "" {
				described[prefix+p.Name] = true
				texts = append(texts, text{"parameter " + prefix + p.Name, prefix + p.Name, p.Description, pv.LookupPath(cue.ParsePath("description"))})
			}
			for _, d := range p.Descriptions {
				texts = append(texts, text{"parameter " + prefix + p.Name + " (" + d.Name + ")", "", d.Text, pv.LookupPath(cue.MakePath(cue.Str("descriptions"), cue.Str(d.Name)))})
			}
			add(prefix+p.Name+".", pv.LookupPath(cue.ParsePath("items.properties")), p.Items)
		}
	}
	add("", v.LookupPath(cue.ParsePath("params")), t.Params)
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("limits"))) {
		lim := t.Limits[slices.IndexFunc(t.Limits, func(lim Limit) bool { return lim.Name == f.name })]
		for i, p := range lim.StatedIn {
			if !described[p] || !lim.Settable {
				l.fail(f.v.LookupPath(cue.MakePath(cue.Str("statedIn"), cue.Index(i))), "%s: limit %s: statedIn names %s, which is not a parameter of the tool with a description of its own, or the limit is not settable", t.Name, lim.Name, p)
			}
		}
		if !lim.Settable {
			continue
		}
		re := statesDefault(lim)
		for _, x := range texts {
			switch {
			case !re.MatchString(x.text), x.param != "" && slices.Contains(lim.StatedIn, x.param):
			case x.param != "":
				l.fail(x.at, "%s: %s's description writes the default of the settable limit %s (%d %s): list %s in the limit's statedIn, so that an overlay that changes the limit must reword it", t.Name, x.where, lim.Name, lim.Default, lim.Unit, x.param)
			default:
				l.fail(x.at, "%s: %s writes the default of the settable limit %s (%d %s), which an overlay may change and cannot reword there: write it with a placeholder, or make the limit fixed", t.Name, x.where, lim.Name, lim.Default, lim.Unit)
			}
		}
	}
}

// statesDefault matches a text that writes lim's default in digits: the
// number itself, or for bytes a whole number of KB or MB with its unit.
func statesDefault(lim Limit) *regexp.Regexp {
	alts := []string{strconv.FormatInt(lim.Default, 10)}
	if lim.Unit == "bytes" {
		for _, u := range []struct {
			size int64
			name string
		}{{1 << 10, "K"}, {1 << 20, "M"}} {
			if lim.Default%u.size == 0 {
				alts = append(alts, strconv.FormatInt(lim.Default/u.size, 10)+`(?:\.0)? ?`+u.name+`i?B`)
			}
		}
	}
	return regexp.MustCompile(`(?:^|[^0-9.])(?:` + strings.Join(alts, "|") + `)(?:[^0-9]|$)`)
}

// annotations reads a tool's annotations and rejects hints MCP would
// ignore or that contradict the tool: destructiveHint and idempotentHint
// of a read-only tool, and a read-only tool that mutates.
func (l *loader) annotations(t Tool, v cue.Value) Annotations {
	a := Annotations{
		Title:       l.str(v, "title"),
		ReadOnly:    l.optBool(v, "readOnlyHint"),
		Destructive: l.optBool(v, "destructiveHint"),
		Idempotent:  l.optBool(v, "idempotentHint"),
		Open:        l.optBool(v, "openWorldHint"),
	}
	if a.ReadOnly == nil || !*a.ReadOnly {
		return a
	}
	if t.Mutates {
		l.fail(v.LookupPath(cue.ParsePath("readOnlyHint")), "%s: a tool that mutates is not read-only", t.Name)
	}
	for _, hint := range []string{"destructiveHint", "idempotentHint"} {
		if h := v.LookupPath(cue.ParsePath(hint)); h.Exists() {
			l.fail(h, "%s: %s means nothing for a read-only tool (MCP ignores it)", t.Name, hint)
		}
	}
	return a
}

func (l *loader) limit(name string, v cue.Value) Limit {
	lim := Limit{
		Name:    name,
		Default: l.integer(v, "default"),
		Unit:    l.str(v, "unit"),
		Doc:     l.str(v, "doc"),
		Min:     l.optInt(v, "min"),
		Max:     l.optInt(v, "max"),
	}
	// workspaceLimits are not #Limits: none of them is settable.
	if b := l.optBool(v, "settable"); b != nil {
		lim.Settable = *b
	}
	if s := v.LookupPath(cue.ParsePath("statedIn")); s.Exists() {
		lim.StatedIn = l.strings(s)
	}
	return lim
}

func hasParam(params []Param, name string) bool {
	for _, p := range params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (l *loader) param(name string, v cue.Value) Param {
	p := Param{
		Name:        name,
		Kind:        l.str(v, "kind"),
		Optional:    l.boolean(v, "optional"),
		When:        l.str(v, "when"),
		Minimum:     l.optInt(v, "minimum"),
		ExclMinimum: l.optInt(v, "exclusiveMinimum"),
		Maximum:     l.optInt(v, "maximum"),
		MinLength:   l.optInt(v, "minLength"),
		MaxBytes:    l.optInt(v, "maxBytes"),
		MaxTotal:    l.optInt(v, "maxTotalBytes"),
		MaxItems:    l.optInt(v, "maxItems"),
	}
	if p.Minimum != nil && p.ExclMinimum != nil {
		l.fail(v.LookupPath(cue.ParsePath("exclusiveMinimum")), "parameter %s: give minimum or exclusiveMinimum, not both", name)
	}
	p.Description, _ = l.optStr(v, "description")
	if s, ok := l.optStr(v, "default"); ok {
		p.Default = &s
	}
	if d := v.LookupPath(cue.ParsePath("descriptions")); d.Exists() {
		p.Descriptions = l.namedTexts(d)
		if p.Description != "" {
			l.fail(v, "parameter %s: give description or descriptions, not both", name)
		}
	}
	if items := v.LookupPath(cue.ParsePath("items")); items.Exists() {
		p.ItemsGoName = l.str(items, "goName")
		for _, f := range l.fields(items.LookupPath(cue.ParsePath("properties"))) {
			p.Items = append(p.Items, l.param(f.name, f.v))
		}
	}
	return p
}

func (l *loader) execParts(v cue.Value) *ExecParts {
	return &ExecParts{
		SingleShell:     l.strings(v.LookupPath(cue.ParsePath("single.shell"))),
		SingleCallable:  l.strings(v.LookupPath(cue.ParsePath("single.callable"))),
		Multiple:        l.strings(v.LookupPath(cue.ParsePath("multiple"))),
		BackendItem:     l.template("backendItem", v.LookupPath(cue.ParsePath("backendItem"))),
		CallableMark:    l.str(v, "callableMark"),
		CallableSection: l.strings(v.LookupPath(cue.ParsePath("callableSection"))),
		DefaultShell:    l.str(v, "defaultText.shell"),
		DefaultCallable: l.str(v, "defaultText.callable"),
		Hints:           l.templates(v.LookupPath(cue.ParsePath("hints"))),
		OutputHint:      l.template("outputHint", v.LookupPath(cue.ParsePath("outputHint"))),
	}
}

func (l *loader) template(name string, v cue.Value) Template {
	text := v.LookupPath(cue.ParsePath("text"))
	t := Template{Name: name, Text: l.str(v, "text"), Pos: text.Pos().String()}
	t.Doc, _ = l.optStr(v, "doc")
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("args"))) {
		typ, _ := f.v.String()
		if typ == "tool" && !l.toolNames[f.name] {
			l.fail(f.v, "%s: argument %s is of type tool but no tool has that name", name, f.name)
		}
		t.Args = append(t.Args, Arg{f.name, typ})
	}
	used := map[string]bool{}
	for _, s := range placeholder.Parse(t.Text) {
		if s.Arg == "" {
			continue
		}
		arg, format := s.Arg, s.Format
		a, ok := t.arg(arg)
		if !ok {
			l.fail(text, "%s: placeholder {%s} is not declared in args", name, arg)
			continue
		}
		used[arg] = true
		if format != "" {
			want, known := placeholder.Formats[format]
			switch {
			case !known:
				l.fail(text, "%s: unknown format %q in %s", name, format, "{"+arg+"|"+format+"}")
			case want != a.Type:
				l.fail(text, "%s: format %q needs a %s argument, %s is %s", name, format, want, arg, a.Type)
			}
		}
	}
	for _, a := range t.Args {
		if !used[a.Name] {
			l.fail(text, "%s: argument %s is declared but the text never uses it", name, a.Name)
		}
	}
	return t
}

func (t Template) arg(name string) (Arg, bool) {
	for _, a := range t.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

func (l *loader) result(name string, v cue.Value) Result {
	r := Result{Name: name, Doc: l.str(v, "doc")}
	var constants []cue.Value
	for _, f := range l.fields(v.LookupPath(cue.ParsePath("fields"))) {
		fd := Field{
			Name:     f.name,
			Type:     l.str(f.v, "type"),
			Optional: l.boolean(f.v, "optional"),
			Nullable: l.boolean(f.v, "nullable"),
		}
		fd.Doc, _ = l.optStr(f.v, "doc")
		if fd.Optional && fd.Nullable {
			l.fail(f.v, "%s.%s: a field is optional or nullable, not both", name, f.name)
		}
		if fd.constant() {
			constants = append(constants, f.v.LookupPath(cue.ParsePath("type")))
		}
		r.Fields = append(r.Fields, fd)
	}
	// A result with a json field is written by encoding/json (see
	// appendJSONDecl), which knows nothing of a field the struct lacks.
	if slices.ContainsFunc(r.Fields, func(fd Field) bool { return fd.Type == "json" }) {
		for _, c := range constants {
			l.fail(c, "%s: a result with a json field cannot have a constant (true or false) field", name)
		}
	}
	return r
}

// outputSchema resolves the result names of a tool's outputSchema (v,
// which may not exist) to its own results or the shared ErrorResult, and
// rejects a field whose type an output schema cannot express. Errors
// name the element's line (the list's own position is the schema's).
func (l *loader) outputSchema(m *Model, t Tool, v cue.Value) []Result {
	if !v.Exists() {
		return nil
	}
	it, err := v.List()
	if err != nil {
		l.fail(v, "%v", err)
		return nil
	}
	var out []Result
	var first cue.Value
	for i := 0; it.Next(); i++ {
		e := it.Value()
		if i == 0 {
			first = e
		}
		name, _ := e.String()
		r, ok := m.ErrorResult, name == m.ErrorResult.Name
		for _, tr := range t.Results {
			if tr.Name == name {
				r, ok = tr, true
			}
		}
		if !ok {
			l.fail(e, "%s: outputSchema names %s, which is neither one of its results nor %s", t.Name, name, m.ErrorResult.Name)
			continue
		}
		for _, f := range r.Fields {
			if _, ok := fieldSchema(m, f); !ok || f.Nullable {
				l.fail(e, "%s: outputSchema: %s.%s (%s) has no output schema form", t.Name, name, f.Name, f.Type)
			}
		}
		out = append(out, r)
	}
	if _, ok := failureResult(out); !ok {
		l.fail(first, "%s: outputSchema needs exactly one result with a required string field error (the failure)", t.Name)
	}
	return out
}

// failureResult is the result of an output schema a failure takes: the
// one with a required string field error.
func failureResult(results []Result) (Result, bool) {
	var found []Result
	for _, r := range results {
		for _, f := range r.Fields {
			if f.Name == "error" && f.Type == "string" && !f.Optional && !f.Nullable {
				found = append(found, r)
			}
		}
	}
	if len(found) != 1 {
		return Result{}, false
	}
	return found[0], true
}

// checkNames rejects declarations whose generated Go names would collide.
func (l *loader) checkNames(m *Model) {
	results := map[string]bool{m.ErrorResult.Name: true}
	for _, t := range m.Tools {
		for _, r := range t.Results {
			if results[r.Name] {
				l.errs = append(l.errs, fmt.Sprintf("result %s is declared twice", r.Name))
			}
			results[r.Name] = true
		}
	}
	for _, t := range m.Tools {
		for _, r := range t.Results {
			for _, f := range r.Fields {
				if elem, ok := strings.CutPrefix(f.Type, "[]"); ok && !results[elem] {
					l.errs = append(l.errs, fmt.Sprintf("%s.%s: no result named %s", r.Name, f.Name, elem))
				}
			}
		}
	}
}
