// Package core runs the tools: it checks a call's arguments against the
// spec, runs the tool over a vfs.Workspace with the reference's
// semantics, and renders the result as the model must see it (a
// toolspec.Output). Every adapter is a thin translation of core's output for
// one framework.
//
// core implements toolspec.Handler. It imports toolspec, errno and vfs, never an
// adapter or a framework.
package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Tool is one tool a tool set offers, as the model is told about it.
type Tool struct {
	// Name is what the model calls the tool: the spec's name after the
	// tool set's prefix (Options.Prefix).
	Name string
	// Spec is the spec's name of the tool (toolspec.ToolRead, ...), the
	// same whatever the prefix.
	Spec        string
	Description string
	// InputSchema is the JSON Schema of the arguments, as JSON text.
	InputSchema string
	// OutputSchema is the JSON Schema of the results (a draft-07 anyOf of
	// the success and the failure object, as the reference declares it),
	// as JSON text; empty for a tool the reference gives none (read, ls,
	// find, grep, exec).
	OutputSchema string

	decoder argDecoder
	approve bool // Options.Approve covers it
}

// Executor is a tool set over one workspace. It is safe for concurrent
// use; calls that change the same path are serialized by the workspace's
// path locks.
type Executor struct {
	ws   *vfs.Workspace
	s    settings
	exec *execTool
	// publisher is Options.Publisher when the set offers publish, else nil.
	publisher publish.Publisher
	tools     []*Tool
	byName    map[string]*Tool
	globs     globCache // find's and grep's automata, kept between calls

	approver Approver
}

var _ toolspec.Handler = (*Executor)(nil)

// New builds the tool set for ws: read, ls, find and grep, plus write,
// edit and delete unless opts.Readonly, exec when opts gives it backends
// and publish when it gives a Publisher (and Assets is not false), as the
// reference does, less the tools opts.Surface withholds. Descriptions,
// input schemas and default limits are opts.Surface's. It fails when an
// option is out of range or names a backend or, in Approve, a tool that is
// not there, and when the surface withholds a tool that another offered
// tool's description names (exec's names read, write, edit and grep).
func New(ws *vfs.Workspace, opts Options) (*Executor, error) {
	if ws == nil {
		return nil, errors.New("core: no workspace")
	}
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	e := &Executor{ws: ws, s: s, byName: map[string]*Tool{}, approver: opts.Approver}
	if e.exec, err = opts.execSettings(); err != nil {
		return nil, err
	}
	approve, err := opts.Approve.tools()
	if err != nil {
		return nil, err
	}
	if opts.Assets == nil || *opts.Assets {
		e.publisher = opts.Publisher
	}
	for _, info := range toolspec.Tools {
		if !info.Available || !s.surface.Offered(info.Name) || info.Mutates && s.readonly ||
			info.Name == toolspec.ToolExec && e.exec == nil ||
			info.Name == toolspec.ToolPublish && e.publisher == nil {
			continue
		}
		name := s.prefix.Name(info.Name)
		t := &Tool{Name: name, Spec: info.Name, OutputSchema: info.OutputSchema, decoder: argDecoder{tool: name, params: info.Params, rules: info.Rules}, approve: approve[info.Name]}
		// The limits a description names, by the spec's limit names, with
		// the set's values (an option, else the surface's default).
		var limits map[string]int64
		var backends []toolspec.ExecBackend
		switch info.Name {
		case toolspec.ToolRead:
			limits = map[string]int64{"maxLines": s.maxLines, "maxBytes": s.maxBytes}
		case toolspec.ToolExec:
			limits = map[string]int64{"maxLines": e.exec.limits.MaxLines, "maxBytes": e.exec.limits.MaxBytes}
			backends = e.exec.genBackends()
			t.decoder.params, t.decoder.enums = e.exec.params()
		}
		t.Description, t.InputSchema = s.surface.Describe(info.Name, s.prefix, limits, backends)
		e.tools = append(e.tools, t)
		e.byName[t.Name] = t
	}
	// Only a surface that withholds a tool can leave out one that another
	// offered tool's description names; the model would call it.
	for _, t := range e.tools {
		for _, n := range s.surface.Names(t.Spec) {
			if _, ok := e.byName[s.prefix.Name(n)]; !ok {
				return nil, fmt.Errorf("core: %s's description names the %s tool, which Options.Surface withholds; the description cannot be replaced yet: withhold %s too (toolspec.ToolOverlay.Offered), or offer %s", t.Spec, n, t.Spec, n)
			}
		}
	}
	return e, nil
}

// Surface is what the model sees of the set's tools that an overlay can
// change: Options.Surface, or toolspec.Ours() when that was nil.
func (e *Executor) Surface() *toolspec.Surface { return e.s.surface }

// Workspace is the workspace the tools run on.
func (e *Executor) Workspace() *vfs.Workspace { return e.ws }

// Tools lists the tools the set offers, in the reference's order.
func (e *Executor) Tools() []Tool {
	out := make([]Tool, len(e.tools))
	for i, t := range e.tools {
		out[i] = *t
	}
	return out
}

// Tool returns the offered tool the model calls name (with the set's
// prefix).
func (e *Executor) Tool(name string) (Tool, bool) {
	t, ok := e.byName[name]
	if !ok {
		return Tool{}, false
	}
	return *t, true
}

// Call runs one tool call with the arguments the model sent (JSON text).
// name is the tool's name as the model calls it, with the set's prefix.
// Arguments that fail the schema give error text naming the argument and
// why; the tool does not run. A tool failure is an output too. The error
// is for what is not the model's doing: an unknown tool
// (*toolspec.UnknownToolError), a cancelled context, or an Approver's
// error.
//
// A tool that needs approval (Options.Approve) checks the arguments first
// (invalid ones are refused as above; nobody is asked), then runs only if
// approved: by the decision on ctx (WithApproval), else by
// Options.Approver, else not at all (it fails closed). A refused call
// changes nothing and gives toolspec.MsgApprovalRefused in the tool's
// failure form (read's error text, exec's ExecErrorResult, publish's
// {"ok": false, "error": ...}, {"error": ...} for the others).
func (e *Executor) Call(ctx context.Context, name string, args []byte) (toolspec.Output, error) {
	t, ok := e.byName[name]
	if !ok {
		return toolspec.Output{}, &toolspec.UnknownToolError{Tool: name}
	}
	out, err := e.invoke(ctx, t, func(dst any) error { return t.decoder.decode(args, dst) })
	var argErr *ArgumentsError
	if errors.As(err, &argErr) {
		return errorText(argErr.Error()), nil
	}
	return out, err
}

// recordJSON records a json output as the call's result object: for every
// tool but read, the object the model sees is the one the tool returned.
func recordJSON(ctx context.Context, out toolspec.Output) {
	if rec := recordOf(ctx); rec != nil && rec.Output == nil && rec.Thrown == nil && out.Kind == toolspec.OutputJSON {
		rec.Output = out.JSON
	}
}

// CallUnchecked runs a tool without checking the arguments against the
// schema (the oracle's raw calls): the tool applies only its own checks,
// as the reference's do when called directly. Fields of the wrong type
// are left at their zero value. Approval applies as in Call.
func (e *Executor) CallUnchecked(ctx context.Context, name string, args []byte) (toolspec.Output, error) {
	t, ok := e.byName[name]
	if !ok {
		return toolspec.Output{}, &toolspec.UnknownToolError{Tool: name}
	}
	return e.invoke(ctx, t, func(dst any) error {
		var fields map[string]json.RawMessage
		if json.Unmarshal(args, &fields) != nil {
			return nil
		}
		if t.Spec == toolspec.ToolEdit {
			legacyEditArguments(fields)
		}
		for k, v := range fields {
			one, _ := json.Marshal(map[string]json.RawMessage{k: v})
			// encoding/json allocates a pointer field before it finds the
			// value's type wrong; try a scratch copy first so that such a
			// field stays nil.
			if json.Unmarshal(one, reflect.New(reflect.TypeOf(dst).Elem()).Interface()) == nil {
				_ = json.Unmarshal(one, dst)
			}
		}
		return nil
	})
}

// legacyEditArguments accepts, for an unchecked call, the shapes the
// reference's edit coerces before it runs: edits packed into a JSON
// string, and a single oldText/newText pair beside them.
func legacyEditArguments(fields map[string]json.RawMessage) {
	var packed string
	if json.Unmarshal(fields["edits"], &packed) == nil {
		var list []json.RawMessage
		if json.Unmarshal([]byte(packed), &list) == nil {
			fields["edits"], _ = json.Marshal(list)
		}
	}
	var oldText, newText string
	if json.Unmarshal(fields["oldText"], &oldText) != nil || json.Unmarshal(fields["newText"], &newText) != nil {
		return
	}
	var edits []json.RawMessage
	_ = json.Unmarshal(fields["edits"], &edits)
	one, _ := json.Marshal(toolspec.Replacement{OldText: oldText, NewText: newText})
	fields["edits"], _ = json.Marshal(append(edits, one))
	delete(fields, "oldText")
	delete(fields, "newText")
}

// path applies the root option to a path the model gave, as the
// reference's confineWorkspace does: a relative path resolves under the
// root; a path outside the root, or one passing through a symbolic link
// below the root, is refused. Without the option the path is unchanged.
func (e *Executor) path(ctx context.Context, input string) (string, error) {
	base := e.s.root
	if base == "" {
		return input, nil
	}
	abs := input
	if len(input) == 0 || input[0] != '/' {
		abs = base + "/" + input
	}
	abs = vfs.Clean(abs)
	if !vfs.IsWithin(abs, base) {
		return "", rootError(toolspec.MsgOutsideRoot(base, input))
	}
	current := base
	if base == "/" {
		current = ""
	}
	rest := abs[len(current):]
	for _, part := range splitPath(rest) {
		current += "/" + part
		info, err := e.ws.Lstat(ctx, current)
		if errno.CodeOf(err) == errno.ENOENT {
			return abs, nil
		}
		if err != nil {
			return "", err
		}
		if info.Type == vfs.TypeSymlink {
			return "", rootError(toolspec.MsgSymlinkInPath(current))
		}
	}
	return abs, nil
}

// Path is the workspace path a tool's path argument names, under the
// Root option as every tool applies it (see path): relative paths resolve
// under the root, and a path outside it, or through a symbolic link below
// it, fails with the option's message. Without Root, input is returned as
// it is. For adapters that take paths in a framework's own tools
// (adapters/eino/backend).
func (e *Executor) Path(ctx context.Context, input string) (string, error) {
	return e.path(ctx, input)
}

// rootError is a path the root option refuses. Like the reference's, it
// is a plain error, not a filesystem one.
type rootError string

func (e rootError) Error() string { return string(e) }

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if i > start {
				out = append(out, p[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// cancelled reports a context error, which is returned as a Go error
// rather than shown to the model.
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func isMissing(err error) bool { return errno.CodeOf(err) == errno.ENOENT }
