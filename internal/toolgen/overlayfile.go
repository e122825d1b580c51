package toolgen

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"

	"github.com/agenttools/agenttools/spec"
	"github.com/agenttools/agenttools/toolspec"
)

// A PosError is one mistake in a file read by the generator (the spec or
// an overlay), at a place in it. Its text is "Pos: Path: Msg", the form
// editors and go vet use ("agenttools.cue:3:22:
// tools.read.limits.maxLines: ..."), followed by one line "\t<pos>" for
// each of Also.
type PosError struct {
	Pos  string // "file:line:col", or the file alone when no line is known
	Path string // the field in CUE's path syntax ("tools.read.limits.maxLines", `tools.edit.params."edits.oldText"`); empty for the file as a whole
	Msg  string
	// Also are the other places in the file that take part in a CUE
	// error: the two sides of a conflict, say.
	Also []string
	// Err is what was refused: a *toolspec.OverlayError, or CUE's error
	// (cuelang.org/go/cue/errors.Error).
	Err error

	line, col int // for sorting
}

func (e *PosError) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos + ": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	for _, p := range e.Also {
		b.WriteString("\n\t" + p)
	}
	return b.String()
}

func (e *PosError) Unwrap() error { return e.Err }

// LoadOverlay reads an overlay file: CUE (any package name, or none) or,
// when filename ends in .json, JSON with the same fields; either may
// start with a UTF-8 byte order mark. filename names
// the file in errors; src is its text. The overlay is unified with the
// spec's #Overlay (spec/overlay.cue), so a field the schema lacks (a
// misspelt field, an unknown tool, a message) or a value of the wrong
// type is refused in CUE's own words (a field not allowed followed by the
// fields allowed there: "; tools: read, ls, ..."); then the overlay is validated by
// toolspec.Ours().With, the check every run-time override passes too,
// which refuses what the core cannot honour (a renamed parameter, a limit
// that is not settable or is out of range, a placeholder the description
// may not use).
//
// The error lists every mistake found, one *PosError each (errors.Join),
// in the order of the file, each naming filename, line and column: for
// CUE's errors the value CUE names, for With's the label of the field its
// Path names (the OverlayError is the PosError's Err). CUE's mistakes
// stop before With runs, since the overlay cannot be decoded; and CUE
// leaves out a field not allowed in a struct that holds a wrong value,
// so fixing one mistake can bring up the next.
func LoadOverlay(filename string, src []byte) (toolspec.Overlay, error) {
	o, _, err := loadOverlay(filename, src)
	return o, err
}

// ReadOverlay reads the overlay file filename as LoadOverlay does and
// returns it with the surface it makes, toolspec.Ours().With(o). An error
// reading the file is os.ReadFile's.
func ReadOverlay(filename string) (toolspec.Overlay, *toolspec.Surface, error) {
	src, err := os.ReadFile(filename)
	if err != nil {
		return toolspec.Overlay{}, nil, err
	}
	return loadOverlay(filename, src)
}

func loadOverlay(filename string, src []byte) (toolspec.Overlay, *toolspec.Surface, error) {
	ctx := cuecontext.New()
	specValue := ctx.CompileBytes(spec.Source, cue.Filename(spec.Filename))
	schemaFile := ctx.CompileBytes(spec.OverlaySource, cue.Filename(spec.OverlayFilename), cue.Scope(specValue))
	// #Overlay at the root, so CUE's paths are the overlay's own
	// ("tools.read", not "#Overlay.tools.read").
	schema := ctx.CompileString("#Overlay", cue.Scope(schemaFile))
	if err := schema.Err(); err != nil {
		return toolspec.Overlay{}, nil, fmt.Errorf("toolgen: the overlay schema: %w", cueError(err, spec.OverlayFilename))
	}
	var user cue.Value
	if strings.EqualFold(path.Ext(filename), ".json") {
		// A byte order mark, which editors on Windows write, is not JSON;
		// CUE skips one at the start of a .cue file, and so does this.
		expr, err := cuejson.Extract(filename, bytes.TrimPrefix(src, []byte("\uFEFF")))
		if err != nil {
			return toolspec.Overlay{}, nil, cueError(err, filename)
		}
		user = ctx.BuildExpr(expr)
	} else {
		user = ctx.CompileBytes(src, cue.Filename(filename))
	}
	if err := user.Err(); err != nil {
		return toolspec.Overlay{}, nil, cueError(err, filename)
	}
	v := schema.Unify(user)
	if err := v.Validate(cue.Concrete(true)); err != nil {
		list := cueErrors(err, filename)
		for _, e := range list {
			e.Msg += allowedHere(e, schemaFile)
		}
		return toolspec.Overlay{}, nil, joinSorted(list)
	}
	var o toolspec.Overlay
	if err := v.Decode(&o); err != nil {
		return toolspec.Overlay{}, nil, cueError(err, filename)
	}
	surface, err := toolspec.Ours().With(o)
	if err != nil {
		return toolspec.Overlay{}, nil, overlayErrors(err, user, filename)
	}
	return o, surface, nil
}

// allowedHere is what to add to CUE's "field not allowed" for a field of
// an overlay: the fields the schema allows there, which CUE does not
// name ("; a tool's fields: offered, description, params, limits").
// Other errors get nothing.
func allowedHere(e *PosError, schemaFile cue.Value) string {
	var ce cueerrors.Error
	if !errors.As(e.Err, &ce) || e.Msg != "field not allowed" {
		return ""
	}
	fields := func(def string) string {
		var names []string
		it, err := schemaFile.LookupPath(cue.ParsePath(def)).Fields(cue.Optional(true))
		for err == nil && it.Next() {
			names = append(names, it.Selector().Unquoted())
		}
		return strings.Join(names, ", ")
	}
	switch len(ce.Path()) {
	case 1:
		return "; an overlay's fields: " + fields("#Overlay")
	case 2:
		return "; tools: " + strings.Join(toolspec.ToolNames, ", ")
	case 3:
		return "; a tool's fields: " + fields("#ToolOverlay")
	}
	return ""
}

// overlayErrors places each *toolspec.OverlayError of err (With's
// errors.Join) at its field in the overlay.
func overlayErrors(err error, user cue.Value, filename string) error {
	var list []*PosError
	for _, e := range unjoin(err) {
		var oe *toolspec.OverlayError
		if !errors.As(e, &oe) {
			list = append(list, &PosError{Pos: filename, Msg: e.Error(), Err: e})
			continue
		}
		pe := &PosError{Pos: filename, Path: oe.Path, Msg: oe.Reason, Err: oe}
		pe.place(fieldPos(user, oe.Path))
		list = append(list, pe)
	}
	return joinSorted(list)
}

// fieldPos finds the label of the field an OverlayError's Path names (in
// CUE's syntax: `tools.edit.params."edits.oldText"`), or of the nearest
// enclosing field the file writes.
func fieldPos(user cue.Value, p string) token.Pos {
	sels := cue.ParsePath(p).Selectors()
	for n := len(sels); n > 0; n-- {
		if f := user.LookupPath(cue.MakePath(sels[:n]...)); f.Exists() && f.Pos().IsValid() {
			return f.Pos()
		}
	}
	return token.NoPos
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func (e *PosError) place(p token.Pos) {
	if p.IsValid() {
		e.Pos, e.line, e.col = p.String(), p.Line(), p.Column()
	}
}

func joinSorted(list []*PosError) error {
	slices.SortStableFunc(list, func(a, b *PosError) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col), strings.Compare(a.Path, b.Path))
	})
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errors.Join(errs...)
}
