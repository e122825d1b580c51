package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/pgtest"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// fakeEnv makes the test binary a build of ours for RunRounds: it
// answers `bench -store STORE CASES` with canned rows (see fakeBench).
const fakeEnv = "AGENTTOOLS_BENCH_FAKE"

func TestMain(m *testing.M) {
	if speed := os.Getenv(fakeEnv); speed != "" {
		os.Exit(fakeBench(speed, os.Args[1:]))
	}
	pgtest.Main(m)
}

// fakeBench prints two rows whose times are 1000 µs ÷ speed (memfs) or
// 2000 µs ÷ speed (other stores), and logs its name and arguments to
// $AGENTTOOLS_BENCH_LOG.
func fakeBench(speed string, args []string) int {
	if len(args) < 4 || args[0] != "bench" || args[1] != "-store" {
		fmt.Fprintln(os.Stderr, "fake bench: bad arguments", args)
		return 2
	}
	f, err := os.OpenFile(os.Getenv("AGENTTOOLS_BENCH_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return 1
	}
	fmt.Fprintln(f, filepath.Base(os.Args[0]), strings.Join(args, " "))
	f.Close()
	x, _ := strconv.ParseFloat(speed, 64)
	base := 1000.0
	if args[2] != "memfs" {
		base = 2000
	}
	fmt.Println(`{"bench":"agenttools"}`)
	for _, w := range []string{"c/a", "c/b"} {
		line, _ := json.Marshal(Row{Workload: w, Case: "c", Kind: "tool", Us: Stats{Median: base / x}, ModelBytes: 10, OK: true, CallsPerIter: 1})
		fmt.Println(string(line))
	}
	return 0
}

// TestRunRounds runs two builds through interleaved rounds without a reference: each is called
// as BIN bench -store STORE ... CASES, in an order that rotates per
// round, and the table compares them.
func TestRunRounds(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Two builds: a copy of the test binary (another path, as an older
	// build would be) and the test binary; both answer as fakeBench.
	slow := filepath.Join(dir, "old.exe")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(slow, data, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.log")
	t.Setenv(fakeEnv, "1")
	t.Setenv("AGENTTOOLS_BENCH_LOG", log)
	cases := filepath.Join(dir, "cases.json")
	if err := os.WriteFile(cases, []byte(`[]`), 0o644); err != nil {
		t.Fatal(err)
	}
	builds, err := ParseBuilds("old=" + slow + ",new=" + self)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	var table bytes.Buffer
	err = RunRounds(context.Background(), RoundsOptions{Builds: builds, Stores: []string{"memfs", "hostfs"}, Rounds: 2, Cases: cases, Out: out, Scale: 0.5, Only: []string{"c"}}, &table)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// Round 1 runs old first, round 2 new first (the test binary's name).
	newName := filepath.Base(self)
	args := func(store string) string { return " bench -store " + store + " -scale 0.5 -case c " + cases }
	want := []string{
		"old.exe" + args("memfs"), newName + args("memfs"), "old.exe" + args("hostfs"), newName + args("hostfs"),
		newName + args("memfs"), "old.exe" + args("memfs"), newName + args("hostfs"), "old.exe" + args("hostfs"),
	}
	if got := strings.Split(strings.TrimSpace(string(calls)), "\n"); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"r1-old-memfs.jsonl", "r1-new-memfs.jsonl", "r2-old-hostfs.jsonl", "r2-new-hostfs.txt", "meta.json", "table.md", "loadavg.log"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	for _, s := range []string{"| workload | memfs old µs | memfs new µs | hostfs old µs | hostfs new µs | same answer? |", "| c/a | 1000 | 1000 | 2000 | 2000 | ✓ |", "| workload | memfs old/new | hostfs old/new |", "| c/b | **1.0** (1.0–1.0) | **1.0** (1.0–1.0) |"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, table.String())
		}
	}
}

// writeRows writes a round file of tool rows: workload → median µs.
func writeRows(t *testing.T, path string, rows map[string]float64, edit func(*Row)) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"bench":"x"}` + "\n")
	for _, w := range slices.Sorted(maps.Keys(rows)) {
		r := Row{Workload: w, Kind: "tool", Us: Stats{Median: rows[w]}, ModelBytes: 100, CallsPerIter: 1, OK: true}
		if edit != nil {
			edit(&r)
		}
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMarkdown: ratios are medians of per-round ratios with their range,
// rows below a store's goal are marked, the geometric mean is per store,
// a declared byte deviation is named and another difference reported;
// the old harness's file names (rN-STORE.jsonl) read as build "ours".
func TestMarkdown(t *testing.T) {
	dir := t.TempDir()
	fuzzy := "edit-2mib/edit-fuzzy-curly-quotes-2MB"
	for r, refUs := range []float64{1000, 2000, 3000} {
		n := r + 1
		writeRows(t, filepath.Join(dir, fmt.Sprintf("r%d-ref.jsonl", n)), map[string]float64{"c/fast": refUs, "c/slow": 100, fuzzy: 500}, nil)
		writeRows(t, filepath.Join(dir, fmt.Sprintf("r%d-memfs.jsonl", n)), map[string]float64{"c/fast": 100, "c/slow": 200, fuzzy: 50}, func(r *Row) {
			if r.Workload == fuzzy {
				r.ModelBytes += DeclaredByteDeviations[fuzzy]
			}
			if r.Workload == "c/slow" && n == 2 {
				r.ModelBytes = 99
			}
		})
		writeRows(t, filepath.Join(dir, fmt.Sprintf("r%d-sqlitefs.jsonl", n)), map[string]float64{"c/fast": 100, "c/slow": 10, fuzzy: 50}, func(r *Row) {
			if r.Workload == fuzzy {
				r.ModelBytes += DeclaredByteDeviations[fuzzy]
			}
		})
	}
	_, got := tableOf(t, dir)
	for _, want := range []string{
		"| workload | reference µs | memfs µs | ref/memfs | sqlitefs µs | ref/sqlitefs | same answer? |",
		"| c/fast | 2000 | 100 | **20** (10–30) | 100 | **20** (10–30) | ✓ |",
		"| c/slow | 100 | 200 | **0.50** (0.50–0.50) ✗ | 10.0 | **10** (10–10) | memfs model bytes 99 vs ref 100 |",
		"| " + fuzzy + " | 500 | 50.0 | **10** (10–10) | 50.0 | **10** (10–10) | +18 bytes, declared |",
		"- memfs: geometric mean of ratios 4.6×; 1 of 3 rows below the goal of 10×",
		"- sqlitefs: geometric mean of ratios 13×; 0 of 3 rows below the goal of 5×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks\n%s\ngot:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Builds against") {
		t.Errorf("one build, yet a builds table:\n%s", got)
	}
}

func TestParseBuilds(t *testing.T) {
	self, _ := os.Executable()
	bs, err := ParseBuilds("a=self," + self)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].Name != "a" || bs[0].Path != self || bs[1].Name != "b2" {
		t.Errorf("%+v", bs)
	}
	for _, bad := range []string{"a-b=self", "a=self,a=self", "x=/no/such/binary"} {
		if _, err := ParseBuilds(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// tableOf reads the rounds in dir and gives their Markdown table, with
// the goals.
func tableOf(t *testing.T, dir string) (*Set, string) {
	t.Helper()
	s, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s.Markdown(&b, Goals)
	return s, b.String()
}
