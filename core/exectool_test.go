package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// guard is how long a test waits for a call that must end before calling
// it a hang: generous, never a speed target.
const guard = 30 * time.Second

// hostExec is a tool set whose /workspace is a fresh host directory, with
// exec on the host backend. When spillOnDisk is set, /.computer/output
// is a host directory too (as the agenttools command mounts it), so saved
// output is not held in memory.
func hostExec(t *testing.T, opts core.Options, spillOnDisk bool) (*core.Executor, string) {
	t.Helper()
	return backendExec(t, testws.HostBackend, opts, spillOnDisk)
}

// backendExec is hostExec with exec on backend b.
func backendExec(t *testing.T, b testws.Backend, opts core.Options, spillOnDisk bool) (*core.Executor, string) {
	t.Helper()
	ws, dir := b.Workspace(t)
	if spillOnDisk {
		testws.MountHost(t, ws, toolspec.OutputDir, "")
	}
	opts.Backends = []execbackend.Backend{b.NewHost(t, ws, execbackend.HostOptions{})}
	ex, err := core.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ex, dir
}

// execResult runs one exec call (guarded against a hang) and decodes its
// json result.
func execResult(t *testing.T, ctx context.Context, ex *core.Executor, args string) toolspec.ExecResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, guard)
	defer cancel()
	out, err := ex.Call(ctx, "exec", []byte(args))
	if err != nil {
		t.Fatalf("exec %s: %v", args, err)
	}
	if out.Kind != toolspec.OutputJSON {
		t.Fatalf("exec %s: %s output %q", args, out.Kind, out.Text)
	}
	var res toolspec.ExecResult
	if err := json.Unmarshal(out.JSON, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func argsJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestExecOnTheHost(t *testing.T) {
	testws.ForEachBackend(t, testExecOnTheHost)
}

func testExecOnTheHost(t *testing.T, b testws.Backend) {
	ex, _ := backendExec(t, b, core.Options{}, false)
	ctx := t.Context()
	call(t, ex, "write", `{"path":"/workspace/src/main.txt","content":"hello from the workspace\n"}`)

	res := execResult(t, ctx, ex, `{"command":"cat main.txt; echo oops >&2; exit 4","cwd":"/workspace/src","env":{"GREETING":"hi"}}`)
	cwd := "/workspace/src"
	want := toolspec.ExecResult{Command: "cat main.txt; echo oops >&2; exit 4", Cwd: &cwd, Backend: b.Name, ExitCode: new(int64(4)),
		Stdout: "hello from the workspace\n", Stderr: "oops\n"}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}

	// A file the command writes is there for the file tools.
	execResult(t, ctx, ex, `{"command":"printf built > out.bin"}`)
	if out := call(t, ex, "read", `{"path":"/workspace/out.bin"}`); out.Text != "built" {
		t.Errorf("read after exec: %q", out.Text)
	}

	// A cwd the host cannot run in is the backend's error, in the
	// reference's error shape.
	call(t, ex, "write", `{"path":"/scratch/note","content":""}`)
	out := call(t, ex, "exec", `{"command":"true","cwd":"/scratch"}`)
	var failed toolspec.ExecErrorResult
	if err := json.Unmarshal(out.JSON, &failed); err != nil || failed.Error != toolspec.MsgNotHostDirectory("/scratch") || failed.Backend != b.Name {
		t.Errorf("exec in memory: %s", out.JSON)
	}
	if keys := strings.Join(keysOf(t, out.JSON), ","); keys != "command,cwd,backend,error" {
		t.Errorf("error result keys %s", keys)
	}
	if !out.IsError() {
		t.Errorf("exec's error result is not a failure to IsError: %s", out.JSON)
	}
	if out := call(t, ex, "exec", `{"command":"exit 1"}`); out.IsError() {
		t.Errorf("a command that ran is not a tool failure, whatever its status: %s", out.JSON)
	}
}

// keysOf lists a JSON object's keys in order.
func keysOf(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestExecHundredThousandLines(t *testing.T) {
	testws.ForEachBackend(t, testExecHundredThousandLines)
}

func testExecHundredThousandLines(t *testing.T, b testws.Backend) {
	ex, _ := backendExec(t, b, core.Options{}, false)
	res := execResult(t, t.Context(), ex, `{"command":"seq 1 100000"}`)
	var tail strings.Builder
	for i := 98001; i <= 100000; i++ {
		tail.WriteString(strconv.Itoa(i) + "\n")
	}
	spill := toolspec.MsgExecSpillPath(b.Name + ".exec-1.stdout.log")
	want := tail.String() + toolspec.MsgExecShowingLines(98001, 100000, 100000, "", toolspec.MsgExecSavedAt(spill))
	if res.Stdout != want {
		t.Errorf("stdout ends %q, want it to end %q", last(res.Stdout, 120), last(want, 120))
	}

	// The whole output is in the spill file, for read and grep.
	page := call(t, ex, "read", argsJSON(t, map[string]any{"path": spill, "offset": 99998}))
	if !strings.Contains(string(page.JSON), `"content":"99998\n99999\n100000","startLine":99998,"endLine":100000,"totalLines":100000`) {
		t.Errorf("read of the spill file at line 99998: %q %s", page.Text, page.JSON)
	}
	found := call(t, ex, "grep", argsJSON(t, map[string]any{"query": "^4242$", "regex": true, "path": spill}))
	if !strings.Contains(found.Text+string(found.JSON), `"line":4242`) {
		t.Errorf("grep of the spill file: %s%s", found.Text, found.JSON)
	}
	listing := call(t, ex, "ls", `{"path":"/.computer/output"}`)
	size := 0
	for i := 1; i <= 100000; i++ {
		size += len(strconv.Itoa(i)) + 1
	}
	if !strings.Contains(string(listing.JSON), `"name":"`+b.Name+`.exec-1.stdout.log","size":`+strconv.Itoa(size)) {
		t.Errorf("ls of the output directory: %s", listing.JSON)
	}
	// Runs are numbered on.
	if res := execResult(t, t.Context(), ex, `{"command":"seq 1 3000 >&2"}`); !strings.HasSuffix(res.Stderr, toolspec.MsgExecSavedAt(toolspec.MsgExecSpillPath(b.Name+".exec-2.stderr.log"))+"]") {
		t.Errorf("second run's stderr ends %q", last(res.Stderr, 100))
	}
}

func last(s string, n int) string {
	return s[max(0, len(s)-n):]
}

func TestExecDecodesAcrossChunks(t *testing.T) {
	testws.ForEachBackend(t, testExecDecodesAcrossChunks)
}

func testExecDecodesAcrossChunks(t *testing.T, b testws.Backend) {
	ex, _ := backendExec(t, b, core.Options{}, false)
	// The check mark's three bytes arrive in two writes, a pause apart.
	res := execResult(t, t.Context(), ex, `{"command":"printf '\\342\\234'; sleep 0.1; printf '\\223 ok, caf\\351\\n'"}`)
	if res.Stdout != "✓ ok, caf\uFFFD\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	// A character cut off by the end of the stream is one replacement.
	if res := execResult(t, t.Context(), ex, `{"command":"printf 'end\\360\\237\\230'"}`); res.Stdout != "end\uFFFD" {
		t.Errorf("truncated at the end: %q", res.Stdout)
	}
}

func TestExecTimeout(t *testing.T) {
	testws.ForEachBackend(t, testExecTimeout)
}

func testExecTimeout(t *testing.T, b testws.Backend) {
	// The timeout runs from the start: long enough for the command to
	// print first, which in the sandbox comes after bwrap set it up, on a
	// loaded machine too (100 ms was not: bash had not echoed yet).
	timeout := int64(1000)
	if b.Sandbox {
		timeout = 2000
	}
	ex, _ := backendExec(t, b, core.Options{ExecTimeout: timeout}, false)
	// The note alone does not start with blank lines; after the
	// command's stderr it is set off by one.
	res := execResult(t, t.Context(), ex, `{"command":"echo started; sleep 100"}`)
	if res.Stdout != "started\n" || *res.ExitCode != 128+int64(syscall.SIGKILL) || res.Stderr != strings.TrimLeft(toolspec.MsgExecTimedOut(timeout), "\n") || res.Stderr[0] != '[' {
		t.Errorf("timed out run: exit %d stdout %q stderr %q", *res.ExitCode, res.Stdout, res.Stderr)
	}
	res = execResult(t, t.Context(), ex, `{"command":"echo oops >&2; sleep 100"}`)
	if res.Stderr != "oops\n"+toolspec.MsgExecTimedOut(timeout) {
		t.Errorf("timed out run with stderr: %q", res.Stderr)
	}
}

func TestExecCancel(t *testing.T) {
	testws.ForEachBackend(t, testExecCancel)
}

func testExecCancel(t *testing.T, b testws.Backend) {
	ex, _ := backendExec(t, b, core.Options{Clock: agentcase.StepClock(time.Second)}, false)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The first snapshot shows the command running; cancel then.
	ctx = core.WithSnapshots(ctx, func(toolspec.Output) { cancel() })
	deadline, stop := context.WithTimeout(ctx, guard)
	defer stop()
	_, err := ex.Call(deadline, "exec", []byte(`{"command":"echo started; sleep 100"}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled exec returned %v, want context.Canceled", err)
	}
}

func TestExecSnapshotsAreCoalesced(t *testing.T) {
	scripts := execbackend.NewScripts(nil)
	var events []execbackend.ScriptEvent
	for i := range 12 {
		events = append(events, execbackend.ScriptEvent{Data: []byte(strconv.Itoa(i) + "\n")})
	}
	scripts.Queue(execbackend.Script{Events: events, ExitCode: 0})
	ws := vfs.New(memfs.New())
	// 30 ms pass between readings: a snapshot every fourth chunk.
	ex, err := core.New(ws, core.Options{Backends: []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell"}, scripts)}, Clock: agentcase.StepClock(30 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	var snaps []toolspec.ExecResult
	// An outer function keeps receiving them: layered calls add up.
	outer := 0
	ctx := core.WithSnapshots(t.Context(), func(toolspec.Output) { outer++ })
	ctx = core.WithSnapshots(ctx, func(o toolspec.Output) {
		var r toolspec.ExecResult
		if err := json.Unmarshal(o.JSON, &r); err != nil {
			t.Error(err)
		}
		snaps = append(snaps, r)
	})
	out, err := ex.Call(ctx, "exec", []byte(`{"command":"count"}`))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, s := range snaps {
		if s.ExitCode != nil {
			t.Errorf("a running snapshot has an exit code: %+v", s)
		}
		lines = append(lines, strings.Count(s.Stdout, "\n"))
	}
	// Chunks come at 30, 60, 90, 120 ms, ...: snapshots at 120, 240, 360.
	if fmt.Sprint(lines) != "[4 8 12]" {
		t.Errorf("snapshots hold %v lines, want [4 8 12]", lines)
	}
	if outer != len(snaps) {
		t.Errorf("the outer function saw %d snapshots, the inner %d", outer, len(snaps))
	}
	var final toolspec.ExecResult
	if err := json.Unmarshal(out.JSON, &final); err != nil || final.ExitCode == nil || *final.ExitCode != 0 || strings.Count(final.Stdout, "\n") != 12 {
		t.Errorf("final result %s", out.JSON)
	}
}

// Memory stays bounded however much a command prints: the window keeps
// the end, the spill file streams to disk.
func TestExecLargeOutputMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 256 MiB")
	}
	testws.ForEachBackend(t, testExecLargeOutputMemoryIsBounded)
}

func testExecLargeOutputMemoryIsBounded(t *testing.T, b testws.Backend) {
	const size = 256 << 20
	ex, _ := backendExec(t, b, core.Options{Clock: agentcase.StepClock(10 * time.Millisecond)}, true)
	var peak uint64
	var ms runtime.MemStats
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	runtime.GC()
	sample()
	base := peak
	// A snapshot every tenth chunk (the clock steps 10 ms a reading)
	// samples the heap all through the run.
	ctx := core.WithSnapshots(t.Context(), func(toolspec.Output) { sample() })
	res := execResult(t, ctx, ex, argsJSON(t, map[string]string{"command": "yes 0123456789abcde | head -c " + strconv.Itoa(size)}))
	if *res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "0123456789abcde\n") {
		t.Fatalf("exit %d stdout starts %q", *res.ExitCode, res.Stdout[:min(len(res.Stdout), 40)])
	}
	if growth := peak - base; growth > 64<<20 {
		t.Errorf("the heap grew %d MiB while the command printed %d MiB", growth>>20, size>>20)
	}
	info := call(t, ex, "ls", `{"path":"/.computer/output"}`)
	if !strings.Contains(string(info.JSON), `"size":`+strconv.Itoa(size)) {
		t.Errorf("the spill file does not hold the whole output: %s", info.JSON)
	}
}

// BenchmarkExecTrivialCommand is a trivial command's full round trip
// through the tool on the host backend: arguments checked, bash started
// in the workspace directory, output read, result rendered. It reports
// the median of the iterations as median-ns/op beside the mean.
func BenchmarkExecTrivialCommand(b *testing.B) {
	ws, _ := testws.Host(b, "")
	host, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ex, err := core.New(ws, core.Options{Backends: []execbackend.Backend{host}})
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"command":"echo ok"}`)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		out, err := ex.Call(b.Context(), "exec", args)
		if err != nil || !strings.Contains(string(out.JSON), `"stdout":"ok\n"`) {
			b.Fatalf("%s %v", out.JSON, err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/op")
}

// Tool sets in separate processes may share one output directory (the
// agenttools command gives each workspace directory one): each run's
// files get names no other run holds, and each note names the file with
// its own output.
func TestExecSharedOutputDirectory(t *testing.T) {
	shared := t.TempDir()
	const sets = 8
	var wg sync.WaitGroup
	results := make([]toolspec.ExecResult, sets)
	executors := make([]*core.Executor, sets)
	for i := range sets {
		ws := vfs.New(memfs.New())
		testws.MountHost(t, ws, toolspec.OutputDir, shared)
		scripts := execbackend.NewScripts(nil)
		var out strings.Builder
		for line := range 10 {
			fmt.Fprintf(&out, "set %d line %d\n", i, line)
		}
		scripts.Queue(execbackend.Script{Stdout: []byte(out.String())})
		ex, err := core.New(ws, core.Options{
			Backends:   []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell"}, scripts)},
			ExecOutput: core.ExecOutputOptions{MaxLines: 2},
		})
		if err != nil {
			t.Fatal(err)
		}
		executors[i] = ex
	}
	for i, ex := range executors {
		wg.Go(func() { results[i] = execResult(t, t.Context(), ex, `{"command":"print"}`) })
	}
	wg.Wait()
	seen := map[string]int{}
	for i, res := range results {
		_, path, ok := strings.Cut(res.Stdout, "Full output: ")
		if !ok {
			t.Fatalf("set %d: no saved output in %q", i, res.Stdout)
		}
		path = strings.TrimSuffix(path, "]")
		if j, dup := seen[path]; dup {
			t.Errorf("sets %d and %d were both told their output is at %s", j, i, path)
		}
		seen[path] = i
		saved := call(t, executors[i], "read", argsJSON(t, map[string]string{"path": path}))
		if !strings.HasPrefix(saved.Text, fmt.Sprintf("set %d line 0\n", i)) {
			t.Errorf("set %d: %s holds %q", i, path, saved.Text)
		}
	}
}

// Run numbers go on past the runs that left only conflict copies of the
// exec mirror (/.computer/conflicts/exec-N, or exec-N-M when another
// process's run of that number saved there first): a later run's saved
// output never shares a number with an earlier run's conflicts.
func TestRunNumbersGoOnPastConflicts(t *testing.T) {
	ex, _ := hostExec(t, core.Options{}, false)
	ws := ex.Workspace()
	for _, d := range []string{toolspec.MsgExecMirrorConflictDir("exec-3"), toolspec.MsgExecMirrorConflictDir("exec-4-2"), toolspec.MsgExecMirrorConflictDir("notes")} {
		if err := ws.Mkdir(t.Context(), d, vfs.MkdirOptions{Recursive: true}); err != nil {
			t.Fatal(err)
		}
	}
	res := execResult(t, t.Context(), ex, `{"command":"seq 1 3000"}`)
	if want := toolspec.MsgExecSavedAt(toolspec.MsgExecSpillPath("host.exec-5.stdout.log")); !strings.Contains(res.Stdout, want) {
		t.Errorf("the run's stdout ends %q, want it saved as run exec-5", last(res.Stdout, 100))
	}
}

// TestExecBackendTexts: a backend the options describe and that
// describes itself is told of with both texts, joined as the spec joins
// them; either alone is told as it is.
func TestExecBackendTexts(t *testing.T) {
	scripted := func(id, own string) execbackend.Backend {
		return execbackend.NewScripted(execbackend.Info{ID: id, Description: own}, execbackend.NewScripts(nil))
	}
	backends := []execbackend.Backend{scripted("both", "its own words"), scripted("options", ""), scripted("own", "its own words")}
	ex, err := core.New(vfs.New(memfs.New()), core.Options{Backends: backends, Exec: core.ExecBackends{
		{ID: "both", Description: "the options' words"}, {ID: "options", Description: "the options' words"}, {ID: "own"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := ex.Tool(toolspec.ToolExec)
	want := toolspec.ExecDescription("", []toolspec.ExecBackend{
		{ID: "both", Text: toolspec.MsgExecBackendTexts("the options' words", "its own words")},
		{ID: "options", Text: "the options' words"},
		{ID: "own", Text: "its own words"},
	}, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault)
	if tool.Description != want {
		t.Errorf("description:\n%s\nwant:\n%s", tool.Description, want)
	}
}

// TestExecSavesOutputWithoutCopies: a long output's chunks go to the
// window and to a memfs output file as the backend handed them over, so
// the call allocates about one copy of the output (memfs joins the
// chunks into the file's content) and little else: not a copy for the
// window, one for a pipe to the store and more for the store's buffers.
func TestExecSavesOutputWithoutCopies(t *testing.T) {
	const size = 4 << 20
	line := []byte("build output line: compiling package and linking objects\n")
	out := bytes.Repeat(line, size/len(line)+1)[:size]
	scripts := execbackend.NewScripts(map[string]execbackend.Script{"big": {Stdout: out, ChunkBytes: 64 << 10}})
	ws := vfs.New(memfs.New())
	ex, err := core.New(ws, core.Options{Backends: []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell"}, scripts)}})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := execResult(t, t.Context(), ex, `{"command":"big"}`)
	runtime.ReadMemStats(&after)
	if !strings.Contains(res.Stdout, "Full output: /.computer/output/") {
		t.Fatalf("stdout ends %q", res.Stdout[max(0, len(res.Stdout)-200):])
	}
	f, _, err := ws.Open(t.Context(), "/.computer/output/shell.exec-1.stdout.log", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(saved, out) {
		t.Fatalf("the saved output (%d bytes, %v) is not the output", len(saved), err)
	}
	// About 1.05 times the output; more under the race detector. The
	// copies this test guards against made it 4 times.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size*2 {
		t.Errorf("the call allocated %.1f MiB for %d MiB of output, want at most twice the output", float64(alloc)/(1<<20), size>>20)
	}
}
