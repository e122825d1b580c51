package toolspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agenttools/agenttools/internal/placeholder"
)

// Overlay is a change to what the model sees of the tool set: the Go form
// of an overlay file (cmd/toolgen -overlay) and of run-time overrides
// (core.Options.Surface). The zero value changes nothing. Its JSON form is
// the CUE form, with the same field names, so an overlay can also be
// written as JSON. Surface.With checks it against the spec.
type Overlay struct {
	// Tools are the changes by the spec's tool name (read, ..., publish),
	// without any tool set prefix.
	Tools map[string]ToolOverlay `json:"tools,omitempty"`
}

// ToolOverlay is a change to one tool. A nil or empty field keeps what the
// spec (or the surface the overlay is applied to) says.
type ToolOverlay struct {
	// Offered set to false withholds the tool: no tool set built with the
	// surface offers it. true offers it again where the tool set would.
	// The other tools' messages, which an overlay cannot change, still
	// name it where the spec's do: write's "Content too large" tells the
	// model to use the edit tool, edit's "File too large" the write tool.
	Offered *bool `json:"offered,omitempty"`
	// Description is the tool's description, a template that may use only
	// the placeholders the spec declares for the tool's description: read's
	// {maxLines} and {maxBytes}, integers written plain ({maxLines}) or
	// with a format of the limit's unit ({maxBytes|kb} whole KB, never
	// 0KB; {maxBytes|size} as "256.0KB"); the other tools' descriptions
	// declare none. {name} and {name|format} are placeholders; any other
	// brace is the text's own (a brace glob such as src/{a,b}/*.ts, a JSON
	// object), except one that starts a declared name left unclosed or a
	// name with '|' ("{maxBytes|KB}"), which is refused as a broken
	// placeholder. exec's description, which the spec's rule assembles from
	// the backends, cannot be replaced.
	Description *string `json:"description,omitempty"`
	// Params are parameter descriptions by parameter name; a property of
	// an array's items is named "edits.oldText". A parameter the spec's
	// schema leaves undescribed (find's limit, grep's context, ...) gets
	// one, as the first key of its schema; one whose description varies
	// with exec's backends (exec's command and input) cannot be changed.
	Params map[string]string `json:"params,omitempty"`
	// Limits are default limits by the spec's limit name (read: maxLines,
	// maxBytes, ...), only those the spec marks settable, each the default
	// of a core option, within core's range for it. A limit whose default
	// a parameter description states in words (publish's expiresAfter:
	// expiresAfterMs says "Defaults to one hour.") changes only with a new
	// description of that parameter in the same overlay.
	Limits map[string]int64 `json:"limits,omitempty"`
}

// OverlayError is one change an overlay may not make (Surface.With). Path
// is the field as the overlay spells it, in CUE's path syntax:
// "tools.read.limits.maxLines", "tools.grep.params.qurey",
// `tools.edit.params."edits.oldText"` (a label that is not an identifier
// is quoted). Reason says why, and what is allowed.
type OverlayError struct {
	Path   string
	Reason string
}

// Error is "overlay: <Path>: <Reason>".
func (e *OverlayError) Error() string { return "overlay: " + e.Path + ": " + e.Reason }

// Surface is what the model sees of a tool set that an overlay can
// change: which tools are offered, their descriptions, parameter
// descriptions and default limits. Ours is the spec's; With derives
// another. A Surface is immutable and safe for concurrent use; core takes
// one in core.Options.Surface. A nil or zero Surface (new(Surface)) is
// Ours.
type Surface struct {
	overlay Overlay
	tools   map[string]*surfaceTool
}

// surfaceTool is one tool of a Surface.
type surfaceTool struct {
	spec        *specTool
	offered     bool
	description []placeholder.Segment
	params      map[string]string // the descriptions an overlay replaced
	limits      map[string]int64
}

// The generated table specTools (surface_gen.go) is made of these.
type (
	specTool struct {
		name        string
		description string // a template; empty when rule is set
		args        []specArg
		rule        bool     // exec's description is assembled from its backends
		names       []string // with rule: the tools the description names
		schema      string   // the input schema, when it does not depend on the backends
		params      []specParam
		limits      []specLimit
	}
	specArg struct {
		name string
		typ  string // "int" (a limit of the tool) or "tool"
	}
	specParam struct {
		name        string
		description string // empty when the schema gives none
		varies      bool   // the description is chosen by exec's backends
	}
	specLimit struct {
		name     string
		def      int64
		min, max int64
		settable bool
		unit     string // lines, bytes, ... (#Unit)
		// statedIn are the parameters whose description states the
		// default in words: a change of the limit must reword them.
		statedIn []string
	}
)

// The range core accepts for a limit the spec gives no bounds: positive,
// and below JavaScript's largest safe integer.
const (
	limitMin int64 = 1
	limitMax int64 = 1<<53 - 2
)

var ours = func() *Surface {
	s := &Surface{tools: map[string]*surfaceTool{}}
	for i := range specTools {
		spec := &specTools[i]
		t := &surfaceTool{spec: spec, offered: true, description: placeholder.Parse(spec.description), limits: map[string]int64{}}
		for _, l := range spec.limits {
			t.limits[l.name] = l.def
		}
		s.tools[spec.name] = t
	}
	return s
}()

// Ours is the spec's surface: every tool offered, with the descriptions,
// schemas and default limits the spec gives (the reference's, but for the
// declared deviations). Every call returns the same value.
func Ours() *Surface { return ours }

// With returns s changed by o; s itself is unchanged. It checks all of o
// first and then fails with every change it refuses, as *OverlayError
// values joined by errors.Join in the order of their Path: a tool the
// spec does not have; a parameter the tool does not have (core decodes
// the arguments by the spec's names, so a parameter can be described
// differently but not renamed or added), one whose description varies
// with exec's backends, or a
// parameter description with a placeholder, which is not rendered; exec's
// description; an empty or blank text, one that is not valid UTF-8 or
// holds a control character but a line break and tab; a
// description with a placeholder the tool's description does not declare,
// a format that does not fit it (or a limit in whole KB that would show
// as 0KB), or a broken placeholder; a
// limit the tool does not have, one that is not settable, or a value out
// of core's range for it (the spec's min and max, else 1 to 2^53-2); a
// change of a limit whose default a parameter description states in
// words without a new description of that parameter.
func (s *Surface) With(o Overlay) (*Surface, error) {
	s = s.orOurs()
	var errs []*OverlayError
	for _, name := range slices.Sorted(maps.Keys(o.Tools)) {
		t, ok := s.tools[name]
		if !ok {
			errs = append(errs, &OverlayError{"tools." + label(name), "no tool " + name + " in the spec; tools: " + strings.Join(ToolNames, ", ")})
			continue
		}
		errs = append(errs, t.check(o.Tools[name])...)
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *OverlayError) int { return strings.Compare(a.Path, b.Path) })
		list := make([]error, len(errs))
		for i, e := range errs {
			list[i] = e
		}
		return nil, errors.Join(list...)
	}
	n := &Surface{overlay: s.Overlay(), tools: maps.Clone(s.tools)}
	for name, c := range o.Tools {
		if c.Offered == nil && c.Description == nil && len(c.Params) == 0 && len(c.Limits) == 0 {
			continue
		}
		if n.overlay.Tools == nil {
			n.overlay.Tools = map[string]ToolOverlay{}
		}
		t := *s.tools[name]
		t.params, t.limits = maps.Clone(t.params), maps.Clone(t.limits)
		acc := n.overlay.Tools[name]
		if c.Offered != nil {
			t.offered = *c.Offered
			acc.Offered = new(*c.Offered)
		}
		if c.Description != nil {
			t.description = placeholder.Parse(*c.Description)
			acc.Description = new(*c.Description)
		}
		for p, d := range c.Params {
			if t.params == nil {
				t.params = map[string]string{}
			}
			if acc.Params == nil {
				acc.Params = map[string]string{}
			}
			t.params[p], acc.Params[p] = d, d
		}
		for l, v := range c.Limits {
			if acc.Limits == nil {
				acc.Limits = map[string]int64{}
			}
			t.limits[l], acc.Limits[l] = v, v
		}
		n.tools[name] = &t
		n.overlay.Tools[name] = acc
	}
	return n, nil
}

// label spells a field name as a CUE path does: as it is when it is an
// identifier of a regular field, else quoted (a name that starts with '_'
// would be a hidden field's).
func label(name string) string {
	for i, r := range name {
		if !(r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && (r == '_' || '0' <= r && r <= '9')) {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// check lists what c changes of t that an overlay may not.
func (t *surfaceTool) check(c ToolOverlay) []*OverlayError {
	var errs []*OverlayError
	name := t.spec.name
	at := func(field string) string { return "tools." + label(name) + "." + field }
	if c.Description != nil {
		if t.spec.rule {
			errs = append(errs, &OverlayError{at("description"), name + "'s description is assembled from its backends by the spec's rule (its parts in spec/tools.cue: single.shell, single.callable, multiple, backendItem, callableMark, callableSection, defaultText, hints, outputHint); they cannot be overridden yet"})
		} else if reason := t.spec.checkDescription(*c.Description); reason != "" {
			errs = append(errs, &OverlayError{at("description"), reason})
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.Params)) {
		path := at("params." + label(p))
		i := slices.IndexFunc(t.spec.params, func(sp specParam) bool { return sp.name == p })
		var reason string
		switch {
		case i < 0:
			reason = fmt.Sprintf("%s has no parameter %s (it takes %s): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added", name, p, t.spec.paramNames(func(specParam) bool { return true }))
		case t.spec.params[i].varies:
			reason = fmt.Sprintf("the description of %s's %s varies with its backends (the spec's variants); it cannot be replaced", name, p)
		default:
			reason = checkParamText(c.Params[p])
		}
		if reason != "" {
			errs = append(errs, &OverlayError{path, reason})
		}
	}
	for _, l := range slices.Sorted(maps.Keys(c.Limits)) {
		path := at("limits." + label(l))
		i := slices.IndexFunc(t.spec.limits, func(sl specLimit) bool { return sl.name == l })
		v := c.Limits[l]
		switch {
		case i < 0:
			var names []string
			for _, sl := range t.spec.limits {
				names = append(names, sl.name)
			}
			has := "it has none"
			if len(names) > 0 {
				has = "its limits: " + strings.Join(names, ", ")
			}
			errs = append(errs, &OverlayError{path, fmt.Sprintf("%s has no limit %s (%s); settable limits: %s", name, l, has, settableLimits())})
		case !t.spec.limits[i].settable:
			errs = append(errs, &OverlayError{path, fmt.Sprintf("%s's %s is fixed: the input schema's bounds, a description or a message the model sees carry it, or core relies on it; settable limits: %s", name, l, settableLimits())})
		case v < t.spec.limits[i].min || v > t.spec.limits[i].max:
			errs = append(errs, &OverlayError{path, fmt.Sprintf("%d is out of range: %s.%s must be from %d to %d", v, name, l, t.spec.limits[i].min, t.spec.limits[i].max)})
		case v != t.limits[l]:
			// A text that states the default in words would go on stating
			// the old one; the overlay that changes the limit rewords it.
			for _, p := range t.spec.limits[i].statedIn {
				if _, ok := c.Params[p]; !ok {
					errs = append(errs, &OverlayError{path, fmt.Sprintf("the description of %s's %s states the default (%q): an overlay that changes %s.%s must also give params.%s a description that states the new one", name, p, t.paramDescription(p), name, l, label(p))})
				}
			}
		}
	}
	if len(errs) == 0 && !t.spec.rule {
		errs = append(errs, t.checkKB(c)...)
	}
	return errs
}

// checkKB refuses a limit that t's description, as c leaves it, writes in
// whole KB ({maxBytes|kb}, rounded as the reference rounds it) when it
// would show as 0KB: a cap the model would read as none.
func (t *surfaceTool) checkKB(c ToolOverlay) []*OverlayError {
	segs := t.description
	if c.Description != nil {
		segs = placeholder.Parse(*c.Description)
	}
	var errs []*OverlayError
	for _, s := range segs {
		if s.Format != "kb" {
			continue
		}
		v, set := c.Limits[s.Arg]
		if !set {
			v = t.limits[s.Arg]
		}
		if formatKB(v) != "0" {
			continue
		}
		path := "tools." + label(t.spec.name) + ".description"
		if set {
			path = "tools." + label(t.spec.name) + ".limits." + label(s.Arg)
		}
		errs = append(errs, &OverlayError{path, fmt.Sprintf("%s's description writes %s in whole KB ({%s|kb}), which shows %d bytes as 0KB: give at least 512, or a description with {%s} or {%s|size}", t.spec.name, s.Arg, s.Arg, v, s.Arg, s.Arg)})
	}
	return errs
}

// paramDescription is the description of t's parameter p: the one an
// overlay gave it, else the spec's.
func (t *surfaceTool) paramDescription(p string) string {
	if d, ok := t.params[p]; ok {
		return d
	}
	return t.spec.params[slices.IndexFunc(t.spec.params, func(sp specParam) bool { return sp.name == p })].description
}

// paramNames lists the parameters keep holds for, "a, b, c".
func (t *specTool) paramNames(keep func(specParam) bool) string {
	var names []string
	for _, p := range t.params {
		if keep(p) {
			names = append(names, p.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// settableLimits lists every settable limit as tool.limit.
func settableLimits() string {
	var names []string
	for _, t := range specTools {
		for _, l := range t.limits {
			if l.settable {
				names = append(names, t.name+"."+l.name)
			}
		}
	}
	return strings.Join(names, ", ")
}

// checkText is why text cannot be a description, or "".
func checkText(text string) string {
	switch {
	case strings.TrimSpace(text) == "":
		return "is empty; a description tells the model what to do"
	case !utf8.ValidString(text):
		return "is not valid UTF-8"
	}
	if i := strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return fmt.Sprintf("holds the control character %U at byte %d; a description may hold line breaks and tabs, no other control character (a NUL cuts it short where it is read as a C string)", r, i)
	}
	return ""
}

// checkParamText is why text cannot be a parameter's description, or
// "": a parameter description is no template, so what reads as a
// placeholder ({maxLines}) would reach the model as written.
func checkParamText(text string) string {
	if reason := checkText(text); reason != "" {
		return reason
	}
	for _, s := range placeholder.Parse(text) {
		if s.Arg != "" {
			ph := s.Arg
			if s.Format != "" {
				ph += "|" + s.Format
			}
			return fmt.Sprintf("a parameter description takes no placeholder: {%s} would reach the model as written; write the value itself", ph)
		}
	}
	return ""
}

// checkDescription is why text cannot be t's description, or "".
func (t *specTool) checkDescription(text string) string {
	if reason := checkText(text); reason != "" {
		return reason
	}
	declared := "declares no placeholder"
	if len(t.args) > 0 {
		var names []string
		for _, a := range t.args {
			names = append(names, "{"+a.name+"}")
		}
		declared = "declares " + strings.Join(names, ", ")
	}
	segs := placeholder.Parse(text)
	if lit, ok := t.brokenPlaceholder(segs); ok {
		return fmt.Sprintf("%q is not a placeholder: a placeholder is {name} or {name|format}, formats %s; %s's description %s", lit, formatNames(), t.name, declared)
	}
	for _, s := range segs {
		if s.Arg == "" {
			continue
		}
		i := slices.IndexFunc(t.args, func(a specArg) bool { return a.name == s.Arg })
		if i < 0 {
			return fmt.Sprintf("{%s} is not a placeholder of %s's description, which %s", s.Arg, t.name, declared)
		}
		if s.Format == "" {
			continue
		}
		want, known := placeholder.Formats[s.Format]
		switch {
		case !known:
			return fmt.Sprintf("{%s|%s}: unknown format %s; formats: %s", s.Arg, s.Format, s.Format, formatNames())
		case want != t.args[i].typ:
			return fmt.Sprintf("{%s|%s}: format %s takes %s and %s is %s", s.Arg, s.Format, s.Format, typeName[want], s.Arg, typeName[t.args[i].typ])
		}
		if l := slices.IndexFunc(t.limits, func(l specLimit) bool { return l.name == s.Arg }); l >= 0 && placeholder.Units[s.Format] != t.limits[l].unit {
			return fmt.Sprintf("{%s|%s}: format %s writes %s and %s is in %s", s.Arg, s.Format, s.Format, unitName(placeholder.Units[s.Format]), s.Arg, t.limits[l].unit)
		}
	}
	return ""
}

// brokenPlaceholder finds, in segs' literals, a brace that starts what
// can only be meant as a placeholder but is not one: a name followed by
// '|' and a format that is not lower-case letters ("{maxBytes|KB}"), or a
// name the description declares left unclosed ("{maxLines lines"). It
// returns the text from that brace to the end of its literal. Any other
// brace is the text's own: a description may show a brace glob
// ("src/{a,b}/*.ts") or a JSON object, which the model should see as
// written.
func (t *specTool) brokenPlaceholder(segs []placeholder.Segment) (string, bool) {
	for _, s := range segs {
		for i := 0; s.Arg == "" && i < len(s.Literal); i++ {
			if s.Literal[i] != '{' {
				continue
			}
			j := i + 1
			for j < len(s.Literal) && isNameByte(s.Literal[j]) {
				j++
			}
			name := s.Literal[i+1 : j]
			if name == "" {
				continue
			}
			declared := slices.ContainsFunc(t.args, func(a specArg) bool { return a.name == name })
			if j < len(s.Literal) && s.Literal[j] == '|' || declared {
				return s.Literal[i:], true
			}
		}
	}
	return "", false
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// typeName names a placeholder's argument type in the refusals.
var typeName = map[string]string{"int": "an integer", "string": "a string", "tool": "a tool name"}

// unitName names a unit of placeholder.Units in a sentence.
func unitName(unit string) string {
	if unit == "mode" {
		return "a file mode"
	}
	return unit
}

func formatNames() string {
	return strings.Join(slices.Sorted(maps.Keys(placeholder.Formats)), ", ")
}

// Overlay is what With was given to make s from Ours, the changes
// accumulated (a later one replacing an earlier one of the same field):
// the zero Overlay for Ours. The result is a copy.
func (s *Surface) Overlay() Overlay {
	s = s.orOurs()
	if s.overlay.Tools == nil {
		return Overlay{}
	}
	out := Overlay{Tools: make(map[string]ToolOverlay, len(s.overlay.Tools))}
	for name, c := range s.overlay.Tools {
		c.Params, c.Limits = maps.Clone(c.Params), maps.Clone(c.Limits)
		out.Tools[name] = c
	}
	return out
}

// orOurs is s, or Ours for a nil or zero Surface (one not made by Ours or
// With), so that such a value means the spec's surface rather than a
// crash.
func (s *Surface) orOurs() *Surface {
	if s == nil || s.tools == nil {
		return ours
	}
	return s
}

// tool is the tool the spec calls name; it panics when there is none.
func (s *Surface) tool(name string) *surfaceTool {
	t, ok := s.orOurs().tools[name]
	if !ok {
		panic("toolspec: the spec has no tool " + strconv.Quote(name))
	}
	return t
}

// Offered reports whether a tool set built with s may offer the tool the
// spec calls tool (ToolRead, ...); the tool set still leaves it out when
// its options do (Readonly, no exec backends, no publisher). It panics on
// a name the spec does not have.
func (s *Surface) Offered(tool string) bool { return s.tool(tool).offered }

// Names are the tools (by the spec's names) that the tool's description,
// as a set built with s presents it, names: exec's names read, write,
// edit and grep ("Prefer the dedicated read, write, and edit tools ...");
// the others name none. A set that offers the tool must offer these too,
// or the model is pointed at a tool the set does not have. It panics on a
// tool the spec does not have.
func (s *Surface) Names(tool string) []string {
	t := s.tool(tool)
	if t.spec.rule {
		return slices.Clone(t.spec.names)
	}
	var names []string
	for _, seg := range t.description {
		if i := slices.IndexFunc(t.spec.args, func(a specArg) bool { return a.name == seg.Arg }); i >= 0 && t.spec.args[i].typ == "tool" && !slices.Contains(names, seg.Arg) {
			names = append(names, seg.Arg)
		}
	}
	return names
}

// Limit is the default of the tool's limit (the spec's limit name:
// ToolRead, "maxLines"), the spec's or the overlay's, in the limit's unit
// (ReadMaxLinesDefault says which). It panics on a tool or limit the spec
// does not have.
func (s *Surface) Limit(tool, limit string) int64 {
	v, ok := s.tool(tool).limits[limit]
	if !ok {
		panic("toolspec: " + tool + " has no limit " + strconv.Quote(limit))
	}
	return v
}

// Describe is the tool's description and input schema (JSON text) as a
// tool set built with s presents them. limits gives the set's value of
// each limit the description names (read: maxLines and maxBytes, in
// lines and bytes; exec: maxLines and maxBytes of each stream); one left
// out takes s's default. prefix names other tools as the set does.
// backends are exec's (at least one); the other tools ignore them.
//
// Without an overlay the texts are the generated ones byte for byte
// (ReadDescription(...), ReadInputSchema, ExecDescription(...),
// ExecInputSchema(...), ...). An overlay's parameter descriptions replace
// the spec's in the schema, whose keys stay in order and whose strings
// stay escaped as JSON.stringify does. It panics on a tool the spec does
// not have.
func (s *Surface) Describe(tool string, prefix ToolPrefix, limits map[string]int64, backends []ExecBackend) (description, inputSchema string) {
	t := s.tool(tool)
	value := func(name string) int64 {
		if v, ok := limits[name]; ok {
			return v
		}
		return s.Limit(tool, name)
	}
	schema := t.spec.schema
	if t.spec.rule {
		description = ExecDescription(prefix, backends, value(execMaxLines), value(execMaxBytes))
		schema = ExecInputSchema(backends)
	} else {
		description = t.render(prefix, value)
	}
	if len(t.params) > 0 {
		added := map[string]bool{}
		for _, p := range t.spec.params {
			if _, ok := t.params[p.name]; ok && p.description == "" {
				added[p.name] = true
			}
		}
		schema = replaceDescriptions(schema, t.params, added)
	}
	return description, schema
}

// The limits exec's rule renders.
const (
	execMaxLines = "maxLines"
	execMaxBytes = "maxBytes"
)

// render writes t's description, as the generated functions do
// (ReadDescription).
func (t *surfaceTool) render(prefix ToolPrefix, value func(limit string) int64) string {
	var b strings.Builder
	for _, seg := range t.description {
		if seg.Arg == "" {
			b.WriteString(seg.Literal)
			continue
		}
		i := slices.IndexFunc(t.spec.args, func(a specArg) bool { return a.name == seg.Arg })
		if t.spec.args[i].typ == "tool" {
			b.WriteString(prefix.Name(seg.Arg))
			continue
		}
		v := value(seg.Arg)
		switch seg.Format {
		case "kb":
			b.WriteString(formatKB(v))
		case "size":
			b.WriteString(FormatSize(v))
		case "mode":
			b.WriteString(formatMode(v))
		default:
			b.WriteString(strconv.FormatInt(v, 10))
		}
	}
	return b.String()
}

// replaceDescriptions rewrites an input schema with the given parameter
// descriptions (names as in ToolOverlay.Params). A parameter named in
// added has none in the schema: its description is written as the first
// key of its object, where zod writes a description given last
// (.describe()). The rest is written back as it was: keys in order,
// numbers as written, strings escaped as JSON.stringify does, which is how
// the spec's schemas are written.
func replaceDescriptions(schema string, descs map[string]string, added map[string]bool) string {
	dec := json.NewDecoder(strings.NewReader(schema))
	dec.UseNumber()
	w := schemaWriter{dec: dec, descs: descs, added: added}
	if err := w.value(nil); err != nil {
		panic("toolspec: an input schema is not JSON: " + err.Error())
	}
	return string(w.out)
}

type schemaWriter struct {
	dec   *json.Decoder
	descs map[string]string
	added map[string]bool
	out   []byte
}

// value copies one JSON value at path (the keys leading to it).
func (w *schemaWriter) value(path []string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		open, end := byte(v), byte('}')
		if v == '[' {
			end = ']'
		}
		w.out = append(w.out, open)
		i := 0
		if name := paramOf(append(slices.Clip(path), "description")); open == '{' && w.added[name] {
			w.out = append(AppendJSONString(w.out, "description"), ':')
			w.out = AppendJSONString(w.out, w.descs[name])
			i++
		}
		for ; w.dec.More(); i++ {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			sub := path
			if open == '{' {
				key, err := w.dec.Token()
				if err != nil {
					return err
				}
				w.out = append(AppendJSONString(w.out, key.(string)), ':')
				sub = append(slices.Clip(path), key.(string))
			}
			if err := w.value(sub); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil {
			return err
		}
		w.out = append(w.out, end)
	case string:
		if d, ok := w.descs[paramOf(path)]; ok {
			v = d
		}
		w.out = AppendJSONString(w.out, v)
	case json.Number:
		w.out = append(w.out, v...)
	case bool:
		w.out = strconv.AppendBool(w.out, v)
	case nil:
		w.out = append(w.out, "null"...)
	}
	return nil
}

// paramOf is the parameter whose description is at path
// (properties.path.description, properties.edits.items.properties.oldText.description
// for "edits.oldText"), or "".
func paramOf(path []string) string {
	var name []string
	for len(path) >= 3 && path[0] == "properties" {
		name = append(name, path[1])
		switch {
		case len(path) == 3 && path[2] == "description":
			return strings.Join(name, ".")
		case len(path) > 3 && path[2] == "items":
			path = path[3:]
		default:
			return ""
		}
	}
	return ""
}
