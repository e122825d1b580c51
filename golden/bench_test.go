package golden_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/agenttools/agenttools/internal/bench"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// The bench's cases (a copy of the oracle's cases/bench.json) and the
// reference's rows for them, recorded once in the oracle directory with
//
//	node bench.mjs --no-fs --scale 0.05 cases/bench.json > bench-ref.jsonl
//
// (the scale shortens the timing only; answers and byte counts do not
// depend on it).
const (
	benchCases = "testdata/bench/bench.json"
	benchRef   = "testdata/bench/bench-ref.jsonl"
)

// TestBenchSmoke runs every row of the bench once (one iteration, no
// warm-up, nothing timed or asserted about time) on each store and
// checks the answers as the side-by-side table does: the row's expect
// keys hold, the model is sent as many bytes as by the reference (plus
// a declared deviation's), a paged row takes as many calls; and the
// first call's result object, as bench.mjs summarizes it, is the
// reference's. The cases
// build big data (a 6 MB file, 2000 files of 13.8 MiB in all, a tree of
// 1000 files rebuilt per iteration): -short runs memfs only. Host trees
// and databases go to /dev/shm where there is one: the test is about
// answers, and fsync on a shared disk would make it ten times slower.
func TestBenchSmoke(t *testing.T) {
	cases, err := bench.LoadCases(benchCases)
	if err != nil {
		t.Fatal(err)
	}
	ref := readBenchRows(t, benchRef)
	if len(ref) < 20 {
		t.Fatalf("%s: %d rows", benchRef, len(ref))
	}
	for w, r := range ref {
		if !r.OK {
			t.Errorf("%s: the reference's own expect failed: %s", w, r.Why)
		}
	}
	if !slices.ContainsFunc(toolspec.Deviations, func(d toolspec.Deviation) bool { return d.Name == "editFuzzyMatch" }) {
		t.Error("bench.DeclaredByteDeviations allows edit-fuzzy's fuzzyMatch, but the spec no longer declares editFuzzyMatch")
	}
	stores := bench.Stores
	if testing.Short() {
		stores = []string{"memfs"}
	}
	for _, store := range stores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			var rows []bench.Row
			opts := bench.Options{Store: store, Tmp: fastTempDir(t), Once: true}
			if err := bench.Run(context.Background(), cases, opts, func(r bench.Row) { rows = append(rows, r) }); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, r := range rows {
				seen[r.Workload] = true
				want, ok := ref[r.Workload]
				switch {
				case r.Error != "":
					t.Errorf("%s: %s", r.Workload, r.Error)
				case !ok:
					t.Errorf("%s: the reference has no such row", r.Workload)
				case !r.OK:
					t.Errorf("%s: expect: %s", r.Workload, r.Why)
				case r.ModelBytes != want.ModelBytes+bench.DeclaredByteDeviations[r.Workload]:
					t.Errorf("%s: model output %d bytes, the reference's %d (declared extra: %d)", r.Workload, r.ModelBytes, want.ModelBytes, bench.DeclaredByteDeviations[r.Workload])
				case r.CallsPerIter != want.CallsPerIter:
					t.Errorf("%s: %d calls per iteration, the reference %d", r.Workload, r.CallsPerIter, want.CallsPerIter)
				case !sameResult(r, want):
					t.Errorf("%s: result summary\n%s\nthe reference's\n%s", r.Workload, r.Result, want.Result)
				}
			}
			for w := range ref {
				if !seen[w] {
					t.Errorf("%s: no row", w)
				}
			}
		})
	}
}

// sameResult compares the rows' result summaries as JSON values; where
// a declared deviation adds bytes, ours must hold "fuzzyMatch": true and
// be the reference's without it.
func sameResult(ours, ref bench.Row) bool {
	var a, b any
	if json.Unmarshal(ours.Result, &a) != nil || json.Unmarshal(ref.Result, &b) != nil {
		return false
	}
	if bench.DeclaredByteDeviations[ours.Workload] != 0 {
		obj, ok := a.(map[string]any)
		if !ok || obj["fuzzyMatch"] != true {
			return false
		}
		delete(obj, "fuzzyMatch")
	}
	return reflect.DeepEqual(a, b)
}

func readBenchRows(t *testing.T, path string) map[string]bench.Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]bench.Row{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r bench.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if r.Kind == "tool" {
			rows[r.Workload] = r
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// fastTempDir is a temporary directory in memory (/dev/shm) where the
// system has one, else t.TempDir(); removed at the end of the test.
func fastTempDir(t *testing.T) string {
	if dir, err := os.MkdirTemp("/dev/shm", "agenttools-bench-test-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return t.TempDir()
}
