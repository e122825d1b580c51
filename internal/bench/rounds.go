package bench

// Interleaved rounds: the reference (node bench.mjs --no-fs in an oracle
// directory), then every store with every build of ours, each a
// subprocess (BUILD bench -store STORE CASES), N times; /proc/loadavg
// sampled all along; then the table.

import (
	"bufio"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Build is one build of ours: a binary that answers
// `PATH bench -store STORE [-scale X] [-case A,B] [-tmp DIR] CASES.json`
// with JSONL rows (this package's command, or the harness it came from
// built against an older checkout).
type Build struct {
	// Name labels the build's columns and files: letters, digits, _ and .
	Name string `json:"name"`
	// Path is the binary.
	Path string `json:"path"`
	// Revision is the VCS revision the binary was built from, when it
	// says ("+modified" when the tree was not clean).
	Revision string `json:"revision,omitempty"`
}

var buildName = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

// ParseBuilds reads NAME=PATH pairs separated by commas; PATH "self" is
// the running executable. A lone PATH is named after its position
// (b1, b2, ...). The error is a bad name, a name used twice or a
// binary that does not exist.
func ParseBuilds(list string) ([]Build, error) {
	var out []Build
	for i, item := range strings.Split(list, ",") {
		name, path, ok := strings.Cut(item, "=")
		if !ok {
			name, path = fmt.Sprintf("b%d", i+1), item
		}
		if !buildName.MatchString(name) {
			return nil, fmt.Errorf("build name %q: use letters, digits, _ and dots", name)
		}
		if slices.ContainsFunc(out, func(b Build) bool { return b.Name == name }) {
			return nil, fmt.Errorf("build name %q given twice", name)
		}
		if path == "self" {
			self, err := os.Executable()
			if err != nil {
				return nil, err
			}
			path = self
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("build %s: %w", name, err)
		}
		out = append(out, Build{Name: name, Path: abs, Revision: revision(abs)})
	}
	return out, nil
}

// revision is the binary's vcs.revision (shortened), if it records one.
func revision(path string) string {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return ""
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" && modified {
		rev += "+modified"
	}
	return rev
}

// RoundsOptions say what RunRounds runs.
type RoundsOptions struct {
	// Ref is the oracle directory holding bench.mjs and its node_modules;
	// empty runs our builds only.
	Ref string
	// Node is the node binary ("node" when empty).
	Node string
	// Builds are ours, at least one.
	Builds []Build
	// Stores run for every build, in this order.
	Stores []string
	// Rounds is the number of rounds.
	Rounds int
	// Cases is the case file (made absolute).
	Cases string
	// Scale multiplies every repeat, on both sides (0: 1).
	Scale float64
	// Only keeps these cases (nil: all).
	Only []string
	// Tmp is passed to our builds as -tmp (empty: their default).
	Tmp string
	// System also runs, in every round after the stores, this binary's
	// `bench -store system` (rN-system.jsonl): the system's own calls for
	// the rows hostfs is held against.
	System bool
	// Out is the run directory: rN-*.jsonl, rN-*.txt (stderr),
	// loadavg.log, meta.json, table.md.
	Out string
	// LoadEvery is how often /proc/loadavg is sampled (0: 5 s).
	LoadEvery time.Duration
	// Goals mark the table's rows below them (nil: Goals).
	Goals map[string]float64
	// Log receives a line per step.
	Log io.Writer
}

// RunRounds runs opts.Rounds interleaved rounds and writes the table to
// Out/table.md and to w. In a round, the reference runs first, then each
// store with every build, the builds' order rotating from round to
// round so that no build always runs right after the reference. The
// error is a step that fails (its stderr is in Out/rN-*.txt).
func RunRounds(ctx context.Context, opts RoundsOptions, w io.Writer) error {
	if len(opts.Builds) == 0 {
		return fmt.Errorf("no build of ours to run")
	}
	if opts.Node == "" {
		opts.Node = "node"
	}
	if opts.Goals == nil {
		opts.Goals = Goals
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	var err error
	if opts.Cases, err = filepath.Abs(opts.Cases); err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return err
	}
	meta := Meta{Rounds: opts.Rounds, Builds: opts.Builds, Stores: opts.Stores, Cases: opts.Cases, Ref: opts.Ref, Scale: opts.Scale, Start: time.Now().UTC().Format(time.RFC3339)}
	if err := writeMeta(opts.Out, meta); err != nil {
		return err
	}
	stop := sampleLoad(filepath.Join(opts.Out, "loadavg.log"), opts.LoadEvery)
	defer stop()
	for r := 1; r <= opts.Rounds; r++ {
		if opts.Ref != "" {
			args := []string{"bench.mjs", "--no-fs"}
			if opts.Scale > 0 {
				args = append(args, "--scale", fmt.Sprint(opts.Scale))
			}
			for _, c := range opts.Only {
				args = append(args, "--case", c)
			}
			args = append(args, opts.Cases)
			if err := step(ctx, opts, r, "ref", opts.Ref, opts.Node, args); err != nil {
				return err
			}
		}
		k := (r - 1) % len(opts.Builds)
		order := append(slices.Clone(opts.Builds[k:]), opts.Builds[:k]...)
		for _, st := range opts.Stores {
			for _, b := range order {
				if err := step(ctx, opts, r, b.Name+"-"+st, "", b.Path, benchArgs(opts, st)); err != nil {
					return err
				}
			}
		}
		if opts.System {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if err := step(ctx, opts, r, SystemStore, "", self, benchArgs(opts, SystemStore)); err != nil {
				return err
			}
		}
	}
	stop()
	meta.End = time.Now().UTC().Format(time.RFC3339)
	if err := writeMeta(opts.Out, meta); err != nil {
		return err
	}
	return WriteTable(opts.Out, opts.Goals, w)
}

// benchArgs is the command line of one build's bench on store: the
// run's scale, cases and temporary directory.
func benchArgs(opts RoundsOptions, store string) []string {
	args := []string{"bench", "-store", store}
	if opts.Scale > 0 {
		args = append(args, "-scale", fmt.Sprint(opts.Scale))
	}
	if len(opts.Only) > 0 {
		args = append(args, "-case", strings.Join(opts.Only, ","))
	}
	if opts.Tmp != "" {
		args = append(args, "-tmp", opts.Tmp)
	}
	return append(args, opts.Cases)
}

// step runs one side of a round: stdout to rN-SIDE.jsonl, stderr to
// rN-SIDE.txt.
func step(ctx context.Context, opts RoundsOptions, round int, side, dir, bin string, args []string) error {
	base := filepath.Join(opts.Out, fmt.Sprintf("r%d-%s", round, side))
	fmt.Fprintf(opts.Log, "%s round %d: %s (load %s)\n", time.Now().Format("15:04:05"), round, side, loadNow())
	stdout, err := os.Create(base + ".jsonl")
	if err != nil {
		return err
	}
	defer stdout.Close()
	stderr, err := os.Create(base + ".txt")
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("round %d, %s: %s %s: %w (see %s.txt)", round, side, bin, strings.Join(args, " "), err, base)
	}
	return nil
}

func writeMeta(dir string, m Meta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), append(data, '\n'), 0o644)
}

// WriteTable renders dir's table (Markdown, with the builds and the load
// during the run) to dir/table.md and to w.
func WriteTable(dir string, goals map[string]float64, w io.Writer) error {
	s, err := ReadSet(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, bd := range s.meta.Builds {
		rev := ""
		if bd.Revision != "" {
			rev = " (" + bd.Revision + ")"
		}
		fmt.Fprintf(&b, "- build %s: %s%s\n", bd.Name, bd.Path, rev)
	}
	if s.meta.Start != "" {
		fmt.Fprintf(&b, "- run: %s to %s; cases %s\n", s.meta.Start, s.meta.End, s.meta.Cases)
	}
	if load := LoadSummary(filepath.Join(dir, "loadavg.log")); load != "" {
		fmt.Fprintf(&b, "- %s\n", load)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	s.Markdown(&b, goals)
	if err := os.WriteFile(filepath.Join(dir, "table.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// loadNow is the 1-minute load average, or "?" where /proc has none.
func loadNow() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// sampleLoad appends "HH:MM:SS load1 load5 load15" to path every
// interval (5 s when 0) until the returned func is called (more than
// once is fine). Without /proc/loadavg it samples nothing.
func sampleLoad(path string, every time.Duration) func() {
	if every <= 0 {
		every = 5 * time.Second
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		defer f.Close()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if data, err := os.ReadFile("/proc/loadavg"); err == nil {
				fields := strings.Fields(string(data))
				fmt.Fprintf(f, "%s %s\n", time.Now().Format("15:04:05"), strings.Join(fields[:3], " "))
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	stopped := false
	return func() {
		if !stopped {
			stopped = true
			close(done)
			<-finished
		}
	}
}

// LoadSummary reads a loadavg.log: "load (1-min) during the run: min X,
// median Y, max Z (N samples)", or "" when there is none.
func LoadSummary(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var loads []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var t string
		var l1 float64
		if _, err := fmt.Sscan(sc.Text(), &t, &l1); err == nil {
			loads = append(loads, l1)
		}
	}
	if len(loads) == 0 {
		return ""
	}
	return fmt.Sprintf("load (1-min) during the run: min %.2f, median %.2f, max %.2f (%d samples)", slices.Min(loads), median(loads), slices.Max(loads), len(loads))
}
