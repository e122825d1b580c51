// Package bench times agenttools on the reference's own workloads (the
// oracle's bench.json, a copy in golden/testdata/bench) the way the
// oracle's bench.mjs times @cloudflare/computer, and prints the same
// JSONL rows; it runs interleaved rounds of the reference and of one or
// more builds of ours and prints the ratio table; and it times one call
// over a host directory (for the ripgrep and scaling comparisons of
// scripts/). cmd/agenttools-bench is its command line.
//
// One iteration of a tool row is what the model's tool call costs us:
// core.Executor.Call on the argument text (validate + execute, rendered
// to a toolspec.Output), then raw.ModelOutput (the {"type","value"} JSON
// bytes the model is sent). Untimed, as in the reference: setup, "each"
// ops, $gen expansion, script preparation, the expect check and reading
// the next offset of a chain. It uses the product's public API only.
package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/replay"
	"github.com/agenttools/agenttools/toolspec"
)

// Stores are the workspace kinds a bench runs on by default, in table
// order.
var Stores = []string{"memfs", "sqlitefs", "hostfs"}

// PgStore is one more workspace kind, on a PostgreSQL server: a new
// workspace of pgfs per case in the database of Options.Postgres, removed
// after the case. It comes after Stores in tables.
const PgStore = "pgfs"

// PostgresEnv names the environment variable that gives Options.Postgres
// its default in cmd/agenttools-bench (and so to the builds a rounds run
// starts).
const PostgresEnv = "AGENTTOOLS_BENCH_POSTGRES"

// Options say how Run times a case file.
type Options struct {
	// Store is memfs (in memory), sqlitefs (a new database file per case
	// under Tmp) or hostfs (a new directory under Tmp mounted at
	// /workspace over an in-memory "/", as `agenttools call --dir` does).
	Store string
	// Tmp is where sqlitefs databases and hostfs trees are made; empty
	// means os.TempDir().
	Tmp string
	// Postgres is the connection URL of the database pgfs workspaces are
	// made in (its workspace parameter is ignored); the pgfs store needs
	// it.
	Postgres string
	// Scale multiplies every row's repeat (at least 1 iteration); 0 means 1.
	Scale float64
	// Once runs every row one timed iteration with no warm-up (the smoke
	// test); it overrides Scale.
	Once bool
	// Cases and Labels, when not nil, keep only those cases and call labels.
	Cases, Labels map[string]bool
	// Log, when not nil, receives a progress line per row.
	Log io.Writer

	// trips, set per case on pgfs, counts the round trips to the server.
	trips func() int64
}

// Stats are a row's timings in microseconds: median and p90 by linear
// interpolation between order statistics, as bench.mjs computes them.
type Stats struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// Row is one JSONL row, with bench.mjs's field names where they mean the
// same. Phase has validateExecute (Executor.Call: core does not time
// argument validation apart from the tool) and output (raw.ModelOutput)
// where the reference has validate, execute and output. The reference's
// lastOutput (follow rows) is not given: the result object is recorded
// only on an untimed call.
type Row struct {
	Workload     string             `json:"workload"`
	Case         string             `json:"case"`
	Label        string             `json:"label,omitempty"`
	Kind         string             `json:"kind,omitempty"`
	Tool         string             `json:"tool,omitempty"`
	Store        string             `json:"store,omitempty"`
	Repeat       int                `json:"repeat,omitempty"`
	Warmup       int                `json:"warmup,omitempty"`
	CallsPerIter int                `json:"callsPerIter,omitempty"`
	Us           Stats              `json:"us"`
	PerCallUs    *Stats             `json:"perCallUs,omitempty"`
	Phase        map[string]float64 `json:"phaseMedianUs,omitempty"`
	ModelBytes   int                `json:"modelBytes"`
	Preliminary  int                `json:"preliminary,omitempty"`
	Bytes        *int64             `json:"bytes,omitempty"`
	MBPerSec     float64            `json:"mbPerSec,omitempty"`
	// RoundTrips is the mean number of round trips to the server per
	// timed call (pgfs only).
	RoundTrips float64         `json:"roundTripsPerCall,omitempty"`
	OK         bool            `json:"ok"`
	Why        string          `json:"why,omitempty"`
	Error      string          `json:"error,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	SetupMs    float64         `json:"setupMs,omitempty"`
	RSSMB      int             `json:"rssMB,omitempty"`
}

// fixedClock is the oracle's mtime, 2026-01-01T00:00:00Z in ms.
const fixedClock = replay.FixedClock

// Header is the first JSONL line: what ran, where.
func Header(opts Options) []byte {
	host, _ := os.Hostname()
	line, _ := json.Marshal(map[string]any{"bench": "agenttools", "store": opts.Store, "go": runtime.Version(),
		"machine": map[string]any{"cpus": runtime.NumCPU(), "host": host, "platform": runtime.GOOS + " " + runtime.GOARCH},
		"scale":   opts.scale(), "once": opts.Once})
	return line
}

func (o Options) scale() float64 {
	if o.Scale <= 0 {
		return 1
	}
	return o.Scale
}

// Run runs the cases opts selects and emits one row per call; a case
// that fails before its calls run (setup, options) gives one row with
// Error set. The error is an unknown store or a cancelled context.
func Run(ctx context.Context, cases []Case, opts Options, emit func(Row)) error {
	if !slices.Contains(Stores, opts.Store) && opts.Store != SystemStore && opts.Store != PgStore {
		return fmt.Errorf("unknown store %q (want one of %s, %s)", opts.Store, strings.Join(Stores, ", "), PgStore)
	}
	if opts.Store == PgStore && opts.Postgres == "" {
		return fmt.Errorf("the %s store needs a PostgreSQL connection URL (%s)", PgStore, PostgresEnv)
	}
	for _, c := range cases {
		if opts.Cases != nil && !opts.Cases[c.Name] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := runCase(ctx, c, opts, emit); err != nil {
			emit(Row{Workload: c.Name, Case: c.Name, Store: opts.Store, Error: err.Error()})
		}
	}
	return nil
}

// newWorkspace is a fresh workspace of the store kind opts name: "/"
// only (hostfs: an empty temp dir mounted at /workspace over an in-memory
// "/"; pgfs: a new workspace, removed by the returned func, whose round
// trips it counts in opts.trips).
func newWorkspace(ctx context.Context, opts *Options, now func() time.Time) (*vfs.Workspace, string, func(), error) {
	tmp := opts.Tmp
	if tmp == "" {
		tmp = os.TempDir()
	}
	switch kind := opts.Store; kind {
	case "memfs":
		return vfs.New(memfs.New(memfs.WithClock(now))), "", func() {}, nil
	case "sqlitefs":
		dir, err := os.MkdirTemp(tmp, "agenttools-bench-sqlitefs-")
		if err != nil {
			return nil, "", nil, err
		}
		db, err := sqlitefs.Open(filepath.Join(dir, "bench.db"), sqlitefs.WithClock(now))
		if err != nil {
			os.RemoveAll(dir)
			return nil, "", nil, err
		}
		return vfs.New(db), "", func() { db.Close(); os.RemoveAll(dir) }, nil
	case "hostfs", SystemStore:
		dir, err := os.MkdirTemp(tmp, "agenttools-bench-hostfs-")
		if err != nil {
			return nil, "", nil, err
		}
		ws, closeWS, err := HostWorkspace(ctx, dir, now)
		if err != nil {
			os.RemoveAll(dir)
			return nil, "", nil, err
		}
		return ws, dir, func() { closeWS(); os.RemoveAll(dir) }, nil
	case PgStore:
		return pgWorkspace(ctx, opts, now)
	}
	return nil, "", nil, fmt.Errorf("unknown store %q", opts.Store)
}

// pgWorkspace opens a new workspace of a random name in the database of
// opts.Postgres and sets opts.trips; the returned func closes and
// removes it.
func pgWorkspace(ctx context.Context, opts *Options, now func() time.Time) (*vfs.Workspace, string, func(), error) {
	conn, _, err := pgfs.SplitURL(opts.Postgres)
	if err != nil {
		return nil, "", nil, err
	}
	p, err := url.Parse(conn)
	if err != nil {
		return nil, "", nil, err
	}
	name := "bench-" + rand.Text()
	q := p.Query()
	q.Set("workspace", name)
	p.RawQuery = q.Encode()
	fs, err := pgfs.Open(ctx, p.String(), pgfs.WithClock(now))
	if err != nil {
		return nil, "", nil, err
	}
	opts.trips = fs.RoundTrips
	return vfs.New(fs), "", func() {
		fs.Close()
		// A workspace left behind is only space: the bench goes on.
		_ = pgfs.RemoveWorkspace(context.Background(), conn, name)
	}, nil
}

// HostWorkspace mounts the host directory dir at /workspace over an
// in-memory "/" (`agenttools call --dir` keeps "/" in SQLite), with now
// as the in-memory store's clock. The returned func closes the mount.
func HostWorkspace(ctx context.Context, dir string, now func() time.Time) (*vfs.Workspace, func(), error) {
	host, err := hostfs.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	ws := vfs.New(memfs.New(memfs.WithClock(now)))
	if err := ws.Mount(ctx, toolspec.WorkspaceRoot, host, vfs.MountOptions{}); err != nil {
		host.Close()
		return nil, nil, err
	}
	return ws, func() { host.Close() }, nil
}

// toolOptions builds the tool set's options as the oracle does (see
// replay.ToolOptions), with scripted backends drawing on a queue the
// bench fills before every call.
func toolOptions(c Case) (core.Options, *execbackend.Scripts, error) {
	return replay.ToolOptions(replay.Case{ToolOptions: c.ToolOptions, Backends: c.Backends, ExecClock: c.ExecClock})
}

// parseScript reads a call's script ($gen expanded, iteration 0) and the
// stdout text its "bytes": {"script": "stdout"} counts.
func parseScript(rawScript json.RawMessage) (*execbackend.Script, string, error) {
	if len(rawScript) == 0 {
		return nil, "", nil
	}
	v, err := replay.ParseOrdered(rawScript)
	if err != nil {
		return nil, "", err
	}
	if v, err = replay.Expand(v, 0); err != nil {
		return nil, "", err
	}
	s, err := replay.ParseScript(replay.EncodeOrdered(v))
	if err != nil {
		return nil, "", err
	}
	return &s, string(s.Stdout), nil
}

func applyOps(ctx context.Context, ws *vfs.Workspace, ops []Op, iter int) error {
	for _, o := range ops {
		if o.Op.Op == "tree" {
			if err := applyTree(ctx, ws, o, iter); err != nil {
				return fmt.Errorf("tree %s: %w", o.Path, err)
			}
			continue
		}
		if err := applyOp(ctx, ws, o, iter); err != nil {
			return fmt.Errorf("%s %s: %w", o.Op.Op, o.Path, err)
		}
	}
	return nil
}

// applyTree writes a tree op's files in index order, each after mkdir -p
// of its parent (made once per run of files in the same directory).
func applyTree(ctx context.Context, ws *vfs.Workspace, o Op, iter int) error {
	writes, contents, err := treeWrites(o, iter)
	if err != nil {
		return err
	}
	mode, err := replay.ParseMode(o.Mode)
	if err != nil {
		return err
	}
	made := ""
	for i, w := range writes {
		if parent := parentOf(w.Path); parent != made {
			if err := ws.Mkdir(ctx, parent, vfs.MkdirOptions{Recursive: true}); err != nil {
				return err
			}
			made = parent
		}
		if err := ws.WriteFile(ctx, w.Path, contents[i], vfs.WriteOptions{Mode: mode}); err != nil {
			return err
		}
	}
	return nil
}

func parentOf(p string) string { return p[:max(0, strings.LastIndexByte(p, '/'))] }

func applyOp(ctx context.Context, ws *vfs.Workspace, o Op, iter int) error {
	var data []byte
	if o.Op.Op == "write" {
		text := ""
		if len(o.Content) > 0 {
			v, err := replay.ParseOrdered(o.Content)
			if err != nil {
				return err
			}
			if text, err = replay.ExpandString(v, iter); err != nil {
				return err
			}
		}
		var err error
		if data, err = replay.DecodeContent(text, o.Encoding); err != nil {
			return err
		}
	}
	return replay.Setup(ctx, ws, o.Op, data)
}

func runCase(ctx context.Context, c Case, opts Options, emit func(Row)) error {
	clock := int64(fixedClock)
	if c.Clock != nil {
		clock = *c.Clock
	}
	if opts.Store == SystemStore && !slices.ContainsFunc(c.Calls, func(call Call) bool { return slices.Contains(systemTools, call.Tool) }) {
		return nil // nothing the system side runs: no tree to build
	}
	ws, hostDir, closeWS, err := newWorkspace(ctx, &opts, func() time.Time { return time.UnixMilli(clock) })
	if err != nil {
		return err
	}
	defer closeWS()
	t0 := time.Now()
	if err := applyOps(ctx, ws, c.Setup, 0); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	setupMs := float64(time.Since(t0).Microseconds()) / 1000
	toolOpts, scripts, err := toolOptions(c)
	if err != nil {
		return err
	}
	tools, err := raw.New(ws, toolOpts)
	if err != nil {
		return err
	}
	for i, call := range c.Calls {
		if call.Label == "" {
			call.Label = fmt.Sprintf("%s#%d", call.Tool, i+1)
		}
		if opts.Labels != nil && !opts.Labels[call.Label] {
			continue
		}
		var r Row
		if opts.Store == SystemStore {
			var ran bool
			r, ran, err = runSystemRow(ctx, c, call, hostDir, func(ops []Op, it int) error { return applyOps(ctx, ws, ops, it) }, opts)
			if !ran {
				continue
			}
		} else {
			r, err = runRow(ctx, c, call, tools.Executor(), scripts, opts)
		}
		if err != nil {
			r.Error, r.OK = err.Error(), false
		}
		r.Store, r.SetupMs, r.RSSMB = opts.Store, round(setupMs), rssMB()
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "  %s: median %s p90 %s %s\n", r.Workload, fmtUs(r.Us.Median), fmtUs(r.Us.P90), okText(r))
		}
		emit(r)
	}
	return nil
}

type callResult struct {
	out         toolspec.Output
	modelBytes  int
	callUs      float64
	outputUs    float64
	preliminary int
	rec         *core.CallRecord
}

// timedCall is one tool call, timed. rec asks for the tool's own result
// object (for the expect check); the bench sets it only on the first
// call of a row, a warm-up unless the row has none.
func timedCall(ctx context.Context, ex *core.Executor, tool string, args []byte, script *execbackend.Script, scripts *execbackend.Scripts, rec bool, profiled bool) (callResult, error) {
	var r callResult
	if script != nil {
		scripts.Queue(*script)
		defer scripts.Clear()
	}
	if rec {
		r.rec = &core.CallRecord{}
		ctx = core.WithCallRecord(ctx, r.rec)
	}
	if tool == toolspec.ToolExec {
		// The reference drains exec's preliminary snapshots; so does a
		// streaming adapter here.
		ctx = core.WithSnapshots(ctx, func(toolspec.Output) { r.preliminary++ })
	}
	var err error
	do := func(ctx context.Context) {
		t0 := time.Now()
		r.out, err = ex.Call(ctx, tool, args)
		t1 := time.Now()
		model := raw.ModelOutput(r.out)
		t2 := time.Now()
		r.modelBytes = len(model)
		r.callUs, r.outputUs = us(t1.Sub(t0)), us(t2.Sub(t1))
	}
	if profiled {
		// CPU profiles tell the timed calls apart by this label
		// (go tool pprof -tagfocus=phase=timed).
		pprof.Do(ctx, pprof.Labels("phase", "timed"), do)
	} else {
		do(ctx)
	}
	return r, err
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// iterations are a row's warm-ups and timed iterations: the call's, else
// the case's, else 20 and 2; repeat scaled, at least 1.
func iterations(c Case, call Call, opts Options) (repeat, warmup int) {
	if opts.Once {
		return 1, 0
	}
	repeat, warmup = 20, 2
	if c.Repeat != nil {
		repeat = *c.Repeat
	}
	if call.Repeat != nil {
		repeat = *call.Repeat
	}
	if c.Warmup != nil {
		warmup = *c.Warmup
	}
	if call.Warmup != nil {
		warmup = *call.Warmup
	}
	return max(1, int(float64(repeat)*opts.scale()+0.5)), warmup
}

func runRow(ctx context.Context, c Case, call Call, ex *core.Executor, scripts *execbackend.Scripts, opts Options) (Row, error) {
	r := Row{Workload: c.Name + "/" + call.Label, Case: c.Name, Label: call.Label, Kind: "tool", Tool: call.Tool}
	r.Repeat, r.Warmup = iterations(c, call, opts)
	argsV, err := replay.ParseOrdered(call.Args)
	if err != nil {
		return r, err
	}
	if argsV == nil {
		argsV = replay.Object{}
	}
	script, scriptStdout, err := parseScript(call.Script)
	if err != nil {
		return r, err
	}
	iterArgs := replay.UsesIter(argsV)
	fixed, err := replay.Expand(argsV, 0)
	if err != nil {
		return r, err
	}
	maxFollow := call.MaxFollow
	if maxFollow == 0 {
		maxFollow = 10000
	}
	var totals, perCall, callPh, outPh []float64
	var trips, timedCalls int64
	var first *callResult
	var firstArgs any
	var chains []float64
	for it := range r.Warmup + r.Repeat {
		if err := applyOps(ctx, ex.Workspace(), call.Each, it); err != nil {
			return r, fmt.Errorf("each: %w", err)
		}
		args := fixed
		if iterArgs {
			if args, err = replay.Expand(argsV, it); err != nil {
				return r, err
			}
		}
		timed := it >= r.Warmup
		chainUs, calls, mb := 0.0, 0, 0
		for step := args; step != nil && calls < maxFollow; {
			var before int64
			if opts.trips != nil {
				before = opts.trips()
			}
			res, err := timedCall(ctx, ex, call.Tool, replay.EncodeOrdered(step), script, scripts, first == nil, timed)
			if err != nil {
				return r, err
			}
			if opts.trips != nil && timed {
				trips, timedCalls = trips+opts.trips()-before, timedCalls+1
			}
			if first == nil {
				first, firstArgs = &res, step
			}
			calls++
			chainUs += res.callUs + res.outputUs
			mb += res.modelBytes
			if timed {
				perCall = append(perCall, res.callUs+res.outputUs)
				callPh = append(callPh, res.callUs)
				outPh = append(outPh, res.outputUs)
			}
			if !call.Follow {
				break
			}
			step = nextArgs(step.(replay.Object), res.out)
		}
		if timed {
			totals = append(totals, chainUs)
			chains = append(chains, float64(calls))
		}
		r.ModelBytes = mb
	}
	r.Us = statsOf(totals)
	if timedCalls > 0 {
		r.RoundTrips = float64(trips) / float64(timedCalls)
	}
	r.CallsPerIter = 1
	if call.Follow {
		s := statsOf(perCall)
		r.PerCallUs = &s
		r.CallsPerIter = int(statsOf(chains).Mean + 0.5)
	} else {
		r.ModelBytes = first.modelBytes
	}
	r.Phase = map[string]float64{"validateExecute": statsOf(callPh).Median, "output": statsOf(outPh).Median}
	r.Preliminary = first.preliminary
	if r.Bytes, err = resolveBytes(ctx, ex.Workspace(), call.Bytes, firstArgs, scriptStdout); err != nil {
		return r, err
	}
	if r.Bytes != nil && r.Us.Median > 0 {
		r.MBPerSec = round(float64(*r.Bytes) / 1048576 / (r.Us.Median / 1e6))
	}
	r.OK, r.Why = checkExpect(call.Expect, first)
	r.Result = resultSummary(first)
	return r, nil
}

// nextArgs continues a paged call: offset / byteOffset from the output's
// nextOffset / nextByteOffset, nil when it has neither.
func nextArgs(args replay.Object, out toolspec.Output) any {
	if out.Kind != toolspec.OutputJSON {
		return nil
	}
	var next struct {
		NextOffset     *json.Number `json:"nextOffset"`
		NextByteOffset *json.Number `json:"nextByteOffset"`
	}
	if json.Unmarshal(out.JSON, &next) != nil || (next.NextOffset == nil && next.NextByteOffset == nil) {
		return nil
	}
	if next.NextOffset != nil {
		args = args.With("offset", *next.NextOffset)
	}
	if next.NextByteOffset != nil {
		args = args.With("byteOffset", *next.NextByteOffset)
	}
	return args
}

// checkExpect compares the first call's result object with the expect
// keys: a value (compared as JSON text), {"$has": bool}, {"$contains":
// text}. It gives false and why on the first key that differs.
func checkExpect(rawExpect json.RawMessage, first *callResult) (bool, string) {
	if len(rawExpect) == 0 {
		return true, ""
	}
	if first.rec.Thrown != nil {
		return false, "threw: " + first.rec.Thrown.Error()
	}
	if first.rec.Output == nil {
		return false, "no result object; model sees " + string(first.out.Kind) + ": " + first.out.Text
	}
	want, err := replay.ParseOrdered(rawExpect)
	if err != nil {
		return false, "bad expect: " + err.Error()
	}
	wantObj, ok := want.(replay.Object)
	if !ok {
		return false, "expect is not an object"
	}
	gotV, _ := replay.ParseOrdered(first.rec.Output)
	got, ok := gotV.(replay.Object)
	if !ok {
		return false, "output is not an object"
	}
	for _, m := range wantObj {
		g, present := got.Get(m.Key)
		spec, _ := m.Val.(replay.Object)
		if has, ok := spec.Get("$has"); ok {
			if present != (has == true) {
				return false, fmt.Sprintf("%s presence != %v", m.Key, has)
			}
		} else if sub, ok := spec.Get("$contains"); ok {
			s, _ := g.(string)
			subS, _ := sub.(string)
			if !strings.Contains(s, subS) {
				return false, fmt.Sprintf("%s lacks %q", m.Key, subS)
			}
		} else if !present || !bytes.Equal(replay.EncodeOrdered(g), replay.EncodeOrdered(m.Val)) {
			return false, fmt.Sprintf("%s: got %.80s, want %s", m.Key, replay.EncodeOrdered(g), replay.EncodeOrdered(m.Val))
		}
	}
	return true, ""
}

// resultSummary is bench.mjs's "result": the first call's result object
// with long strings cut, or {"thrown": message}.
func resultSummary(first *callResult) json.RawMessage {
	switch {
	case first == nil || first.rec == nil:
		return nil
	case first.rec.Thrown != nil:
		return replay.EncodeOrdered(replay.Object{{Key: "thrown", Val: first.rec.Thrown.Error()}})
	case first.rec.Output == nil:
		return nil
	}
	v, err := replay.ParseOrdered(first.rec.Output)
	if err != nil {
		return nil
	}
	return replay.EncodeOrdered(summarize(v, 0))
}

func resolveBytes(ctx context.Context, ws *vfs.Workspace, spec json.RawMessage, args any, scriptStdout string) (*int64, error) {
	if len(spec) == 0 {
		return nil, nil
	}
	var n int64
	if json.Unmarshal(spec, &n) == nil {
		return &n, nil
	}
	var s struct{ File, Tree, Arg, Script string }
	if err := json.Unmarshal(spec, &s); err != nil {
		return nil, err
	}
	switch {
	case s.File != "":
		info, err := ws.Stat(ctx, s.File)
		if err != nil {
			return nil, err
		}
		n = info.Size
	case s.Tree != "":
		var err error
		if n, err = treeSize(ctx, ws, s.Tree); err != nil {
			return nil, err
		}
	case s.Arg != "":
		obj, _ := args.(replay.Object)
		v, _ := obj.Get(s.Arg)
		str, _ := v.(string)
		n = int64(len(str))
	case s.Script != "":
		n = int64(len(scriptStdout))
	default:
		return nil, fmt.Errorf("bad bytes spec %s", spec)
	}
	return &n, nil
}

func treeSize(ctx context.Context, ws *vfs.Workspace, dir string) (int64, error) {
	entries, err := ws.ReadDir(ctx, dir, 0, -1)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range entries {
		switch e.Type {
		case vfs.TypeFile:
			total += e.Size
		case vfs.TypeDir:
			n, err := treeSize(ctx, ws, dir+"/"+e.Name)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := float64(len(sorted)-1) * q
	lo, hi := int(pos), min(int(pos)+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

func statsOf(samples []float64) Stats {
	s := slices.Sorted(slices.Values(samples))
	if len(s) == 0 {
		return Stats{}
	}
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Stats{N: len(s), Median: round(quantile(s, 0.5)), P90: round(quantile(s, 0.9)), Min: round(s[0]), Max: round(s[len(s)-1]), Mean: round(sum / float64(len(s)))}
}

func round(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

// rssMB is the process's resident set now (/proc/self/statm; 0 where
// there is none).
func rssMB() int {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(fields[1], 10, 64)
	return int(pages * int64(os.Getpagesize()) >> 20)
}

func fmtUs(x float64) string {
	switch {
	case x >= 100000:
		return fmt.Sprintf("%.0fms", x/1000)
	case x >= 10000:
		return fmt.Sprintf("%.1fms", x/1000)
	}
	return fmt.Sprintf("%.0fus", x)
}

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20))
	case b >= 1024:
		return fmt.Sprintf("%.0fKiB", float64(b)/1024)
	}
	return fmt.Sprintf("%dB", b)
}

func okText(r Row) string {
	if r.OK {
		return "ok"
	}
	return "FAIL " + r.Why + r.Error
}

// PrintTable writes rows as bench.mjs's stderr table: one aligned line
// per row (median, p90, per-call median, phases, MB/s, model bytes, ok),
// and round trips per call when the rows count them (pgfs).
func PrintTable(w io.Writer, rows []Row) {
	head := []string{"workload", "n", "calls", "median", "p90", "per_call", "call", "output", "MB/s", "model_out", "ok"}
	trips := slices.ContainsFunc(rows, func(r Row) bool { return r.RoundTrips > 0 })
	if trips {
		head = slices.Insert(head, len(head)-1, "trips")
	}
	t := [][]string{head}
	for _, r := range rows {
		perCall, mbps := "-", "-"
		if r.PerCallUs != nil {
			perCall = fmtUs(r.PerCallUs.Median)
		}
		if r.Bytes != nil {
			mbps = strconv.FormatFloat(r.MBPerSec, 'f', -1, 64)
		}
		line := []string{r.Workload, strconv.Itoa(r.Repeat), strconv.Itoa(r.CallsPerIter), fmtUs(r.Us.Median), fmtUs(r.Us.P90),
			perCall, fmtUs(r.Phase["validateExecute"]), fmtUs(r.Phase["output"]), mbps,
			fmtBytes(int64(r.ModelBytes))}
		if trips {
			line = append(line, strconv.FormatFloat(r.RoundTrips, 'f', -1, 64))
		}
		t = append(t, append(line, okText(r)))
	}
	writeTable(w, t)
}

// writeTable aligns cells: the first and last columns left, others right.
func writeTable(w io.Writer, t [][]string) {
	widths := make([]int, len(t[0]))
	for _, line := range t {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, line := range t {
		var b strings.Builder
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 || i == len(line)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
			b.WriteString("  ")
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
