package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// MaxExecTimeout is the longest exec timeout, in milliseconds: about
// 106 days, the longest a time.Duration holds.
const MaxExecTimeout = int64(math.MaxInt64 / int64(time.Millisecond))

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
		s.WriteString(toolspec.QuoteJSON(o.ID) + `:{"description":` + toolspec.QuoteJSON(o.Description) + "}")
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
	toolspec.ExecBackend
	impl execbackend.Backend
}

// execTool is the exec tool's configuration.
type execTool struct {
	backends []execBackend
	limits   execbackend.Limits
	timeout  time.Duration
	now      func() time.Time

	mu   sync.Mutex
	runs int // the next run's number; 0 until read from the output directory
}

// backend is the backend a call naming name runs on: the only one, or
// the one of that id; false when there are several and none has it.
func (t *execTool) backend(name string) (execBackend, bool) {
	if len(t.backends) == 1 {
		return t.backends[0], true
	}
	i := slices.IndexFunc(t.backends, func(b execBackend) bool { return b.ID == name })
	if i < 0 {
		return execBackend{}, false
	}
	return t.backends[i], true
}

// execSettings resolves the exec options as the reference does: Exec
// wins over the deprecated Shell; without either every backend is
// offered; no backend (or Readonly) means no exec tool. An id that is not
// a backend is an error.
func (o Options) execSettings() (*execTool, error) {
	if o.Readonly || len(o.Backends) == 0 {
		return nil, nil
	}
	known := map[string]execbackend.Backend{}
	for _, b := range o.Backends {
		known[b.Info().ID] = b
	}
	var picked ExecBackends
	surf := o.surface()
	limits := execbackend.Limits{MaxBytes: surf.Limit(toolspec.ToolExec, "maxBytes"), MaxLines: surf.Limit(toolspec.ToolExec, "maxLines")}
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
	if o.ExecTimeout < 0 || o.ExecTimeout > MaxExecTimeout {
		return nil, fmt.Errorf("core: ExecTimeout must be from 0 to %d milliseconds, got %d", MaxExecTimeout, o.ExecTimeout)
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
		t.backends = append(t.backends, execBackend{
			ExecBackend: toolspec.ExecBackend{ID: p.ID, Text: backendText(p.Description, info.Description), Callable: info.Callable},
			impl:        impl,
		})
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("core: exec names backends the workspace does not have: %s", strings.Join(unknown, ", "))
	}
	return t, nil
}

// backendText is what the exec description tells of a backend: what the
// options say of it and what it says of itself, either alone, or both
// (toolspec.MsgExecBackendTexts).
func backendText(options, backend string) string {
	switch {
	case options == "":
		return backend
	case backend == "":
		return options
	}
	return toolspec.MsgExecBackendTexts(options, backend)
}

func (t *execTool) genBackends() []toolspec.ExecBackend {
	out := make([]toolspec.ExecBackend, len(t.backends))
	for i, b := range t.backends {
		out[i] = b.ExecBackend
	}
	return out
}

// params are the exec parameters offered for the backends, and the
// allowed backend ids.
func (t *execTool) params() ([]toolspec.Param, map[string][]string) {
	anyCallable := slices.ContainsFunc(t.backends, func(b execBackend) bool { return b.Callable })
	var params []toolspec.Param
	for _, p := range toolspec.ExecParams {
		switch {
		case p.When == toolspec.WhenMultipleBackends && len(t.backends) < 2:
		case p.When == toolspec.WhenCallableBackend && !anyCallable:
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
// per toolspec.ExecSnapshotIntervalDefault milliseconds) to f before it
// returns the final output. Adapters that can stream use it; so can a
// caller of any adapter, on the context it runs the agent with. Layered
// calls add up: every function on the context receives every snapshot,
// the outermost first.
func WithSnapshots(ctx context.Context, f func(toolspec.Output)) context.Context {
	// A function already on ctx keeps receiving them, first.
	if outer, _ := ctx.Value(snapshotKey{}).(func(toolspec.Output)); outer != nil {
		inner := f
		f = func(o toolspec.Output) {
			outer(o)
			inner(o)
		}
	}
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
func (e *Executor) Exec(ctx context.Context, a toolspec.ExecArgs) (toolspec.Output, error) {
	b, ok := e.exec.backend(a.Backend)
	if !ok {
		return jsonOutput(toolspec.ExecErrorResult{Command: a.Command, Cwd: a.Cwd, Backend: "", Error: toolspec.MsgExecNameBackend}), nil
	}
	o, err := e.run(ctx, b, a)
	switch {
	case err != nil:
		return toolspec.Output{}, err
	case o.bare:
		return errorJSON(o.Error), nil
	case o.Error != "":
		return jsonOutput(toolspec.ExecErrorResult{Command: a.Command, Cwd: a.Cwd, Backend: b.ID, Error: o.Error}), nil
	}
	return jsonOutput(o.Result), nil
}

// ExecOutcome is one command's outcome as the exec tool reports it, in
// Go values, for an adapter whose framework words command results its
// own way (adapters/eino/backend).
type ExecOutcome struct {
	// Result is what the exec tool's result object holds: each stream's
	// end, cut and noted as Exec does, and the exit code. Unset when
	// Error is set.
	Result toolspec.ExecResult
	// Error is why the command could not run or its stream broke (the
	// exec tool's {"error": ...}); "" when it ran.
	Error string
	// Cut is set when stdout or stderr was cut to the output window; its
	// text then ends in the note that says where the full output is.
	Cut bool
	// bare: the exec tool words Error as a bare {"error": ...} (the
	// workspace failed before the command was started).
	bare bool
}

// RunExec runs a command as the exec tool does (the same backends, output
// window, saved output, timeout, and kill on cancel) on the backend
// a.Backend names, or on the first one offered when a.Backend is "".
// Errors: ctx's error when it ends (the run is killed); an error when the
// tool set has no exec tool or no backend of that name.
func (e *Executor) RunExec(ctx context.Context, a toolspec.ExecArgs) (ExecOutcome, error) {
	t := e.exec
	if t == nil {
		return ExecOutcome{}, errors.New("core: the tool set has no exec tool")
	}
	b := t.backends[0]
	if a.Backend != "" {
		i := slices.IndexFunc(t.backends, func(b execBackend) bool { return b.ID == a.Backend })
		if i < 0 {
			return ExecOutcome{}, fmt.Errorf("core: exec offers no backend %q", a.Backend)
		}
		b = t.backends[i]
	}
	return e.run(ctx, b, a)
}

// run runs the command on backend b.
func (e *Executor) run(ctx context.Context, b execBackend, a toolspec.ExecArgs) (ExecOutcome, error) {
	t := e.exec
	fail := func(msg string) (ExecOutcome, error) { return ExecOutcome{Error: msg}, nil }
	if len(a.Input) > 0 && !b.Callable {
		return fail(toolspec.MsgExecNotCallable(b.ID))
	}
	cwd := ""
	if a.Cwd != nil {
		cwd = *a.Cwd
	}
	id, err := e.runID(ctx, false)
	if err != nil {
		if cancelled(err) {
			return ExecOutcome{}, err
		}
		return ExecOutcome{Error: err.Error(), bare: true}, nil
	}
	run, err := b.impl.Start(ctx, execbackend.Request{ID: id, Command: a.Command, Cwd: cwd, Env: a.Env, Input: a.Input, Timeout: t.timeout})
	if err != nil {
		if cancelled(err) {
			return ExecOutcome{}, err
		}
		return fail(err.Error())
	}
	names := &spillNames{backend: b.ID, id: id}
	out := newStream(e, t.limits, names, toolspec.MsgExecStreamStdout)
	errs := newStream(e, t.limits, names, toolspec.MsgExecStreamStderr)
	snapshot, _ := ctx.Value(snapshotKey{}).(func(toolspec.Output))
	last := int64(0)
	running := func() {
		at := t.now().UnixMilli()
		if at-last < toolspec.ExecSnapshotIntervalDefault {
			return
		}
		last = at
		if snapshot != nil {
			snapshot(jsonOutput(toolspec.ExecResult{Command: a.Command, Cwd: a.Cwd, Backend: b.ID, Stdout: out.text.running(), Stderr: errs.text.running()}))
		}
	}
	var exit execbackend.Event
	exited := false
	for !exited {
		ev, err := run.Next(ctx)
		if err != nil {
			if cancelled(err) || ctx.Err() != nil {
				_ = run.Kill()
				// Nobody will be told of these files.
				out.discard()
				errs.discard()
				return ExecOutcome{}, ctx.Err()
			}
			out.finish()
			errs.finish()
			return fail(err.Error())
		}
		switch ev.Kind {
		case execbackend.Stdout:
			out.push(ev.Data)
			running()
		case execbackend.Stderr:
			errs.push(ev.Data)
			running()
		case execbackend.Exit:
			// What the decoders still hold comes out before the exit.
			for _, s := range []*stream{out, errs} {
				if rest := s.decoder.flush(); rest != "" {
					s.pushText([]byte(rest))
					running()
				}
			}
			exit, exited = ev, true
		}
	}
	outSaved, errSaved := out.finish(), errs.finish()
	res := toolspec.ExecResult{
		Command:  a.Command,
		Cwd:      a.Cwd,
		Backend:  b.ID,
		ExitCode: new(int64(exit.Code)),
		Stdout:   out.text.render(outSaved),
		Stderr:   errs.text.render(errSaved),
		Result:   exit.Result,
	}
	if exit.TimedOut {
		res.Stderr = addNote(res.Stderr, toolspec.MsgExecTimedOut(t.timeout.Milliseconds()))
	}
	return ExecOutcome{Result: res, Cut: out.text.w.OverLimits() || errs.text.w.OverLimits()}, nil
}

// addNote ends text with a note of ours: after text, as the note is
// spelled (set off by a blank line); alone, without the blank lines
// before it.
func addNote(text, note string) string {
	if text == "" {
		return strings.TrimLeft(note, "\n")
	}
	return text + note
}

// runID allocates the next run id (toolspec.MsgExecRunName: exec-1,
// exec-2, ...), after any left by earlier tool sets: in the names of the
// output files (toolspec.MsgExecSpillName) and among the mirror's
// conflict copies (toolspec.MsgExecMirrorConflictDir, of a run id or of
// toolspec.MsgExecMirrorConflictRetry of one). rescan reads the
// directories again, for ids another process took since.
func (e *Executor) runID(ctx context.Context, rescan bool) (string, error) {
	t := e.exec
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs == 0 || rescan {
		t.runs = max(t.runs, 1)
		follow := func(num string) {
			// A number too large to follow is someone else's file.
			if k, err := strconv.ParseInt(num, 10, 32); err == nil && int(k) >= t.runs {
				t.runs = int(k) + 1
			}
		}
		entries, err := e.ws.ReadDir(ctx, toolspec.OutputDir, 0, -1)
		if err != nil && !isMissing(err) {
			return "", err
		}
		for _, en := range entries {
			if run, _, ok := spillParts(en.Name); ok {
				follow(runNumber(run))
			}
		}
		conflicts := path.Dir(toolspec.MsgExecMirrorConflictDir(toolspec.MsgExecRunName(1)))
		if entries, err = e.ws.ReadDir(ctx, conflicts, 0, -1); err != nil && !isMissing(err) {
			return "", err
		}
		for _, en := range entries {
			follow(runNumber(en.Name))
		}
	}
	n := t.runs
	t.runs++
	return toolspec.MsgExecRunName(int64(n)), nil
}

// runPrefix starts every run id: toolspec.MsgExecRunName ends with the
// run's number.
var runPrefix = strings.TrimSuffix(toolspec.MsgExecRunName(0), "0")

// runNumber is the number of the run whose id starts name (a run id, or
// a conflict directory named after one), "" when name starts with none.
func runNumber(name string) string {
	rest, ok := strings.CutPrefix(name, runPrefix)
	if !ok {
		return ""
	}
	return rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))]
}

// spillParts splits the name of an output file (toolspec.MsgExecSpillName,
// whose parts hold no dot: fileNamePart escapes them) into its run id and
// its stream; ok is false for a name the exec tool does not give.
func spillParts(name string) (run, stream string, ok bool) {
	parts := strings.Split(name, ".")
	if len(parts) != 4 || toolspec.MsgExecSpillName(parts[0], parts[1], parts[2]) != name {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// spillNames names a run's output files (toolspec.MsgExecSpillName), as
// the reference names them. The run id moves on when
// a name is taken: another process sharing the output directory may
// have claimed it first.
type spillNames struct {
	backend, id string
}

// file is the path of one stream's output file under the current id.
func (n *spillNames) file(kind string) string {
	return toolspec.MsgExecSpillPath(toolspec.MsgExecSpillName(fileNamePart(n.backend), fileNamePart(n.id), kind))
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
// bytes, the decoder, the tool's window over the decoded text and, once
// either window passes the limits, the file the full output streams to.
type stream struct {
	e       *Executor
	limits  execbackend.Limits
	names   *spillNames
	kind    string            // toolspec.MsgExecStreamStdout or MsgExecStreamStderr
	raw     execbackend.Count // the raw bytes, measured against the limits
	pending [][]byte          // the output so far, until the file opens (bounded by the limits)
	file    *spillFile
	decoder streamDecoder
	text    *textWindow
	saved   *savedOutput
	done    bool
}

func newStream(e *Executor, l execbackend.Limits, names *spillNames, kind string) *stream {
	return &stream{e: e, limits: l, names: names, kind: kind, raw: execbackend.NewCount(l), text: &textWindow{w: execbackend.NewWindow(l), limits: l}}
}

// push feeds a chunk of raw output, which nobody changes afterwards
// (execbackend.Event.Data): decoded to the tool's window, to the count
// of raw bytes, to the file (or what waits for it). Neither copies it.
//
// The chunk's newlines are counted once, in its text: decoding never
// makes or drops one (a newline is never part of a sequence held back
// for the next chunk, of an invalid one that becomes U+FFFD, or of a
// BOM).
func (s *stream) push(chunk []byte) {
	newlines := s.text.push(s.decoder.decode(chunk))
	s.raw.AddCounted(chunk, newlines)
	if s.file != nil {
		s.file.write(chunk)
	} else if len(chunk) > 0 {
		s.pending = append(s.pending, chunk)
	}
	s.spillIfCut()
}

// pushText feeds decoded text, which nobody changes afterwards, to the
// tool's window, and saves the output once it is cut.
func (s *stream) pushText(text []byte) {
	s.text.push(text)
	s.spillIfCut()
}

// spillIfCut sends the full output to a file once either window
// is past the limits. The reference
// saves it only when the raw bytes pass them; output that passes them
// only once decoded (an invalid byte becomes a 3-byte U+FFFD) is saved
// too, so a cut stream always names its full output
// (deviation execSavesDecodedCut).
func (s *stream) spillIfCut() {
	if s.file == nil && (s.raw.OverLimits() || s.text.w.OverLimits()) {
		s.file = s.e.openSpill(s.names, s.kind)
		for _, c := range s.pending {
			s.file.write(c)
		}
		s.pending = nil
	}
}

// savedOutput is what a cut stream's note says about its full output:
// where it was saved, why it was not, or neither (the reference's
// "unsaved").
type savedOutput struct {
	path   string
	reason string
}

// finish ends the stream and says what its note tells about the full
// output; nil when the stream is shown whole. Safe to call more than
// once.
func (s *stream) finish() *savedOutput {
	if s.done {
		return s.saved
	}
	s.done = true
	cut := s.text.w.OverLimits()
	if s.file == nil {
		if cut {
			s.saved = &savedOutput{}
		}
		return s.saved
	}
	err := s.file.close()
	if err == nil {
		s.e.pruneOutput(s.file.path)
	}
	switch {
	case !cut:
		// Saved, as the reference saves it, though the text fits.
	case err != nil:
		s.saved = &savedOutput{path: s.file.path, reason: toolspec.MsgExecSaveFailed(s.file.path, err.Error())}
	default:
		s.saved = &savedOutput{path: s.file.path}
	}
	return s.saved
}

// discard ends a stream whose run was abandoned: its file, if any, is
// removed.
func (s *stream) discard() {
	if s.done || s.file == nil {
		return
	}
	s.done = true
	if s.file.close() == nil || s.file.claimed {
		_ = s.e.ws.Remove(context.Background(), s.file.path, vfs.RemoveOptions{Force: true})
	}
}

// textWindow is the tool's window over the decoded output.
type textWindow struct {
	w      *execbackend.Window
	limits execbackend.Limits
}

// push keeps text, a chunk's decoded text (the chunk itself, or new
// bytes), as it is, and returns how many newlines it holds.
func (t *textWindow) push(text []byte) int64 { return t.w.PushOwned(text) }

// running renders a running snapshot: the output so far, or its end
// without a note while it is past the limits.
func (t *textWindow) running() string {
	tail, _ := t.w.Read()
	return DecodeText(tail.Bytes, true)
}

// render is the final output as the model sees it: all of it while it
// fits, else its end and the reference's note, which names where the
// full output is (or why it is not) as saved says.
func (t *textWindow) render(saved *savedOutput) string {
	tail, whole := t.w.Read()
	// Decoded afresh, as the reference does: a BOM that now starts the
	// window is dropped.
	text := DecodeText(tail.Bytes, true)
	if whole || saved == nil {
		return text
	}
	where := ""
	switch {
	case saved.reason != "":
		where = toolspec.MsgExecNotSaved(saved.reason)
	case saved.path != "":
		where = toolspec.MsgExecSavedAt(saved.path)
	}
	if tail.PartialLine {
		return text + toolspec.MsgExecShowingLastBytes(int64(len(tail.Bytes)), tail.LastLine, where)
	}
	limit := ""
	if tail.LastLine-tail.FirstLine+1 < t.limits.MaxLines {
		limit = toolspec.MsgExecByteLimit(t.limits.MaxBytes)
	}
	return text + toolspec.MsgExecShowingLines(tail.FirstLine, tail.LastLine, t.w.TotalLines(), limit, where)
}

// spillFile streams a stream's full output into a workspace file.
type spillFile struct {
	path    string
	claimed bool // the name was claimed: the file exists
	pipe    *spillPipe
	done    chan error
}

// spillQueue is how many chunks wait for the store writing a saved
// output before the run's reading waits for it: a slow store slows the
// command down rather than fill memory.
const spillQueue = 16

// spillPipe hands a stream's chunks to the store writing its file as
// they are: they are the backend's (execbackend.Event.Data), which
// nobody changes, so a store that keeps contents in memory keeps them
// (vfs.ChunkReader), a host file is written from them (io.WriterTo), and
// any other store reads them with Read.
type spillPipe struct {
	chunks chan []byte
	gone   chan struct{} // closed once the store reads no more
	rest   []byte        // what Read has not returned of its chunk
}

func newSpillPipe() *spillPipe {
	return &spillPipe{chunks: make(chan []byte, spillQueue), gone: make(chan struct{})}
}

// send queues a chunk, which nobody changes afterwards; it is dropped
// when the store reads no more.
func (p *spillPipe) send(chunk []byte) {
	select {
	case p.chunks <- chunk:
	case <-p.gone:
	}
}

// NextChunk is the next chunk sent, or io.EOF once the sender closed
// p.chunks.
func (p *spillPipe) NextChunk() ([]byte, error) {
	if len(p.rest) > 0 {
		c := p.rest
		p.rest = nil
		return c, nil
	}
	c, ok := <-p.chunks
	if !ok {
		return nil, io.EOF
	}
	return c, nil
}

func (p *spillPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if len(p.rest) == 0 {
		c, err := p.NextChunk()
		if err != nil {
			return 0, err
		}
		p.rest = c
	}
	n := copy(b, p.rest)
	p.rest = p.rest[n:]
	return n, nil
}

// WriteTo writes the chunks to w as they come, with no copy between.
func (p *spillPipe) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		c, err := p.NextChunk()
		if err == io.EOF {
			return total, nil
		}
		n, err := w.Write(c)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}

// openSpill claims a name for one stream's full output (the next run id
// when another writer holds the current one) and starts streaming into
// it. A failure to claim one is reported by close.
func (e *Executor) openSpill(names *spillNames, kind string) *spillFile {
	ctx := context.Background()
	f := &spillFile{done: make(chan error, 1)}
	failed := func(err error) *spillFile {
		f.done <- err
		return f
	}
	f.path = names.file(kind)
	if err := e.ws.Mkdir(ctx, toolspec.OutputDir, vfs.MkdirOptions{Recursive: true}); err != nil {
		return failed(err)
	}
	for attempt := 0; !f.claimed; attempt++ {
		f.path = names.file(kind)
		err := e.ws.Create(ctx, f.path)
		switch {
		case err == nil:
			f.claimed = true
			continue
		case errno.CodeOf(err) != errno.EEXIST || attempt == spillClaims:
			return failed(err)
		}
		id, err := e.runID(ctx, true)
		if err != nil {
			return failed(err)
		}
		names.id = id
	}
	f.pipe = newSpillPipe()
	go func() {
		err := e.ws.WriteFrom(ctx, f.path, f.pipe, vfs.WriteOptions{})
		close(f.pipe.gone) // a sender still sending learns it is over
		f.done <- err
	}()
	return f
}

// spillClaims bounds the names a stream tries before it gives up saving.
const spillClaims = 64

// write sends a chunk of raw output, which nobody changes afterwards,
// to the file. A failure is reported by close.
func (f *spillFile) write(chunk []byte) {
	if f.pipe != nil && len(chunk) > 0 {
		f.pipe.send(chunk)
	}
}

func (f *spillFile) close() error {
	if f.pipe != nil {
		close(f.pipe.chunks)
	}
	return <-f.done
}

// pruneOutput removes the oldest output files past outputKeep, never the
// one just saved and never a file the exec tool did not name. Best
// effort, as in the reference.
func (e *Executor) pruneOutput(saved string) {
	ctx := context.Background()
	entries, err := e.ws.ReadDir(ctx, toolspec.OutputDir, 0, -1)
	if err != nil {
		return
	}
	var others []vfs.Info
	for _, en := range entries {
		p := toolspec.OutputDir + "/" + en.Name
		_, stream, spill := spillParts(en.Name)
		spill = spill && (stream == toolspec.MsgExecStreamStdout || stream == toolspec.MsgExecStreamStderr)
		if en.Type == vfs.TypeFile && p != saved && spill {
			others = append(others, en)
		}
	}
	slices.SortStableFunc(others, func(a, b vfs.Info) int { return int(b.MTime - a.MTime) })
	for _, stale := range others[min(len(others), outputKeep-1):] {
		_ = e.ws.Remove(ctx, toolspec.OutputDir+"/"+stale.Name, vfs.RemoveOptions{Force: true})
	}
}
