package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// Regression tests for hostile input: each case once crashed the process,
// hung it, or let one call take unbounded memory.

func memTools(t testing.TB) (*core.Executor, *vfs.Workspace) {
	t.Helper()
	ws := vfs.New(memfs.New())
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Mkdir(t.Context(), "/workspace/src", vfs.MkdirOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	return ex, ws
}

// within runs f and fails the test if it has not returned after a
// generous deadline: a guard against a hang, not a speed target.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("did not return within 60 s")
	}
}

func TestDeeplyNestedGlobIsRefused(t *testing.T) {
	ex, _ := memTools(t)
	p := "a"
	for range 500 {
		p = "{" + p + "x,y}"
	}
	quoted := toolspec.QuoteJSON(p)
	want := toolspec.MsgInvalidGlob(toolspec.MsgGlobTooDeep(toolspec.WorkspaceMaxGlobDepthDefault))
	for _, c := range []struct{ tool, args string }{
		{"find", `{"pattern":` + quoted + `}`},
		{"find", `{"pattern":"*","exclude":[` + quoted + `]}`},
		{"grep", `{"query":"x","include":` + quoted + `}`},
	} {
		out, err := ex.Call(t.Context(), c.tool, []byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if !out.IsError() || !strings.Contains(string(out.JSON), want) {
			t.Errorf("%s: %.200s, want the error %q", c.tool, out.JSON, want)
		}
	}
	// 64 levels are fine.
	p = "a"
	for range 64 {
		p = "{" + p + ",b}"
	}
	if out, _ := ex.Call(t.Context(), "find", []byte(`{"pattern":`+toolspec.QuoteJSON(p)+`}`)); out.IsError() {
		t.Errorf("64 levels: %s", out.JSON)
	}
}

func TestHugeGlobsCompileInLinearTime(t *testing.T) {
	ex, _ := memTools(t)
	for _, p := range []string{
		strings.Repeat("{", 200_000),
		strings.Repeat("{a,", 100_000) + "b",
		strings.Repeat("{a,b}", 40_000),
	} {
		within(t, func() {
			if _, err := ex.Call(t.Context(), "find", []byte(`{"pattern":`+toolspec.QuoteJSON(p)+`}`)); err != nil {
				t.Error(err)
			}
		})
	}
}

// endless is a store whose file "workspace/line.txt" is size bytes of
// "a" with no newline, produced as it is read.
type endless struct {
	vfs.Store
	size int64
}

func (e endless) Lstat(ctx context.Context, name string) (vfs.Info, error) {
	if name == "workspace/line.txt" {
		return vfs.Info{Name: "line.txt", Type: vfs.TypeFile, Mode: 0o644, Size: e.size}, nil
	}
	return e.Store.Lstat(ctx, name)
}

func (e endless) ReadDir(ctx context.Context, name string, off, limit int) ([]vfs.Info, error) {
	out, err := e.Store.ReadDir(ctx, name, off, limit)
	if name == "workspace" && err == nil {
		out = append(out, vfs.Info{Name: "line.txt", Type: vfs.TypeFile, Mode: 0o644, Size: e.size})
	}
	return out, err
}

func (e endless) Open(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	if name == "workspace/line.txt" {
		return io.NopCloser(io.LimitReader(aReader{}, e.size-off)), nil
	}
	return e.Store.Open(ctx, name, off)
}

type aReader struct{}

func (aReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestGrepBoundsALongLine greps a 64 MiB line: the call's allocations
// stay far below the line's size, and the match shows the line's first
// 256 KiB with the truncation marker (deviation grepBounds).
func TestGrepBoundsALongLine(t *testing.T) {
	mem := memfs.New()
	ws := vfs.New(endless{mem, 64 << 20})
	if err := ws.Mkdir(t.Context(), "/workspace", vfs.MkdirOptions{}); err != nil {
		t.Fatal(err)
	}
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := ex.Call(t.Context(), "grep", []byte(`{"query":"aaa"}`))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("grep of a 64 MiB line allocated %d MiB", alloc>>20)
	}
	want := `"text":"` + strings.Repeat("a", int(toolspec.GrepMaxLineBytesDefault)) + `... (truncated)"`
	if out.IsError() || !strings.Contains(string(out.JSON), want) {
		t.Errorf("grep of a long line: %.300s", out.JSON)
	}
}

// TestGrepPageBudget: 300 lines of 100 KB with wide context would make a
// page of hundreds of megabytes; the page stops at the budget with a
// nextOffset that continues it.
func TestGrepPageBudget(t *testing.T) {
	ex, ws := memTools(t)
	line := strings.Repeat("m", 100_000)
	var b strings.Builder
	for range 300 {
		b.WriteString(line + "\n")
	}
	if err := ws.WriteFile(t.Context(), "/workspace/wide.txt", []byte(b.String()), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := ex.Call(t.Context(), "grep", []byte(`{"query":"m","context":10,"limit":1000}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.JSON) > 4*int(toolspec.GrepMaxResultBytesDefault) {
		t.Errorf("page of %d bytes", len(out.JSON))
	}
	var res struct {
		Count      int  `json:"count"`
		NextOffset *int `json:"nextOffset"`
	}
	mustJSON(t, out.JSON, &res)
	if res.NextOffset == nil || *res.NextOffset != res.Count || res.Count == 0 {
		t.Errorf("count %d, nextOffset %v: want a partial page continued at its count", res.Count, res.NextOffset)
	}
	next, err := ex.Call(t.Context(), "grep", []byte(fmt.Sprintf(`{"query":"m","offset":%d,"limit":1}`, res.Count)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(next.JSON), fmt.Sprintf(`"line":%d,`, res.Count+1)) {
		t.Errorf("the next page does not start at line %d: %.200s", res.Count+1, next.JSON)
	}
}

func TestLongPathIsRefused(t *testing.T) {
	ex, _ := memTools(t)
	p := "/workspace/" + strings.Repeat("d/", 3000) + "f"
	for _, tool := range []string{"read", "write", "delete", "ls"} {
		args := `{"path":"` + p + `","content":"x"}`
		if tool != "write" {
			args = `{"path":"` + p + `"}`
		}
		var out toolspec.Output
		within(t, func() {
			var err error
			out, err = ex.Call(t.Context(), tool, []byte(args))
			if err != nil {
				t.Error(err)
			}
		})
		text := out.Text + string(out.JSON)
		if !strings.Contains(text, "Invalid path (longer than 4096 bytes): /workspace/d/d/") {
			t.Errorf("%s of a 6000-byte path: %.200s", tool, text)
		}
	}
}

func TestTooManyProblemsAreCounted(t *testing.T) {
	ex, _ := memTools(t)
	var b strings.Builder
	b.WriteString(`{"path":"/workspace"`)
	for i := range 100 {
		fmt.Fprintf(&b, `,"k%03d":1`, i)
	}
	b.WriteString("}")
	out, err := ex.Call(t.Context(), "ls", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.Text, "is not an argument"); got != toolspec.ArgumentsMaxProblems {
		t.Errorf("%d problems listed, want %d: %s", got, toolspec.ArgumentsMaxProblems, out.Text)
	}
	if !strings.HasSuffix(out.Text, toolspec.MsgArgumentsMore(100-toolspec.ArgumentsMaxProblems)) {
		t.Errorf("message does not end with the count of the rest: %s", out.Text)
	}
}

func hostTools(t *testing.T) (*core.Executor, string) {
	t.Helper()
	ws, dir := testws.Host(t, "")
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ex, dir
}

// TestConcurrentWritesShareNewParents: writes of distinct files into the
// same new directories all succeed, on memory and on a host directory.
func TestConcurrentWritesShareNewParents(t *testing.T) {
	mem, _ := memTools(t)
	host, _ := hostTools(t)
	for name, ex := range map[string]*core.Executor{"memfs": mem, "hostfs": host} {
		t.Run(name, func(t *testing.T) {
			for round := range 20 {
				var wg sync.WaitGroup
				errs := make(chan string, 20)
				for g := range 20 {
					wg.Go(func() {
						args := fmt.Sprintf(`{"path":"/workspace/r%d/new/deeper/f%d","content":"x"}`, round, g)
						out, err := ex.Call(t.Context(), "write", []byte(args))
						if err != nil || out.IsError() {
							errs <- fmt.Sprintf("%s: %s %v", args, out.JSON, err)
						}
					})
				}
				wg.Wait()
				close(errs)
				for e := range errs {
					t.Error(e)
				}
			}
		})
	}
}

// TestLinkSpellingsShareALock: a recursive delete of a directory and a
// write into it through a link are serialized, so the delete never meets
// a directory that the write filled behind its back.
func TestLinkSpellingsShareALock(t *testing.T) {
	ex, _ := hostTools(t)
	ws := ex.Workspace()
	if err := ws.Symlink(t.Context(), "/workspace/a", "/workspace/l"); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if err := ws.Mkdir(t.Context(), "/workspace/a", vfs.MkdirOptions{Recursive: true}); err != nil {
			t.Fatal(err)
		}
		if got := ws.LockKey(t.Context(), "/workspace/l/sub/f", true); i == 0 && got != "/workspace/a/sub/f" {
			t.Errorf("LockKey through the link = %q", got)
		}
		var wg sync.WaitGroup
		var del toolspec.Output
		wg.Go(func() { del, _ = ex.Call(t.Context(), "delete", []byte(`{"path":"/workspace/a","recursive":true}`)) })
		wg.Go(func() { _, _ = ex.Call(t.Context(), "write", []byte(`{"path":"/workspace/l/sub/f","content":"x"}`)) })
		wg.Wait()
		if del.IsError() {
			t.Fatalf("the delete failed: %s", del.JSON)
		}
	}
}

func TestSpecialFilesAreNeverOpened(t *testing.T) {
	ex, dir := hostTools(t)
	if err := testws.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		`write {"path":"/workspace/fifo","content":"x"}`: toolspec.MsgNotRegularFile("/workspace/fifo"),
		`grep {"path":"/workspace/fifo","query":"x"}`:    toolspec.MsgNotRegularFile("/workspace/fifo"),
		`read {"path":"/workspace/fifo"}`:                toolspec.MsgReadFileNotFound("/workspace/fifo"),
		`find {"pattern":"fifo"}`:                        `{"path":"/workspace/fifo","type":"other"}`,
		`ls {"path":"/workspace"}`:                       `"name":"fifo","size":0,"mtime":`,
		`grep {"query":"x"}`:                             `"count":1`,
	}
	for call, w := range want {
		tool, args, _ := strings.Cut(call, " ")
		var out toolspec.Output
		within(t, func() { out, _ = ex.Call(t.Context(), tool, []byte(args)) })
		if got := out.Text + string(out.JSON); !strings.Contains(got, w) {
			t.Errorf("%s = %s, want %s", call, got, w)
		}
	}
}

// TestWriteKeepsSpecialModeBits overwrites a setuid file: the bits stay.
func TestWriteKeepsSpecialModeBits(t *testing.T) {
	ex, dir := hostTools(t)
	p := filepath.Join(dir, "tool")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o755|os.ModeSetuid); err != nil {
		t.Skipf("chmod u+s: %v", err)
	}
	if out, err := ex.Call(t.Context(), "write", []byte(`{"path":"/workspace/tool","content":"new"}`)); err != nil || out.IsError() {
		t.Fatalf("%s %v", out.JSON, err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSetuid == 0 || st.Mode().Perm() != 0o755 {
		t.Errorf("mode after the write: %v, want -rwsr-xr-x", st.Mode())
	}
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v: %.200s", err, data)
	}
}

// endingStore is a store whose file "workspace/line.txt" is size bytes
// of "a" with no newline; reading to its end calls atEnd.
type endingStore struct {
	endless
	atEnd func()
}

func (e endingStore) Open(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	r, err := e.endless.Open(ctx, name, off)
	if name == "workspace/line.txt" && err == nil {
		return io.NopCloser(atEOF{r, e.atEnd}), nil
	}
	return r, err
}

type atEOF struct {
	io.Reader
	hook func()
}

func (r atEOF) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if err == io.EOF {
		r.hook()
	}
	return n, err
}

// TestGrepCancelsWithinALine cancels a grep once its file is read, while
// it matches the file's one 256 KiB line against a query whose program
// is 60,000 instructions (minutes of matching): the call stops within
// the line, with the context's error.
func TestGrepCancelsWithinALine(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ws := vfs.New(endingStore{endless{memfs.New(), toolspec.GrepMaxLineBytesDefault}, cancel})
	if err := ws.Mkdir(t.Context(), "/workspace", vfs.MkdirOptions{}); err != nil {
		t.Fatal(err)
	}
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	truth := true
	args := grepArgs(toolspec.GrepArgs{Path: "/workspace/line.txt", Query: strings.Repeat(".*", 30000) + "z", Regex: &truth})
	within(t, func() {
		out, err := ex.Call(ctx, toolspec.ToolGrep, []byte(args))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled grep: %v %.300s", err, out.JSON)
		}
	})
}
