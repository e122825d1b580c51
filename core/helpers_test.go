package core_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// newExec builds a tool set over a fresh in-memory workspace holding
// files (workspace path to content; a path ending in "/" is a directory).
func newExec(t *testing.T, opts core.Options, files map[string]string) *core.Executor {
	t.Helper()
	return newExecOn(t, memfs.New(), opts, files)
}

// newExecOn is newExec over a given store.
func newExecOn(t *testing.T, store vfs.Store, opts core.Options, files map[string]string) *core.Executor {
	t.Helper()
	ws := vfs.New(store)
	populate(t, ws, files)
	ex, err := core.New(ws, opts)
	if err != nil {
		t.Fatalf("core.New: %v", err)
	}
	return ex
}

func populate(t *testing.T, ws *vfs.Workspace, files map[string]string) {
	t.Helper()
	ctx := t.Context()
	for p, content := range files {
		var err error
		if strings.HasSuffix(p, "/") {
			err = ws.Mkdir(ctx, strings.TrimSuffix(p, "/"), vfs.MkdirOptions{Recursive: true})
		} else {
			err = ws.WriteFile(ctx, p, []byte(content), vfs.WriteOptions{CreateParents: true})
		}
		if err != nil {
			t.Fatalf("setting up %s: %v", p, err)
		}
	}
}

// call runs one checked call and fails the test on a Go error.
func call(t *testing.T, ex *core.Executor, tool, args string) toolspec.Output {
	t.Helper()
	out, err := ex.Call(t.Context(), tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s, %q): %v", tool, args, err)
	}
	return out
}

// view is a toolspec.Output in a form cmp prints readably.
type view struct {
	Kind  toolspec.OutputKind
	Text  string
	JSON  string
	Media *toolspec.Media
}

func viewOf(o toolspec.Output) view {
	return view{Kind: o.Kind, Text: o.Text, JSON: string(o.JSON), Media: o.Media}
}

func checkOutput(t *testing.T, got, want toolspec.Output) {
	t.Helper()
	if diff := cmp.Diff(viewOf(want), viewOf(got)); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s", diff)
	}
}

func textOut(s string) toolspec.Output { return toolspec.Output{Kind: toolspec.OutputText, Text: s} }

func errText(s string) toolspec.Output {
	return toolspec.Output{Kind: toolspec.OutputErrorText, Text: s}
}

// jsonOut is the json output of a result value, serialized as the
// executor serializes results.
func jsonOut(v any) toolspec.Output {
	b, err := core.MarshalJSON(v)
	if err != nil {
		panic(err)
	}
	return toolspec.Output{Kind: toolspec.OutputJSON, JSON: b}
}

func errJSON(msg string) toolspec.Output { return jsonOut(toolspec.ErrorResult{Error: msg}) }

func ptr[T any](v T) *T { return &v }

// spyStore wraps a store and records what the tools ask of it: the
// directories listed, the files opened, the bytes read from them. With
// readCap > 0, a read that takes the bytes read past readCap fails, so
// that a test of bounded reading fails at once instead of reading on.
type spyStore struct {
	vfs.Store
	mu        sync.Mutex
	readDirs  []string
	opens     []string
	bytesRead atomic.Int64
	readCap   int64
}

func (s *spyStore) ReadDir(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	s.mu.Lock()
	s.readDirs = append(s.readDirs, name)
	s.mu.Unlock()
	return s.Store.ReadDir(ctx, name, offset, limit)
}

func (s *spyStore) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	s.mu.Lock()
	s.opens = append(s.opens, name)
	s.mu.Unlock()
	r, err := s.Store.Open(ctx, name, offset)
	if err != nil {
		return nil, err
	}
	return &countingReader{r: r, n: &s.bytesRead, limit: s.readCap}, nil
}

func (s *spyStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readDirs, s.opens = nil, nil
	s.bytesRead.Store(0)
}

func (s *spyStore) listed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.readDirs...)
}

func (s *spyStore) opened() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.opens...)
}

// countingReader adds the bytes read through it to n, and fails once n
// passes limit (when limit > 0).
type countingReader struct {
	r     io.ReadCloser
	n     *atomic.Int64
	limit int64
}

// errReadCap is what a countingReader answers past its limit.
var errReadCap = errors.New("read past the test's cap")

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if total := c.n.Add(int64(n)); c.limit > 0 && total > c.limit {
		return n, errReadCap
	}
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// paramNames is a tool's parameter names joined as the unknown-argument
// message lists them.
func paramNames(params []toolspec.Param) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, toolspec.MsgArgumentsListSeparator)
}

// param finds a parameter by name.
func param(t *testing.T, params []toolspec.Param, name string) toolspec.Param {
	t.Helper()
	for _, p := range params {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no parameter %q", name)
	return toolspec.Param{}
}

func invalid(tool string, problems ...string) toolspec.Output {
	return errText(toolspec.MsgArgumentsInvalid(tool, strings.Join(problems, toolspec.ArgumentsProblemSeparator)))
}
