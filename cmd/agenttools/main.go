// Command agenttools runs the workspace tools from the shell.
//
//	agenttools call [--dir DIR] [--readonly] [--exec host|none] [--exec-timeout MS] [--output DIR] [--typed] TOOL ['ARGS_JSON' | -]
//	agenttools replay [--workspace memory] CASES.json
//	agenttools tools [--readonly] [--exec host|none]
//
// call runs one tool call on a workspace whose /workspace is the host
// directory DIR (the current directory by default; "/" itself is in
// memory) and prints what the model would receive: text and error text as
// the raw string, a json result compact, a content output as its JSON
// parts, each followed by a newline. Exit status: 0 for a result, 1 when
// the model would see a failure (error text, or a json object with an
// error key, including arguments that fail the tool's schema), 2 for a
// usage error (bad flags, an unknown tool, arguments that are not JSON).
// exec runs bash -c (sh -c without bash) as a real process in DIR (or the
// host directory behind its cwd); output it cuts is saved under
// /.computer/output, which is the host directory --output (by default
// one per DIR under the user cache directory), so a later call can read
// it.
//
// replay runs the reference oracle's cases (its case format) and prints
// one JSON line per case with the oracle's field names, for the oracle's
// score.py and compare.mjs.
//
// tools prints the tool definitions (name, description, input schema) as
// one JSON array.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/exec"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/gen"
	"github.com/agenttools/agenttools/internal/replay"
)

const usage = `usage: agenttools <command> [flags] [arguments]

Commands:
  call    run one tool call on a host directory and print the model output
  tools   print the tool definitions (name, description, JSON Schema)
  replay  run the reference oracle's cases and print one JSON line per case

Run "agenttools <command> --help" for a command's flags.
`

func main() {
	// Ctrl-C, kill and a closed terminal cancel the call: a running exec
	// command is killed with its children before the program exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitInterrupted is the exit status when a signal cancelled the call,
// as a shell reports a command Ctrl-C stopped.
const exitInterrupted = 130

// errUsage marks a failure that is the caller's doing (exit status 2).
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var code int
	var err error
	switch args[0] {
	case "call":
		code, err = call(ctx, args[1:], stdin, stdout, stderr)
	case "tools":
		code, err = listTools(args[1:], stdout, stderr)
	case "replay":
		code, err = replayCases(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "agenttools: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case err != nil && ctx.Err() != nil:
		fmt.Fprintln(stderr, "agenttools: interrupted")
		return exitInterrupted
	case err != nil:
		fmt.Fprintln(stderr, "agenttools:", err)
		return 2
	}
	return code
}

// flags makes a command's flag set, printing its usage to stderr.
func flags(name, synopsis, about string, stderr io.Writer) *flag.FlagSet {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: agenttools %s %s\n\n%s\n\nFlags:\n", name, synopsis, about)
		fl.PrintDefaults()
	}
	return fl
}

func parse(fl *flag.FlagSet, args []string) error {
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// workspaceFlags are the flags that choose the workspace and tool set.
type workspaceFlags struct {
	dir         string
	readonly    bool
	exec        string
	execTimeout int64
	output      string
}

func (w *workspaceFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&w.dir, "dir", ".", "host directory mounted at /workspace")
	fl.BoolVar(&w.readonly, "readonly", false, "offer read, ls, find and grep only")
	fl.StringVar(&w.exec, "exec", "host", "exec backend: host (bash -c in the directory behind /workspace) or none")
	fl.Int64Var(&w.execTimeout, "exec-timeout", 0, "kill an exec command after this many milliseconds (0: never)")
	fl.StringVar(&w.output, "output", "", "host directory behind /.computer/output, where exec saves long output\n(default: a directory per --dir under the user cache directory)")
}

// open builds the workspace: "/" in memory, the host directory at
// /workspace, and (when exec is offered) a host directory at
// /.computer/output so that saved command output is on disk, not in
// memory, and outlives the call for a later read.
func (w *workspaceFlags) open(ctx context.Context) (*raw.Tools, func(), error) {
	if w.exec != "host" && w.exec != "none" {
		return nil, nil, fmt.Errorf("--exec: want host or none, got %q", w.exec)
	}
	if w.execTimeout < 0 || w.execTimeout > core.MaxExecTimeout {
		return nil, nil, fmt.Errorf("--exec-timeout: want milliseconds from 0 to %d, got %d", core.MaxExecTimeout, w.execTimeout)
	}
	dir, err := filepath.Abs(w.dir)
	if err != nil {
		return nil, nil, err
	}
	var closers []io.Closer
	done := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	host, err := hostfs.Open(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--dir: %w", err)
	}
	closers = append(closers, host)
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, gen.WorkspaceRoot, host, vfs.MountOptions{}); err != nil {
		done()
		return nil, nil, err
	}
	opts := agenttools.Options{Readonly: w.readonly, ExecTimeout: w.execTimeout}
	if w.exec == "host" && !w.readonly {
		out, err := w.outputStore(dir)
		if err != nil {
			done()
			return nil, nil, err
		}
		closers = append(closers, out)
		if err := ws.Mount(ctx, gen.OutputDir, out, vfs.MountOptions{}); err != nil {
			done()
			return nil, nil, err
		}
		backend, err := exec.NewHost(ws, exec.HostOptions{})
		if err != nil {
			done()
			return nil, nil, err
		}
		opts.Backends = []exec.Backend{backend}
	}
	tools, err := raw.New(ws, opts)
	if err != nil {
		done()
		return nil, nil, err
	}
	return tools, done, nil
}

// outputStore opens the directory behind /.computer/output: --output, or
// one per workspace directory under the user cache directory.
func (w *workspaceFlags) outputStore(dir string) (*hostfs.FS, error) {
	out := w.output
	if out == "" {
		// The user cache directory, else (no HOME) the temporary one.
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		sum := sha256.Sum256([]byte(dir))
		out = filepath.Join(cache, "agenttools", "output", hex.EncodeToString(sum[:8]))
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	s, err := hostfs.Open(out)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	return s, nil
}

func call(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var w workspaceFlags
	fl := flags("call", "[--dir DIR] [--readonly] [--exec host|none] [--exec-timeout MS] [--output DIR] [--typed] TOOL ['ARGS_JSON' | -]",
		"Runs one tool call on a workspace whose /workspace is DIR and prints what the model\nwould receive. ARGS_JSON defaults to {}; - reads it from standard input. Exit status 0\nfor a result, 1 for a failure the model would see, 2 for a usage error (bad flags, an\nunknown tool, ARGS_JSON that is not JSON at all).", stderr)
	w.register(fl)
	typed := fl.Bool("typed", false, `print the model output object {"type":…,"value":…} instead of the bare value`)
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() < 1 || fl.NArg() > 2 {
		fmt.Fprintf(stderr, "agenttools call: want TOOL and at most one ARGS_JSON (flags go before TOOL), got %d arguments\n", fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	name, argText := fl.Arg(0), "{}"
	if fl.NArg() == 2 {
		argText = fl.Arg(1)
	}
	if argText == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return 0, err
		}
		argText = string(data)
	}
	if strings.TrimSpace(argText) != "" && !json.Valid([]byte(argText)) {
		var v any
		reason := json.Unmarshal([]byte(argText), &v)
		fmt.Fprintf(stderr, "agenttools call: ARGS_JSON is not valid JSON: %v\n", reason)
		return 0, errUsage
	}
	tools, done, err := w.open(ctx)
	if err != nil {
		return 0, err
	}
	defer done()
	if _, ok := tools.Executor().Tool(name); !ok {
		var names []string
		for _, d := range tools.Definitions() {
			names = append(names, d.Name)
		}
		fmt.Fprintf(stderr, "agenttools call: no tool %q (the tools are %s)\n", name, strings.Join(names, ", "))
		return 0, errUsage
	}
	out, err := tools.Execute(ctx, name, []byte(argText))
	if err != nil {
		return 0, err
	}
	switch {
	case *typed:
		fmt.Fprintf(stdout, "%s\n", raw.ModelOutput(out))
	case out.Kind == gen.OutputText, out.Kind == gen.OutputErrorText:
		fmt.Fprintln(stdout, out.Text)
	default:
		fmt.Fprintf(stdout, "%s\n", raw.Value(out))
	}
	if out.IsError() {
		return 1, nil
	}
	return 0, nil
}

func listTools(args []string, stdout, stderr io.Writer) (int, error) {
	fl := flags("tools", "[--readonly] [--exec host|none]", "Prints the tool definitions (name, description, input schema) as a JSON array: those call\noffers with the same flags.", stderr)
	readonly := fl.Bool("readonly", false, "offer read, ls, find and grep only")
	backend := fl.String("exec", "host", "exec backend: host or none")
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		fmt.Fprintf(stderr, "agenttools tools: takes no arguments, got %d\n", fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	if *backend != "host" && *backend != "none" {
		return 0, fmt.Errorf("--exec: want host or none, got %q", *backend)
	}
	ws := vfs.New(memfs.New())
	opts := agenttools.Options{Readonly: *readonly}
	if *backend == "host" {
		host, err := exec.NewHost(ws, exec.HostOptions{})
		if err != nil {
			return 0, err
		}
		opts.Backends = []exec.Backend{host}
	}
	tools, err := raw.New(ws, opts)
	if err != nil {
		return 0, err
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return 0, enc.Encode(tools.Definitions())
}

func replayCases(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fl := flags("replay", "[--workspace memory] CASES.json",
		"Runs the reference oracle's cases (its case format) and prints one JSON line per case,\nwith the oracle's field names. A case that fails says so in its line; the exit status\nis 0 unless the case file cannot be read.", stderr)
	kind := fl.String("workspace", "memory", "workspace each case starts on: memory")
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() != 1 {
		fmt.Fprintf(stderr, "agenttools replay: want one CASES.json, got %d arguments\n", fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	if *kind != "memory" {
		fmt.Fprintf(stderr, "agenttools replay: unknown workspace %q (memory is the only one)\n", *kind)
		return 0, errUsage
	}
	data, err := os.ReadFile(fl.Arg(0))
	if err != nil {
		return 0, err
	}
	cases, err := replay.ParseCases(data)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fl.Arg(0), err)
	}
	for _, c := range cases {
		rec := replay.Run(ctx, c, replay.Memory)
		line, err := core.MarshalJSON(rec)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "%s\n", line)
	}
	return 0, nil
}
