package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agenttools/agenttools/core/exec"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/gen"
)

// outputKeep is how many saved output files are kept, as in the
// reference; the oldest go first.
const outputKeep = 50

// ExecBackendOption picks one backend for the exec tool, with guidance
// for the model shown before the backend's own description.
type ExecBackendOption struct {
	ID          string
	Description string
}

// ExecBackends is an ordered choice of backends; as JSON it is the
// reference's object {"id": {"description": "..."}}, in its order.
type ExecBackends []ExecBackendOption

// UnmarshalJSON reads {"id": {"description": "..."}, ...} keeping the
// order of the keys.
func (b *ExecBackends) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("core: exec backends must be a JSON object")
	}
	out := ExecBackends{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var opts struct {
			Description string `json:"description"`
		}
		if err := dec.Decode(&opts); err != nil {
			return err
		}
		out = append(out, ExecBackendOption{ID: t.(string), Description: opts.Description})
	}
	*b = out
	return nil
}

// MarshalJSON writes the reference's object form.
func (b ExecBackends) MarshalJSON() ([]byte, error) {
	var s strings.Builder
	s.WriteByte('{')
	for i, o := range b {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteString(gen.QuoteJSON(o.ID) + `:{"description":` + gen.QuoteJSON(o.Description) + "}")
	}
	s.WriteByte('}')
	return []byte(s.String()), nil
}

// ExecOutputOptions set the exec tool's output window.
type ExecOutputOptions struct {
	// MaxBytes of each stream the model sees, from the end (64 KiB).
	MaxBytes int64 `json:"maxBytes,omitempty"`
	// MaxLines of each stream the model sees, from the end (2000).
	MaxLines int64 `json:"maxLines,omitempty"`
}

// ShellOptions are the reference's deprecated form of the exec options:
// Backends as Exec, and the output window. DefaultBackend is ignored, as
// in the reference: the model names a backend whenever there is a choice.
type ShellOptions struct {
	Backends       ExecBackends `json:"backends"`
	DefaultBackend string       `json:"defaultBackend,omitempty"`
	MaxBytes       int64        `json:"maxBytes,omitempty"`
	MaxLines       int64        `json:"maxLines,omitempty"`
}

// execBackend is a backend the exec tool offers, with its text.
type execBackend struct {
	gen.ExecBackend
	impl exec.Backend
}

// execTool is the exec tool's configuration.
type execTool struct {
	backends []execBackend
	limits   exec.Limits
	timeout  time.Duration
	now      func() time.Time

	mu   sync.Mutex
	runs int // the next run's number; 0 until read from the output directory
}

// execSettings resolves the exec options as the reference does: Exec
// wins over the deprecated Shell; without either every backend is
// offered; no backend (or Readonly) means no exec tool. An id that is not
// a backend is an error.
func (o Options) execSettings() (*execTool, error) {
	if o.Readonly || len(o.Backends) == 0 {
		return nil, nil
	}
	known := map[string]exec.Backend{}
	for _, b := range o.Backends {
		known[b.Info().ID] = b
	}
	var picked ExecBackends
	limits := exec.Limits{MaxBytes: gen.ExecMaxBytesDefault, MaxLines: gen.ExecMaxLinesDefault}
	switch {
	case o.Exec != nil:
		picked = o.Exec
	case o.Shell != nil:
		picked = o.Shell.Backends
		limits.MaxBytes = or(o.Shell.MaxBytes, limits.MaxBytes)
		limits.MaxLines = or(o.Shell.MaxLines, limits.MaxLines)
	default:
		for _, b := range o.Backends {
			picked = append(picked, ExecBackendOption{ID: b.Info().ID})
		}
	}
	limits.MaxBytes = or(o.ExecOutput.MaxBytes, limits.MaxBytes)
	limits.MaxLines = or(o.ExecOutput.MaxLines, limits.MaxLines)
	if limits.MaxBytes < 1 || limits.MaxLines < 1 {
		return nil, errors.New("core: exec output limits must be positive integers")
	}
	if len(picked) == 0 {
		return nil, nil
	}
	t := &execTool{limits: limits, timeout: time.Duration(o.ExecTimeout) * time.Millisecond, now: o.Clock}
	if t.now == nil {
		t.now = time.Now
	}
	var unknown []string
	for _, p := range picked {
		impl, ok := known[p.ID]
		if !ok {
			unknown = append(unknown, strconv.Quote(p.ID))
			continue
		}
		info := impl.Info()
		var text []string
		for _, part := range []string{p.Description, info.Description} {
			if part != "" {
				text = append(text, part)
			}
		}
		t.backends = append(t.backends, execBackend{
			ExecBackend: gen.ExecBackend{ID: p.ID, Text: strings.Join(text, "\n\n"), Callable: info.Callable},
			impl:        impl,
		})
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("core: exec names backends the workspace does not have: %s", strings.Join(unknown, ", "))
	}
	return t, nil
}

func (t *execTool) genBackends() []gen.ExecBackend {
	out := make([]gen.ExecBackend, len(t.backends))
	for i, b := range t.backends {
		out[i] = b.ExecBackend
	}
	return out
}

// params are the exec parameters offered for the backends, and the
// allowed backend ids.
func (t *execTool) params() ([]gen.Param, map[string][]string) {
	anyCallable := slices.ContainsFunc(t.backends, func(b execBackend) bool { return b.Callable })
	var params []gen.Param
	for _, p := range gen.ExecParams {
		switch {
		case p.When == gen.WhenMultipleBackends && len(t.backends) < 2:
		case p.When == gen.WhenCallableBackend && !anyCallable:
		default:
			params = append(params, p)
		}
	}
	ids := make([]string, len(t.backends))
	for i, b := range t.backends {
		ids[i] = b.ID
	}
	return params, map[string][]string{"backend": ids}
}

// snapshotKey carries the function that receives running snapshots.
type snapshotKey struct{}

// WithSnapshots returns a context in which an exec call hands each
// running snapshot (a json output with a null exitCode, coalesced to one
// per gen.ExecSnapshotIntervalDefault milliseconds) to f before it
// returns the final output. Adapters that can stream use it.
func WithSnapshots(ctx context.Context, f func(gen.Output)) context.Context {
	return context.WithValue(ctx, snapshotKey{}, f)
}

// Exec runs the exec tool, as the reference 0.8.0 does: the command runs
// on the backend named (the only one, when there is one), its stdout and
// stderr stream in, and the result holds the end of each, cut to the last
// maxLines lines or maxBytes bytes, with a note saying which lines are
// shown and where the full output was saved in the workspace
// (/.computer/output/<backend>.<run>.stdout.log). A command that cannot
// start, or whose stream breaks, gives {"error": ...}. Cancelling ctx
// kills the run and returns ctx's error.
func (e *Executor) Exec(ctx context.Context, a gen.ExecArgs) (gen.Output, error) {
	t := e.exec
	b := t.backends[0]
	if len(t.backends) > 1 {
		i := slices.IndexFunc(t.backends, func(b execBackend) bool { return b.ID == a.Backend })
		if i < 0 {
			return jsonOutput(gen.ExecErrorResult{Command: a.Command, Cwd: a.Cwd, Backend: "", Error: gen.MsgExecNameBackend}), nil
		}
		b = t.backends[i]
	}
	fail := func(msg string) (gen.Output, error) {
		return jsonOutput(gen.ExecErrorResult{Command: a.Command, Cwd: a.Cwd, Backend: b.ID, Error: msg}), nil
	}
	if len(a.Input) > 0 && !b.Callable {
		return fail(gen.MsgExecNotCallable(b.ID))
	}
	cwd := ""
	if a.Cwd != nil {
		cwd = *a.Cwd
	}
	id, err := e.runID(ctx)
	if err != nil {
		return failure(err)
	}
	run, err := b.impl.Start(ctx, exec.Request{ID: id, Command: a.Command, Cwd: cwd, Env: a.Env, Input: a.Input, Timeout: t.timeout})
	if err != nil {
		if cancelled(err) {
			return gen.Output{}, err
		}
		return fail(err.Error())
	}
	name := spillName(b.ID, id)
	out := newStream(e, t.limits, name+".stdout.log")
	errs := newStream(e, t.limits, name+".stderr.log")
	snapshot, _ := ctx.Value(snapshotKey{}).(func(gen.Output))
	last := int64(0)
	running := func() {
		at := t.now().UnixMilli()
		if at-last < gen.ExecSnapshotIntervalDefault {
			return
		}
		last = at
		if snapshot != nil {
			snapshot(jsonOutput(gen.ExecResult{Command: a.Command, Cwd: a.Cwd, Backend: b.ID, Stdout: out.text.render(nil), Stderr: errs.text.render(nil)}))
		}
	}
	var exit exec.Event
	exited := false
	for !exited {
		ev, err := run.Next(ctx)
		if err != nil {
			out.finish()
			errs.finish()
			if cancelled(err) || ctx.Err() != nil {
				_ = run.Kill()
				return gen.Output{}, ctx.Err()
			}
			return fail(err.Error())
		}
		switch ev.Kind {
		case exec.Stdout:
			out.push(ev.Data)
			running()
		case exec.Stderr:
			errs.push(ev.Data)
			running()
		case exec.Exit:
			// What the decoders still hold comes out before the exit.
			for _, s := range []*stream{out, errs} {
				if rest := s.decoder.flush(); rest != "" {
					s.text.push(rest)
					running()
				}
			}
			exit, exited = ev, true
		}
	}
	res := gen.ExecResult{
		Command:  a.Command,
		Cwd:      a.Cwd,
		Backend:  b.ID,
		ExitCode: new(int64(exit.Code)),
		Stdout:   out.text.render(out.finish()),
		Stderr:   errs.text.render(errs.finish()),
		Result:   exit.Result,
	}
	if exit.TimedOut {
		res.Stderr += gen.MsgExecTimedOut(t.timeout.Milliseconds())
	}
	return jsonOutput(res), nil
}

// runID allocates the next run id, exec-1, exec-2, ..., after any left
// in the output directory by earlier tool sets.
func (e *Executor) runID(ctx context.Context) (string, error) {
	t := e.exec
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs == 0 {
		t.runs = 1
		entries, err := e.ws.ReadDir(ctx, gen.OutputDir, 0, -1)
		if err != nil && !isMissing(err) {
			return "", err
		}
		for _, en := range entries {
			_, rest, _ := strings.Cut(en.Name, ".exec-")
			num, _, _ := strings.Cut(rest, ".")
			if k, err := strconv.Atoi(num); err == nil && k >= t.runs {
				t.runs = k + 1
			}
		}
	}
	n := t.runs
	t.runs++
	return "exec-" + strconv.Itoa(n), nil
}

// spillName names a run's output files: <backend>.<run id>, each part
// URI-encoded with its dots escaped, as the reference names them.
func spillName(backend, id string) string {
	return fileNamePart(backend) + "." + fileNamePart(id)
}

// fileNamePart is JavaScript's encodeURIComponent with "." escaped too:
// every byte but letters, digits and -_!~*'() as %XX.
func fileNamePart(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// stream is one of a run's two outputs: the runtime's spool over the raw
// bytes (which saves the full output once it passes the limits), the
// decoder, and the tool's window over the decoded text.
type stream struct {
	e       *Executor
	limits  exec.Limits
	name    string
	raw     *exec.Window
	pending [][]byte
	file    *spillFile
	decoder streamDecoder
	text    *textWindow
	saved   *savedOutput
	done    bool
}

func newStream(e *Executor, l exec.Limits, name string) *stream {
	return &stream{e: e, limits: l, name: name, raw: exec.NewWindow(l), text: &textWindow{w: exec.NewWindow(l), limits: l}}
}

// push feeds a chunk of raw output: to the spool (and the spill file once
// over the limits) and, decoded, to the tool's window.
func (s *stream) push(chunk []byte) {
	s.raw.Push(chunk)
	if s.file != nil {
		s.file.write(chunk)
	} else {
		s.pending = append(s.pending, chunk)
		if s.raw.OverLimits() {
			s.file = s.e.openSpill(gen.MsgExecSpillPath(s.name))
			for _, p := range s.pending {
				s.file.write(p)
			}
			s.pending = nil
		}
	}
	s.text.push(s.decoder.decode(chunk))
}

// savedOutput is what the spool says about a stream it cut.
type savedOutput struct {
	path   string
	reason string // "" when saved
}

// finish ends the stream and says whether and where it was saved; nil
// when it fit the limits. Safe to call more than once.
func (s *stream) finish() *savedOutput {
	if s.done {
		return s.saved
	}
	s.done = true
	if s.file == nil {
		return nil
	}
	if _, whole := s.raw.Read(); whole {
		s.file.close()
		return nil
	}
	if err := s.file.close(); err != nil {
		s.saved = &savedOutput{path: s.file.path, reason: gen.MsgExecSaveFailed(s.file.path, err.Error())}
	} else {
		s.saved = &savedOutput{path: s.file.path}
		s.e.pruneOutput(s.file.path)
	}
	return s.saved
}

// textWindow is the tool's window over the decoded output.
type textWindow struct {
	w      *exec.Window
	limits exec.Limits
}

func (t *textWindow) push(text string) { t.w.Push([]byte(text)) }

// render is the output as the model sees it: all of it while it fits,
// else its end and, when the spool saved or failed to save the whole,
// the reference's note. A running snapshot passes nil.
func (t *textWindow) render(saved *savedOutput) string {
	tail, whole := t.w.Read()
	// Decoded afresh, as the reference does: a BOM that now starts the
	// window is dropped.
	text := DecodeText(tail.Bytes, true)
	if whole || saved == nil {
		return text
	}
	where := gen.MsgExecSavedAt(saved.path)
	if saved.reason != "" {
		where = gen.MsgExecNotSaved(saved.reason)
	}
	if tail.PartialLine {
		return text + gen.MsgExecShowingLastBytes(int64(len(tail.Bytes)), tail.LastLine, where)
	}
	limit := ""
	if tail.LastLine-tail.FirstLine+1 < t.limits.MaxLines {
		limit = gen.MsgExecByteLimit(t.limits.MaxBytes)
	}
	return text + gen.MsgExecShowingLines(tail.FirstLine, tail.LastLine, t.w.TotalLines(), limit, where)
}

// spillFile streams a stream's full output into a workspace file.
type spillFile struct {
	path string
	pw   *io.PipeWriter
	done chan error
}

func (e *Executor) openSpill(path string) *spillFile {
	pr, pw := io.Pipe()
	f := &spillFile{path: path, pw: pw, done: make(chan error, 1)}
	ctx := context.Background()
	go func() {
		err := e.ws.Mkdir(ctx, gen.OutputDir, vfs.MkdirOptions{Recursive: true})
		if err == nil {
			err = e.ws.WriteFrom(ctx, path, pr, vfs.WriteOptions{})
		}
		pr.CloseWithError(err) // a writer still writing learns it failed
		f.done <- err
	}()
	return f
}

func (f *spillFile) write(chunk []byte) {
	_, _ = f.pw.Write(chunk) // a failure is reported by close
}

func (f *spillFile) close() error {
	_ = f.pw.Close()
	return <-f.done
}

// pruneOutput removes the oldest output files past outputKeep, never the
// one just saved and never a file the exec tool did not name. Best
// effort, as in the reference.
func (e *Executor) pruneOutput(saved string) {
	ctx := context.Background()
	entries, err := e.ws.ReadDir(ctx, gen.OutputDir, 0, -1)
	if err != nil {
		return
	}
	var others []vfs.Info
	for _, en := range entries {
		p := gen.OutputDir + "/" + en.Name
		if en.Type == vfs.TypeFile && p != saved && (strings.HasSuffix(en.Name, ".stdout.log") || strings.HasSuffix(en.Name, ".stderr.log")) {
			others = append(others, en)
		}
	}
	slices.SortStableFunc(others, func(a, b vfs.Info) int { return int(b.MTime - a.MTime) })
	for _, stale := range others[min(len(others), outputKeep-1):] {
		_ = e.ws.Remove(ctx, gen.OutputDir+"/"+stale.Name, vfs.RemoveOptions{Force: true})
	}
}
