// Command agenttools-bench times agenttools against the reference
// (@cloudflare/computer in an oracle directory) on the reference's own
// workloads, golden/testdata/bench/bench.json, and times single calls
// over host trees. It is a separate command so that the product binary
// carries none of it. See package internal/bench and the README's
// "Benchmarks".
//
//	agenttools-bench bench [-store memfs|sqlitefs|hostfs|pgfs] [-postgres URL] [-case A,B] [-label X] [-scale X] [-once] [-cpuprofile F] [CASES.json] > rows.jsonl
//	agenttools-bench rounds [-ref ORACLE_DIR] [-ours NAME=BIN,...] [-n 3] [-stores memfs,sqlitefs,hostfs] [-out DIR] [CASES.json]
//	agenttools-bench compare DIR
//	agenttools-bench call -dir DIR [-repeat N] [-warmup N] [-edit-max-bytes N] [-restore SRC=DST] [-cpuprofile F] TOOL 'ARGS_JSON'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/agenttools/agenttools/internal/bench"
)

const usage = `usage:
  agenttools-bench bench [flags] [CASES.json]     time every row on one store; JSONL rows on stdout, table on stderr
  agenttools-bench rounds [flags] [CASES.json]    interleaved rounds (reference, then builds × stores) and the ratio table
  agenttools-bench compare DIR                    the ratio table of a rounds directory again
  agenttools-bench call -dir DIR [flags] TOOL ARGS one call timed in-process over a host directory
CASES.json defaults to golden/testdata/bench/bench.json of the checkout around the current directory.
Run a subcommand with -h for its flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "bench":
		err = benchMain(ctx, os.Args[2:], os.Stdout, os.Stderr)
	case "rounds":
		err = roundsMain(ctx, os.Args[2:], os.Stdout, os.Stderr)
	case "compare":
		err = compareMain(os.Args[2:], os.Stdout)
	case "call":
		err = callMain(ctx, os.Args[2:], os.Stdout)
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		err = fmt.Errorf("unknown command %q\n%s", os.Args[1], usage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agenttools-bench:", err)
		os.Exit(1)
	}
}

// defaultCases finds golden/testdata/bench/bench.json in the current
// directory or one above it.
func defaultCases() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		path := filepath.Join(dir, "golden", "testdata", "bench", "bench.json")
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no CASES.json given and no golden/testdata/bench/bench.json above the current directory")
		}
		dir = up
	}
}

func casesArg(fs *flag.FlagSet) (string, error) {
	switch fs.NArg() {
	case 0:
		return defaultCases()
	case 1:
		return fs.Arg(0), nil
	}
	return "", fmt.Errorf("%s: one case file at most, got %q", fs.Name(), fs.Args())
}

func set(list string) map[string]bool {
	if list == "" {
		return nil
	}
	m := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		m[s] = true
	}
	return m
}

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var opts bench.Options
	var cases, labels, cpuprofile string
	fs.StringVar(&opts.Store, "store", "memfs", "memfs | sqlitefs | hostfs (a host temp dir mounted at /workspace) | pgfs (a new workspace per case in the -postgres database) | system (the system's own calls for ls, delete, write and find on such a dir)")
	fs.StringVar(&opts.Tmp, "tmp", os.TempDir(), "where sqlitefs databases and hostfs trees are made")
	fs.StringVar(&opts.Postgres, "postgres", os.Getenv(bench.PostgresEnv), "PostgreSQL connection URL for -store pgfs (default $"+bench.PostgresEnv+")")
	fs.Float64Var(&opts.Scale, "scale", 1, "multiply every repeat (at least 1 iteration)")
	fs.BoolVar(&opts.Once, "once", false, "one timed iteration per row, no warm-up (a smoke run)")
	fs.StringVar(&cases, "case", "", "only these cases (comma-separated)")
	fs.StringVar(&labels, "label", "", "only these call labels (comma-separated)")
	fs.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the run; timed calls carry the pprof label phase=timed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path, err := casesArg(fs)
	if err != nil {
		return err
	}
	list, err := bench.LoadCases(path)
	if err != nil {
		return err
	}
	opts.Cases, opts.Labels, opts.Log = set(cases), set(labels), stderr
	if cpuprofile != "" {
		out, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(stdout, "%s\n", bench.Header(opts))
	var rows []bench.Row
	start := time.Now()
	err = bench.Run(ctx, list, opts, func(r bench.Row) {
		rows = append(rows, r)
		fmt.Fprintf(stdout, "%s\n", bench.MarshalLine(r))
	})
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	fmt.Fprintf(stderr, "\nagenttools (%s) on %s, %s, %d cpu; %.1f s\n\n", opts.Store, runtime.Version(), host, runtime.NumCPU(), time.Since(start).Seconds())
	bench.PrintTable(stderr, rows)
	return nil
}

func roundsMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rounds", flag.ContinueOnError)
	var opts bench.RoundsOptions
	var ours, stores, only string
	fs.StringVar(&opts.Ref, "ref", "", "the oracle directory (bench.mjs and node_modules), e.g. ~/oracle; empty: our builds only")
	fs.StringVar(&opts.Node, "node", "node", "the node binary for the reference")
	fs.StringVar(&ours, "ours", "ours=self", "our builds, NAME=BINARY,... (BINARY answers `bench -store S CASES`; self: this binary)")
	fs.StringVar(&stores, "stores", strings.Join(bench.Stores, ","), "stores, in the order each round runs them (also "+bench.PgStore+", with $"+bench.PostgresEnv+" set)")
	fs.IntVar(&opts.Rounds, "n", 3, "rounds")
	fs.Float64Var(&opts.Scale, "scale", 0, "multiply every repeat on both sides (0: as the case file says)")
	fs.StringVar(&only, "case", "", "only these cases (comma-separated)")
	fs.StringVar(&opts.Tmp, "tmp", "", "passed to our builds as -tmp")
	fs.BoolVar(&opts.System, "system", false, "also time the system's own calls for hostfs's ls, delete, write and find rows (this binary's bench -store system), after hostfs in each round")
	fs.StringVar(&opts.Out, "out", "", "run directory (default: $TMPDIR/agenttools-bench/rounds-YYYYmmdd-HHMMSS)")
	fs.DurationVar(&opts.LoadEvery, "load-every", 5*time.Second, "how often /proc/loadavg is sampled")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if opts.Cases, err = casesArg(fs); err != nil {
		return err
	}
	if opts.Builds, err = bench.ParseBuilds(ours); err != nil {
		return err
	}
	for _, st := range strings.Split(stores, ",") {
		if !slices.Contains(bench.Stores, st) && st != bench.PgStore {
			return fmt.Errorf("unknown store %q", st)
		}
		if st == bench.PgStore && os.Getenv(bench.PostgresEnv) == "" {
			return fmt.Errorf("the %s store needs $%s, a PostgreSQL connection URL", st, bench.PostgresEnv)
		}
		opts.Stores = append(opts.Stores, st)
	}
	if only != "" {
		opts.Only = strings.Split(only, ",")
	}
	if opts.Ref != "" {
		if _, err := os.Stat(filepath.Join(opts.Ref, "bench.mjs")); err != nil {
			return fmt.Errorf("-ref: %w", err)
		}
	}
	if opts.Out == "" {
		opts.Out = filepath.Join(os.TempDir(), "agenttools-bench", "rounds-"+time.Now().Format("20060102-150405"))
	}
	opts.Log = stderr
	ref := "no reference"
	if opts.Ref != "" {
		ref = "reference " + opts.Ref
	}
	fmt.Fprintf(stderr, "rounds: %d × (%s; builds %s × stores %s) into %s\n", opts.Rounds, ref, ours, stores, opts.Out)
	return bench.RunRounds(ctx, opts, stdout)
}

func compareMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: agenttools-bench compare DIR")
	}
	return bench.WriteTable(fs.Arg(0), bench.Goals, stdout)
}

func callMain(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	var opts bench.CallOptions
	fs.StringVar(&opts.Dir, "dir", "", "host directory mounted at /workspace")
	fs.IntVar(&opts.Repeat, "repeat", 5, "timed iterations")
	fs.IntVar(&opts.Warmup, "warmup", 1, "untimed iterations first")
	fs.Int64Var(&opts.EditMaxBytes, "edit-max-bytes", 0, "edit.maxBytes option (0: the default 2 MiB)")
	restore := fs.String("restore", "", "SRC=DST: copy host file SRC over DST before every iteration (untimed)")
	cpuprofile := fs.String("cpuprofile", "", "CPU profile of the timed calls")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 || opts.Dir == "" {
		return errors.New("usage: agenttools-bench call -dir DIR [flags] TOOL 'ARGS_JSON'")
	}
	if src, dst, ok := strings.Cut(*restore, "="); ok {
		opts.Restore = func() error { return bench.CopyFile(src, dst) }
	}
	if *cpuprofile != "" {
		out, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer out.Close()
		opts.CPUProfile = out
	}
	res, err := bench.TimeCall(ctx, fs.Arg(0), []byte(fs.Arg(1)), opts)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", bench.MarshalLine(res))
	return err
}
