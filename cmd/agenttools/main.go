// Command agenttools runs the workspace tools from the shell.
//
//	agenttools call [--db FILE] [--dir DIR] [--readonly] [--exec host|none] [--exec-timeout MS] [--mirror DIR] [--output DIR] [--typed] TOOL ['ARGS_JSON' | -]
//	agenttools tools [--readonly] [--exec host|none]
//	agenttools mcp [--db FILE] [--dir DIR] [--readonly] [--exec host|none] [--exec-timeout MS] [--mirror DIR] [--output DIR]
//	agenttools import [--db FILE] [--to PATH] DIR
//	agenttools export [--db FILE] [--from PATH] DIR
//	agenttools replay [--workspace memory|sqlite] CASES.json
//	agenttools check [--db FILE]
//	agenttools mirrors [--prune] [--older-than DURATION]
//
// The workspace is the SQLite database --db (agenttools.db in the
// current directory by default, created on first use): "/" and
// everything in it, /workspace included, unless --dir mounts a host
// directory at /workspace. Several processes can share one database. A
// database this user cannot write (a read-only mount, another user's
// file) is opened read-only: the tools read it, and their changes fail
// saying why. --readonly opens it read-only too, and creates none.
//
// call runs one tool call and prints what the model would receive: text
// and error text as the raw string, a json result compact, a content
// output as its JSON parts, each followed by a newline. Exit status: 0
// for a result, 1 when the model would see a failure (error text, or a
// json object with an error key, including arguments that fail the
// tool's schema), 2 for a usage error (bad flags, an unknown tool,
// arguments that are not JSON), 130 when a signal stopped it. exec runs
// bash -c (sh -c without bash) as a real process: in DIR (or the host
// directory behind its cwd) with --dir, else in a mirror of /workspace
// (--mirror, by default one per database under the user cache
// directory) synced from the database before the command and back after
// it. Output it cuts is saved under /.computer/output, in the database
// (or the host directory --output), so a later call can read it.
//
// import and export copy a tree between a host directory and the
// workspace, keeping permission bits and symbolic links.
//
// replay runs the reference oracle's cases (its case format) and prints
// one JSON line per case with the oracle's field names, for the oracle's
// score.py and compare.mjs.
//
// check examines the database for damage without changing it (SQLite's
// integrity check, then every chunk of file content against its
// checksum) and prints what it found: exit status 0 when it is sound, 1
// when it is damaged, 2 for a usage error or a file that is not a
// workspace database.
//
// mirrors lists the exec mirrors in the user cache directory, or with
// --prune removes those not in use.
//
// tools prints the tool definitions (name, description, input schema) as
// one JSON array.
//
// mcp serves the tools over the Model Context Protocol on stdin and
// stdout (newline-delimited JSON-RPC) until the client closes its end:
// the calls in flight then get 2 s to be answered, the rest are
// cancelled (their commands killed), and it exits 0. exec is off unless
// --exec host.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/exec"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/gen"
	"github.com/agenttools/agenttools/internal/replay"
)

const usage = `usage: agenttools <command> [flags] [arguments]

Commands:
  call    run one tool call on the workspace and print the model output
  tools   print the tool definitions (name, description, JSON Schema)
  mcp     serve the tools over the Model Context Protocol on stdin and stdout
  import  copy a host directory into the workspace
  export  copy a workspace directory out to the host
  replay  run the reference oracle's cases and print one JSON line per case
  check   check the workspace database for damage
  mirrors list or remove the exec mirrors in the user cache directory

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
	case "mcp":
		code, err = serveMCP(ctx, args[1:], stdin, stdout, stderr)
	case "import":
		code, err = copyTree(ctx, "import", args[1:], stdout, stderr)
	case "export":
		code, err = copyTree(ctx, "export", args[1:], stdout, stderr)
	case "check":
		code, err = checkDB(ctx, args[1:], stdout, stderr)
	case "mirrors":
		code, err = listMirrors(args[1:], stdout, stderr)
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
	db          string
	dir         string
	mirror      string
	output      string
	readonly    bool
	exec        string
	execTimeout int64
}

// registerStore registers the flags that choose the workspace.
func (w *workspaceFlags) registerStore(fl *flag.FlagSet) {
	fl.StringVar(&w.db, "db", "agenttools.db", "the workspace database (SQLite; created if missing, with its directory, unless\n--readonly): / and everything not mounted. One this user cannot write is opened\nread-only")
	fl.StringVar(&w.dir, "dir", "", "host directory mounted at /workspace (default: /workspace lives in --db)")
}

func (w *workspaceFlags) register(fl *flag.FlagSet, defaultExec string) {
	w.registerStore(fl)
	fl.BoolVar(&w.readonly, "readonly", false, "offer read, ls, find and grep only, and open --db read-only")
	fl.StringVar(&w.exec, "exec", defaultExec, "exec backend: host (bash -c in the directory behind /workspace, or in a\nmirror of it when /workspace is in --db) or none")
	fl.Int64Var(&w.execTimeout, "exec-timeout", 0, "kill an exec command after this many milliseconds (0: never)")
	fl.StringVar(&w.mirror, "mirror", "", "host directory where exec runs on a workspace in --db, synced before and after\neach command (default: one per --db under the user cache directory)")
	fl.StringVar(&w.output, "output", "", "host directory mounted at /.computer/output, where exec saves long output\n(default: in --db)")
}

// workspace is an opened workspace and what to close with it.
type workspace struct {
	ws      *vfs.Workspace
	dbPath  string
	closers []io.Closer
}

func (w *workspace) Close() {
	for i := len(w.closers) - 1; i >= 0; i-- {
		w.closers[i].Close()
	}
}

// openStore opens the workspace: "/" in the --db database, the --dir
// host directory at /workspace (else /workspace in the database, made
// on first use unless the database is read-only).
//
// readonly opens the database read-only (sqlitefs.ReadOnly), and a
// database that does not exist is not created: "/" is then an empty tree
// in memory. Without it, a database this process cannot write is opened
// read-only all the same (sqlitefs.Open), and its tools' changes fail
// saying so.
func (w *workspaceFlags) openStore(ctx context.Context, readonly bool) (*workspace, error) {
	dbPath, err := filepath.Abs(w.db)
	if err != nil {
		return nil, err
	}
	var root vfs.Store
	var closers []io.Closer
	dbReadOnly := readonly
	if _, err := os.Stat(dbPath); readonly && errors.Is(err, fs.ErrNotExist) {
		root = memfs.New()
	} else {
		var opts []sqlitefs.Option
		if readonly {
			opts = append(opts, sqlitefs.ReadOnly())
		} else if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
			// "Created on first use" includes its directory (a client's
			// configuration often names a database in a directory not
			// made yet).
			return nil, fmt.Errorf("--db: %w", err)
		}
		db, err := sqlitefs.Open(dbPath, opts...)
		if err != nil {
			return nil, fmt.Errorf("--db: %w", err)
		}
		root, closers, dbReadOnly = db, []io.Closer{db}, db.ReadOnly()
	}
	// The database through a link is the file it names (one mirror for
	// both, and import leaves it out however it is reached).
	if real, err := filepath.EvalSymlinks(dbPath); err == nil {
		dbPath = real
	}
	out := &workspace{ws: vfs.New(root), dbPath: dbPath, closers: closers}
	if w.dir != "" {
		dir, err := filepath.Abs(w.dir)
		if err != nil {
			out.Close()
			return nil, err
		}
		host, err := hostfs.Open(dir)
		if err != nil {
			out.Close()
			return nil, fmt.Errorf("--dir: %w", err)
		}
		out.closers = append(out.closers, host)
		if err := out.ws.Mount(ctx, gen.WorkspaceRoot, host, vfs.MountOptions{}); err != nil {
			out.Close()
			return nil, err
		}
	} else if !dbReadOnly {
		if err := out.ws.Mkdir(ctx, gen.WorkspaceRoot, vfs.MkdirOptions{Recursive: true}); err != nil {
			out.Close()
			return nil, fmt.Errorf("--db: %w", err)
		}
	}
	return out, nil
}

// open builds the tool set over the workspace.
func (w *workspaceFlags) open(ctx context.Context) (*raw.Tools, func(), error) {
	wsp, opts, err := w.setup(ctx)
	if err != nil {
		return nil, nil, err
	}
	tools, err := raw.New(wsp.ws, opts)
	if err != nil {
		wsp.Close()
		return nil, nil, err
	}
	return tools, wsp.Close, nil
}

// setup opens the workspace and the tool-set options: exec on the host
// directory, or on a mirror of /workspace when it is in the database.
func (w *workspaceFlags) setup(ctx context.Context) (*workspace, agenttools.Options, error) {
	var none agenttools.Options
	if w.exec != "host" && w.exec != "none" {
		return nil, none, fmt.Errorf("--exec: want host or none, got %q", w.exec)
	}
	if w.execTimeout < 0 || w.execTimeout > core.MaxExecTimeout {
		return nil, none, fmt.Errorf("--exec-timeout: want milliseconds from 0 to %d, got %d", core.MaxExecTimeout, w.execTimeout)
	}
	wsp, err := w.openStore(ctx, w.readonly)
	if err != nil {
		return nil, none, err
	}
	ws := wsp.ws
	opts := agenttools.Options{Readonly: w.readonly, ExecTimeout: w.execTimeout}
	if w.exec == "host" && !w.readonly {
		if w.output != "" {
			out, err := hostfs.Open(w.output)
			if err != nil {
				wsp.Close()
				return nil, none, fmt.Errorf("--output: %w", err)
			}
			wsp.closers = append(wsp.closers, out)
			if err := ws.Mount(ctx, gen.OutputDir, out, vfs.MountOptions{}); err != nil {
				wsp.Close()
				return nil, none, err
			}
		}
		var backend exec.Backend
		if w.dir != "" {
			backend, err = exec.NewHost(ws, exec.HostOptions{})
		} else {
			// The mirror is made when exec first runs (the other tools
			// never need it): --mirror, or one per database under the
			// user cache directory.
			backend, err = exec.NewMirror(ws, exec.MirrorOptions{Mirror: w.mirror, Key: wsp.dbPath})
		}
		if err != nil {
			wsp.Close()
			return nil, none, err
		}
		opts.Backends = []exec.Backend{backend}
	}
	return wsp, opts, nil
}

func call(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var w workspaceFlags
	fl := flags("call", "[--db FILE] [--dir DIR] [--readonly] [--exec host|none] [--exec-timeout MS] [--mirror DIR] [--output DIR] [--typed] TOOL ['ARGS_JSON' | -]",
		"Runs one tool call on the workspace (the --db database, with DIR at /workspace when\ngiven) and prints what the model would receive. ARGS_JSON defaults to {}; - reads it from standard input. Exit status 0\nfor a result, 1 for a failure the model would see, 2 for a usage error (bad flags, an\nunknown tool, ARGS_JSON that is not JSON at all).", stderr)
	w.register(fl, "host")
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
	fl := flags("replay", "[--workspace memory|sqlite] CASES.json",
		"Runs the reference oracle's cases (its case format) and prints one JSON line per case,\nwith the oracle's field names. A case that fails says so in its line; the exit status\nis 0 unless the case file cannot be read.", stderr)
	kind := fl.String("workspace", "memory", "workspace each case starts on: memory or sqlite (a new database per case)")
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() != 1 {
		fmt.Fprintf(stderr, "agenttools replay: want one CASES.json, got %d arguments\n", fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	newWorkspace := map[string]replay.Workspace{"memory": replay.Memory, "sqlite": replay.SQLite}[*kind]
	if newWorkspace == nil {
		fmt.Fprintf(stderr, "agenttools replay: unknown workspace %q (memory or sqlite)\n", *kind)
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
		rec := replay.Run(ctx, c, newWorkspace)
		line, err := core.MarshalJSON(rec)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "%s\n", line)
	}
	return 0, nil
}

// copyTree runs import (a host tree into the workspace) or export (a
// workspace tree out to the host).
func copyTree(ctx context.Context, command string, args []string, stdout, stderr io.Writer) (int, error) {
	about := map[string]string{
		"import": "Copies the host directory DIR into the workspace directory --to (created if missing),\nover what is there: files, directories, permission bits and symbolic links (an absolute\nlink into DIR is remapped). Prints how many nodes it copied.",
		"export": "Copies the workspace directory --from into the host directory DIR (created if missing),\nover what is there: files, directories, permission bits and symbolic links (an absolute\nlink into --from is remapped). Prints how many nodes it copied.",
	}[command]
	var w workspaceFlags
	fl := flags(command, map[string]string{"import": "[--db FILE] [--to PATH] DIR", "export": "[--db FILE] [--from PATH] DIR"}[command], about, stderr)
	fl.StringVar(&w.db, "db", "agenttools.db", "the workspace database (SQLite; created if missing, with its directory)")
	at := fl.String(map[string]string{"import": "to", "export": "from"}[command], gen.WorkspaceRoot, "the workspace directory")
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() != 1 {
		fmt.Fprintf(stderr, "agenttools %s: want one DIR, got %d arguments\n", command, fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	dir, err := filepath.Abs(fl.Arg(0))
	if err != nil {
		return 0, err
	}
	wsp, err := w.openStore(ctx, command == "export")
	if err != nil {
		return 0, err
	}
	defer wsp.Close()
	c := vfs.HostCopy{WS: wsp.ws, Root: vfs.Clean(*at), Dir: dir, Skip: func(p string) bool {
		// The database itself, when it is in the tree.
		return p == wsp.dbPath || strings.HasPrefix(p, wsp.dbPath+"-")
	}}
	var n int
	if command == "import" {
		if _, err := os.Stat(dir); err != nil {
			return 0, err
		}
		n, err = c.Import(ctx)
	} else {
		n, err = c.Export(ctx)
	}
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "%sed %d nodes\n", command, n)
	return 0, nil
}

// integrityLines is how many lines of SQLite's integrity report check
// prints.
const integrityLines = 20

// checkDB examines the workspace database: exit status 0 when it is
// sound, 1 when it is damaged.
func checkDB(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fl := flags("check", "[--db FILE]",
		"Checks the workspace database --db for damage, changing nothing: SQLite's PRAGMA\nintegrity_check over the whole file, then every node (file, directory, link) against its\nchecksum and for values the workspace never writes, every directory's count of entries,\nthe files' content ids (one file each, and there), the counters of revisions and contents,\nevery chunk of file content against its checksum and every file's chunks against its\nsize. Prints what it found. Exit status 0 when the database is sound, 1 when it is\ndamaged, 2 for a usage error or a file that is not a workspace database.", stderr)
	db := fl.String("db", "agenttools.db", "the workspace database (SQLite)")
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		fmt.Fprintf(stderr, "agenttools check: takes no arguments, got %d\n", fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	path, err := filepath.Abs(*db)
	if err != nil {
		return 0, err
	}
	rep, err := sqlitefs.Check(ctx, path)
	if err != nil {
		return 0, fmt.Errorf("--db: %w", err)
	}
	switch n := len(rep.Integrity); {
	case n == 0:
	case rep.Integrity[0] == "ok" && n == 1:
		fmt.Fprintln(stdout, "integrity_check: ok")
	default:
		fmt.Fprintln(stdout, "integrity_check:")
		for _, line := range rep.Integrity[:min(n, integrityLines)] {
			fmt.Fprintf(stdout, "  %s\n", line)
		}
		if n > integrityLines {
			fmt.Fprintf(stdout, "  (and %d more)\n", n-integrityLines)
		}
	}
	switch {
	case rep.Layout == 0:
	case rep.Layout < sqlitefs.SchemaVersion:
		fmt.Fprintf(stdout, "nodes: %d read (layout %d: without checksums or counts of entries)\n", rep.Nodes, rep.Layout)
	default:
		fmt.Fprintf(stdout, "nodes: %d read\n", rep.Nodes)
	}
	fmt.Fprintf(stdout, "content: %d files, %d chunks read (%d without a checksum)\n", rep.Files, rep.Chunks, rep.Unverified)
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, p)
	}
	if !rep.OK() {
		fmt.Fprintf(stdout, "%s: damaged\n", path)
		return 1, nil
	}
	fmt.Fprintf(stdout, "%s: ok\n", path)
	return 0, nil
}

// serveMCP serves the tools over MCP on stdin and stdout until the client
// closes the connection.
func serveMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var w workspaceFlags
	fl := flags("mcp", "[--db FILE] [--dir DIR] [--readonly] [--exec host|none] [--exec-timeout MS] [--mirror DIR] [--output DIR]",
		"Serves the tools over the Model Context Protocol (newline-delimited JSON-RPC on stdin and\nstdout) on the workspace: the --db database, with DIR at /workspace when given. exec is\noff unless --exec host: with it, the client can run any command as this user. Runs until\nthe client closes the connection; the calls in flight then get 2 s to be answered, the\nrest are cancelled (their commands killed), and it exits 0.", stderr)
	w.register(fl, "none")
	if err := parse(fl, args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		fmt.Fprintf(stderr, "agenttools mcp: takes no arguments, got %d\n", fl.NArg())
		fl.Usage()
		return 0, errUsage
	}
	wsp, opts, err := w.setup(ctx)
	if err != nil {
		return 0, err
	}
	defer wsp.Close()
	set, err := mcp.New(wsp.ws, opts)
	if err != nil {
		return 0, err
	}
	// One line for the client's log (and a person at a terminal): what
	// is served, on what.
	var names []string
	for _, t := range set.Executor().Tools() {
		names = append(names, t.Name)
	}
	where := wsp.dbPath
	if w.dir != "" {
		where += ", /workspace at " + w.dir
	}
	fmt.Fprintf(stderr, "agenttools mcp: serving %s over stdin and stdout on %s\n", strings.Join(names, ", "), where)
	// A client that closed its end of stdout makes a write fail (EPIPE)
	// instead of killing the server by SIGPIPE, so that Serve cancels
	// the calls and kills their commands. (A handler, unlike ignoring the
	// signal, is not passed on to the commands.)
	brokenPipe := make(chan os.Signal, 1)
	signal.Notify(brokenPipe, syscall.SIGPIPE)
	defer signal.Stop(brokenPipe)
	if err := set.Serve(ctx, stdin, stdout, "agenttools", version()); err != nil {
		return 0, err
	}
	return 0, nil
}

// version is the module version the program was built from ("devel"
// when built from a checkout).
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
