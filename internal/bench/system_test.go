package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemSide runs store "system" on a small case: the listing rows
// page as ls does (a paged row takes as many listings as ls takes
// calls), the write leaves the content at the target, the delete removes
// the tree, find pages as find does (30 files, 4 a page: 8 walks), and a
// tool the system side has no calls for gives no row.
func TestSystemSide(t *testing.T) {
	caseJSON := `{"cases":[{"name":"sys","setup":[
	  {"op":"tree","path":"/workspace/flat","count":450,"file":"e{i}.txt","content":"x"},
	  {"op":"tree","path":"/workspace/del","count":30,"perDir":10,"dir":"d{d}","file":"f{i}.txt","content":"y"}],
	 "calls":[
	  {"label":"first","tool":"ls","args":{"path":"/workspace/flat"},"repeat":2,"warmup":0},
	  {"label":"all","tool":"ls","args":{"path":"/workspace/flat"},"follow":true,"repeat":2,"warmup":0},
	  {"label":"w","tool":"write","args":{"path":"/workspace/w.txt","content":"hello"},"repeat":2,"warmup":0},
	  {"label":"r","tool":"read","args":{"path":"/workspace/w.txt"},"repeat":1,"warmup":0},
	  {"label":"f1","tool":"find","args":{"path":"/workspace/del","pattern":"**/*.txt","limit":4},"repeat":1,"warmup":0},
	  {"label":"f","tool":"find","args":{"path":"/workspace/del","pattern":"**/*.txt","limit":4},"follow":true,"repeat":1,"warmup":0},
	  {"label":"f0","tool":"find","args":{"path":"/workspace/del","pattern":"**/*.none"},"follow":true,"repeat":1,"warmup":0},
	  {"label":"rm","tool":"delete","args":{"path":"/workspace/del","recursive":true},"repeat":1,"warmup":0}]}]}`
	path := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(path, []byte(caseJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := LoadCases(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	rows := map[string]Row{}
	// Look at the host tree before Run removes it: the delete row is last.
	var wrote []byte
	var delGone bool
	err = Run(context.Background(), cases, Options{Store: SystemStore, Tmp: tmp, Once: true}, func(r Row) {
		rows[r.Label] = r
		if r.Label == "rm" {
			dirs, _ := filepath.Glob(filepath.Join(tmp, "agenttools-bench-hostfs-*"))
			for _, d := range dirs {
				wrote, _ = os.ReadFile(filepath.Join(d, "w.txt"))
				_, err := os.Stat(filepath.Join(d, "del"))
				delGone = os.IsNotExist(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]int{"first": 1, "all": 3, "w": 1, "rm": 1, "f1": 1, "f": 8, "f0": 1} {
		r, ok := rows[label]
		switch {
		case !ok:
			t.Errorf("no row %s", label)
		case r.Error != "" || !r.OK:
			t.Errorf("row %s: %s", label, r.Error)
		case r.CallsPerIter != want:
			t.Errorf("row %s: %d calls, want %d", label, r.CallsPerIter, want)
		}
	}
	if _, ok := rows["r"]; ok {
		t.Errorf("a read row, which the system side does not run")
	}
	if string(wrote) != "hello" || !delGone {
		t.Errorf("after the rows: w.txt holds %q, del gone: %v", wrote, delGone)
	}
}

// TestSystemTable: hostfs's rows are set against the system's, marked
// above the goal, and the system's rows are no workload of their own.
func TestSystemTable(t *testing.T) {
	dir := t.TempDir()
	for n := 1; n <= 2; n++ {
		writeRows(t, filepath.Join(dir, fmt.Sprintf("r%d-ref.jsonl", n)), map[string]float64{"c/ls": 1000, "c/rm": 1000, "c/read": 1000}, nil)
		writeRows(t, filepath.Join(dir, fmt.Sprintf("r%d-hostfs.jsonl", n)), map[string]float64{"c/ls": 120, "c/rm": 400, "c/read": 10}, nil)
		writeRows(t, filepath.Join(dir, fmt.Sprintf("r%d-system.jsonl", n)), map[string]float64{"c/ls": 100, "c/rm": 100 * float64(n)}, nil)
	}
	s, got := tableOf(t, dir)
	for _, want := range []string{
		"| workload | system µs | hostfs ÷ system |",
		"| c/ls | 100 | **1.2** (1.2–1.2) |",
		"| c/rm | 150 | **3.0** (2.0–4.0) ✗ |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks\n%s\ngot:\n%s", want, got)
		}
	}
	if _, sys, _ := strings.Cut(got, "hostfs against the system"); strings.Contains(sys, "c/read") {
		t.Errorf("read has a system row:\n%s", got)
	}
	if len(s.Builds) != 1 || len(s.Stores) != 1 {
		t.Errorf("system read as a build or store: builds %v, stores %v", s.Builds, s.Stores)
	}
}
