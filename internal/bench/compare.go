package bench

// The side-by-side table from interleaved rounds. A run directory holds,
// for rounds N = 1, 2, ...: rN-ref.jsonl (bench.mjs --no-fs) and
// rN-BUILD-STORE.jsonl (BUILD bench -store STORE); the harness this
// package came from wrote rN-STORE.jsonl, read here as build "ours".
// Each cell is the median over rounds of the row's median; each ratio
// the median over rounds of that round's reference median ÷ ours (so > 1
// means we are faster), with its range.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Goals are the targets per store: reference time ÷ ours.
var Goals = map[string]float64{"memfs": 10, "sqlitefs": 5, "hostfs": 5}

// DeclaredByteDeviations are the rows whose model output is, by a
// declared deviation (docs/deviations.md), that many bytes longer than
// the reference's: edit's fuzzy match adds "fuzzyMatch":true.
var DeclaredByteDeviations = map[string]int{"edit-2mib/edit-fuzzy-curly-quotes-2MB": len(`,"fuzzyMatch":true`)}

// refSide names the reference's rows in a Set.
const refSide = "ref"

// Set is the rows of a run directory.
type Set struct {
	// Rounds are the round numbers found, ascending.
	Rounds []int
	// Builds are our builds, in the order of meta.json (else by name).
	Builds []string
	// Stores are the stores found, in Stores' order.
	Stores []string
	// Workloads are the tool rows, in the reference's order (then ours).
	Workloads []string
	rows      map[int]map[string]map[string]Row // round, side ("ref" or BUILD/STORE), workload
	meta      Meta
}

// Meta is what a run directory's meta.json records about the run.
type Meta struct {
	Rounds int      `json:"rounds"`
	Builds []Build  `json:"builds"`
	Stores []string `json:"stores"`
	Cases  string   `json:"cases"`
	Ref    string   `json:"ref,omitempty"`
	Scale  float64  `json:"scale,omitempty"`
	Start  string   `json:"start"`
	End    string   `json:"end,omitempty"`
}

var roundFile = regexp.MustCompile(`^r(\d+)-(?:([A-Za-z0-9_.]+)-)?(ref|system|memfs|sqlitefs|hostfs|pgfs)\.jsonl$`)

// ReadSet reads a run directory. The error is a directory that cannot be
// read or holds no round files.
func ReadSet(dir string) (*Set, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	s := &Set{rows: map[int]map[string]map[string]Row{}}
	if data, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		if err := json.Unmarshal(data, &s.meta); err != nil {
			return nil, fmt.Errorf("meta.json: %w", err)
		}
	}
	builds, stores := map[string]bool{}, map[string]bool{}
	var oursOrder []string
	for _, e := range entries {
		m := roundFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		side := refSide
		switch {
		case (m[3] == refSide || m[3] == SystemStore) && m[2] != "":
			continue
		case m[3] == SystemStore:
			side = SystemStore
		case m[3] != refSide:
			build := m[2]
			if build == "" {
				build = "ours"
			}
			builds[build], stores[m[3]] = true, true
			side = build + "/" + m[3]
		}
		rows, err := readRows(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if s.rows[n] == nil {
			s.rows[n] = map[string]map[string]Row{}
			s.Rounds = append(s.Rounds, n)
		}
		s.rows[n][side] = map[string]Row{}
		for _, r := range rows {
			if r.Kind != "tool" && r.Error == "" {
				continue // the reference's raw fs rows
			}
			s.rows[n][side][r.Workload] = r
			if side == SystemStore {
				continue // joined to hostfs's rows, never a row of its own
			}
			if side == refSide {
				if !slices.Contains(s.Workloads, r.Workload) {
					s.Workloads = append(s.Workloads, r.Workload)
				}
			} else if !slices.Contains(oursOrder, r.Workload) {
				oursOrder = append(oursOrder, r.Workload)
			}
		}
	}
	if len(s.Rounds) == 0 {
		return nil, fmt.Errorf("%s: no rN-*.jsonl files", dir)
	}
	slices.Sort(s.Rounds)
	for _, w := range oursOrder {
		if !slices.Contains(s.Workloads, w) {
			s.Workloads = append(s.Workloads, w)
		}
	}
	for _, b := range s.meta.Builds {
		if builds[b.Name] {
			s.Builds = append(s.Builds, b.Name)
		}
	}
	for _, b := range slices.Sorted(maps.Keys(builds)) {
		if !slices.Contains(s.Builds, b) {
			s.Builds = append(s.Builds, b)
		}
	}
	for _, st := range append(slices.Clip(Stores), PgStore) {
		if stores[st] {
			s.Stores = append(s.Stores, st)
		}
	}
	return s, nil
}

func readRows(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r Row
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Workload != "" {
			rows = append(rows, r)
		}
	}
	return rows, sc.Err()
}

// Ratio is a row's ratio over rounds: the median and range of the
// per-round ratios, and the median of our per-round times (µs).
type Ratio struct {
	Median, Min, Max float64
	OursUs           float64
	N                int
}

// ratio is, over the rounds that have both, num's median ÷ den's median.
func (s *Set) ratio(num, den, workload string) (Ratio, bool) {
	var ratios, dens []float64
	for _, n := range s.Rounds {
		a, okA := s.rows[n][num][workload]
		b, okB := s.rows[n][den][workload]
		if !okA || !okB || a.Us.Median <= 0 || b.Us.Median <= 0 {
			continue
		}
		ratios = append(ratios, a.Us.Median/b.Us.Median)
		dens = append(dens, b.Us.Median)
	}
	if len(ratios) == 0 {
		return Ratio{}, false
	}
	return Ratio{Median: median(ratios), Min: slices.Min(ratios), Max: slices.Max(ratios), OursUs: median(dens), N: len(ratios)}, true
}

func (s *Set) medianUs(side, workload string) (float64, bool) {
	var us []float64
	for _, n := range s.Rounds {
		if r, ok := s.rows[n][side][workload]; ok && r.Us.Median > 0 {
			us = append(us, r.Us.Median)
		}
	}
	if len(us) == 0 {
		return 0, false
	}
	return median(us), true
}

func (s *Set) hasRef() bool {
	for _, n := range s.Rounds {
		if len(s.rows[n][refSide]) > 0 {
			return true
		}
	}
	return false
}

// column names a build's store; the build is left out when there is one.
func (s *Set) column(build, store string) string {
	if len(s.Builds) == 1 {
		return store
	}
	return store + " " + build
}

// Markdown writes the side-by-side table: per workload, the reference's
// time and, per store and build, ours and reference ÷ ours, marked ✗
// below goals[store]; a "same answer?" column; the geometric mean per
// store and build; and, with more than one build, how each build
// compares with the first (first's time ÷ its time).
func (s *Set) Markdown(w io.Writer, goals map[string]float64) {
	ref := s.hasRef()
	fmt.Fprintf(w, "Rounds: %d. Cells: median over rounds of each row's median (µs per iteration; a whole chain for paged rows).", len(s.Rounds))
	if ref {
		var g []string
		for _, st := range s.Stores {
			if goals[st] > 0 {
				g = append(g, fmt.Sprintf("%s ≥ %g×", st, goals[st]))
			}
		}
		fmt.Fprintf(w, " Ratio: median over rounds of reference ÷ ours per round (range in brackets); > 1 means agenttools is faster; ✗ below the goal (%s).", strings.Join(g, ", "))
	}
	fmt.Fprint(w, "\n\n")
	head := []string{"workload"}
	align := []string{"---"}
	if ref {
		head, align = append(head, "reference µs"), append(align, "---:")
	}
	for _, st := range s.Stores {
		for _, b := range s.Builds {
			head, align = append(head, s.column(b, st)+" µs"), append(align, "---:")
			if ref {
				head, align = append(head, "ref/"+s.column(b, st)), append(align, "---:")
			}
		}
	}
	head, align = append(head, "same answer?"), append(align, "---")
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Join(align, "|")+"|")
	geo := map[string][]float64{}
	below := map[string]int{}
	for _, wl := range s.Workloads {
		cells := []string{wl}
		if ref {
			us, ok := s.medianUs(refSide, wl)
			cells = append(cells, fmtCellOK(us, ok))
		}
		for _, st := range s.Stores {
			for _, b := range s.Builds {
				side := b + "/" + st
				us, ok := s.medianUs(side, wl)
				cells = append(cells, fmtCellOK(us, ok))
				if !ref {
					continue
				}
				r, ok := s.ratio(refSide, side, wl)
				if !ok {
					cells = append(cells, "-")
					continue
				}
				geo[side] = append(geo[side], r.Median)
				mark := ""
				if goal := goals[st]; goal > 0 && r.Median < goal {
					mark = " ✗"
					below[side]++
				}
				cells = append(cells, fmt.Sprintf("**%s** (%s–%s)%s", fmtRatio(r.Median), fmtRatio(r.Min), fmtRatio(r.Max), mark))
			}
		}
		cells = append(cells, s.sameAnswer(wl))
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	if ref {
		fmt.Fprintln(w)
		for _, st := range s.Stores {
			for _, b := range s.Builds {
				side := b + "/" + st
				if len(geo[side]) == 0 {
					continue
				}
				fmt.Fprintf(w, "- %s: geometric mean of ratios %s×; %d of %d rows below the goal of %g×\n",
					s.column(b, st), fmtRatio(geomean(geo[side])), below[side], len(geo[side]), goals[st])
			}
		}
	}
	if len(s.Builds) > 1 {
		s.buildsTable(w)
	}
	s.systemTable(w)
}

// systemTable sets hostfs against the system's own calls (system.go),
// for the rows both have: the median over rounds of hostfs µs ÷ system
// µs per round (< 1: hostfs is faster), marked ✗ above SystemGoal.
func (s *Set) systemTable(w io.Writer) {
	if !slices.Contains(s.Stores, "hostfs") {
		return
	}
	var rows []string
	for _, wl := range s.Workloads {
		sys, ok := s.medianUs(SystemStore, wl)
		if !ok {
			continue
		}
		cells := []string{wl, fmtCellOK(sys, true)}
		for _, b := range s.Builds {
			r, ok := s.ratio(b+"/hostfs", SystemStore, wl)
			if !ok {
				cells = append(cells, "-")
				continue
			}
			mark := ""
			if r.Median > SystemGoal {
				mark = " ✗"
			}
			cells = append(cells, fmt.Sprintf("**%s** (%s–%s)%s", fmtRatio(r.Median), fmtRatio(r.Min), fmtRatio(r.Max), mark))
		}
		rows = append(rows, "| "+strings.Join(cells, " | ")+" |")
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nhostfs against the system's own calls for the same result (getdents, sort and lstat of the page; os.RemoveAll; write, fsync and rename; find: a sorted getdents walk matching names): median over rounds of hostfs µs ÷ system µs per round (range in brackets); < 1 means hostfs is faster; ✗ above %g×.\n\n", SystemGoal)
	head := []string{"workload", "system µs"}
	align := []string{"---", "---:"}
	for _, b := range s.Builds {
		head, align = append(head, s.column(b, "hostfs")+" ÷ system"), append(align, "---:")
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Join(align, "|")+"|")
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
}

// buildsTable compares every build with the first, per store: the
// median over rounds of the first build's time ÷ this build's (> 1: this
// build is faster), with its range.
func (s *Set) buildsTable(w io.Writer) {
	base := s.Builds[0]
	fmt.Fprintf(w, "\nBuilds against %s: median over rounds of %s µs ÷ this build's µs per round (range in brackets); > 1 means this build is faster.\n\n", base, base)
	head := []string{"workload"}
	align := []string{"---"}
	for _, st := range s.Stores {
		for _, b := range s.Builds[1:] {
			head, align = append(head, fmt.Sprintf("%s %s/%s", st, base, b)), append(align, "---:")
		}
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Join(align, "|")+"|")
	geo := map[string][]float64{}
	for _, wl := range s.Workloads {
		cells := []string{wl}
		for _, st := range s.Stores {
			for _, b := range s.Builds[1:] {
				r, ok := s.ratio(base+"/"+st, b+"/"+st, wl)
				if !ok {
					cells = append(cells, "-")
					continue
				}
				geo[b+"/"+st] = append(geo[b+"/"+st], r.Median)
				cells = append(cells, fmt.Sprintf("**%s** (%s–%s)", fmtRatio(r.Median), fmtRatio(r.Min), fmtRatio(r.Max)))
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	fmt.Fprintln(w)
	for _, st := range s.Stores {
		for _, b := range s.Builds[1:] {
			if xs := geo[b+"/"+st]; len(xs) > 0 {
				fmt.Fprintf(w, "- %s, %s against %s: geometric mean %s×\n", st, b, base, fmtRatio(geomean(xs)))
			}
		}
	}
}

// sameAnswer lists, over all rounds, what differs between the reference's
// answer and each of ours: the expect check, the bytes the model is sent
// (a declared deviation is named as such), the calls in a chain. Without
// reference rows only our own failures are listed.
func (s *Set) sameAnswer(workload string) string {
	var notes []string
	for _, n := range s.Rounds {
		ref, okRef := s.rows[n][refSide][workload]
		if okRef && !ref.OK {
			notes = append(notes, "ref FAIL "+ref.Why+ref.Error)
		}
		for _, st := range s.Stores {
			for _, b := range s.Builds {
				ours, ok := s.rows[n][b+"/"+st][workload]
				if !ok {
					continue
				}
				name := s.column(b, st)
				if !ours.OK {
					notes = append(notes, name+" FAIL "+ours.Why+ours.Error)
				}
				if !okRef {
					continue
				}
				if d := ours.ModelBytes - ref.ModelBytes; d != 0 {
					if d == DeclaredByteDeviations[workload] {
						notes = append(notes, fmt.Sprintf("+%d bytes, declared", d))
					} else {
						notes = append(notes, fmt.Sprintf("%s model bytes %d vs ref %d", name, ours.ModelBytes, ref.ModelBytes))
					}
				}
				if ref.CallsPerIter != ours.CallsPerIter {
					notes = append(notes, fmt.Sprintf("%s %d calls vs ref %d", name, ours.CallsPerIter, ref.CallsPerIter))
				}
			}
		}
	}
	slices.Sort(notes)
	notes = slices.Compact(notes)
	if len(notes) == 0 {
		return "✓"
	}
	return strings.Join(notes, "; ")
}

func geomean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

func median(xs []float64) float64 {
	return quantile(slices.Sorted(slices.Values(xs)), 0.5)
}

func fmtCellOK(us float64, ok bool) string {
	switch {
	case !ok:
		return "-"
	case us >= 100:
		return fmt.Sprintf("%.0f", us)
	}
	return fmt.Sprintf("%.1f", us)
}

func fmtRatio(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0f", x)
	case x >= 1:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
