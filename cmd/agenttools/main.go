// Command agenttools runs the workspace tools from the shell.
//
//	agenttools call [--db FILE|URL] [--dir DIR] [--readonly] [--prefix PREFIX] [--overlay FILE] [--exec host|sandbox|none] [--exec-network] [--exec-limits LIMITS] [--exec-ro DIRS] [--exec-user UID:GID] [--exec-timeout MS] [--mirror DIR] [--output DIR] [--typed] TOOL ['ARGS_JSON' | -]
//	agenttools tools [--readonly] [--prefix PREFIX] [--overlay FILE] [--exec host|sandbox|none] [--exec-network]
//	agenttools mcp [--db FILE|URL] [--dir DIR] [--readonly] [--prefix PREFIX] [--overlay FILE] [--exec host|sandbox|none] [--exec-network] [--exec-limits LIMITS] [--exec-ro DIRS] [--exec-user UID:GID] [--exec-timeout MS] [--mirror DIR] [--output DIR] [--publish-addr HOST:PORT [--publish-base-url URL]] [--approve mutating|TOOL,TOOL]
//	agenttools import [--db FILE|URL] [--to PATH] DIR|FILE
//	agenttools export [--db FILE|URL] [--from PATH] DIR
//	agenttools replay [--workspace memory|sqlite|postgres://URL] [--overlay FILE] CASES.json
//	agenttools check [--db FILE]
//	agenttools mirrors [--prune] [--older-than DURATION]
//	agenttools workspaces --db URL
//	agenttools --version
//
// COMMAND --help prints a command's usage; a usage error prints what is
// wrong and where the usage is (exit status 2). --version prints the
// version the program was built from, which the MCP server reports too.
// A command that fails leaves no new file behind (no database it made,
// no directory export made), except a database another process opened
// meanwhile (Linux; elsewhere a new database is always kept), which it
// keeps, saying so on stderr.
//
// The workspace is the SQLite database --db (agenttools.db in the
// current directory by default, created on first use with an empty
// /workspace): "/" and
// everything in it, /workspace included, unless --dir mounts a host
// directory at /workspace. Several processes can share one database. A
// database this user cannot write (a read-only mount, another user's
// file) is opened read-only: the tools read it, and their changes fail
// saying why. --readonly opens it read-only too, and creates none.
//
// --db may instead be a PostgreSQL URL (postgres://… or postgresql://…,
// with an optional workspace=NAME parameter, default "default"): the
// workspace of that name in that database (core/vfs/pgfs), made on first
// use (not by --readonly, whose "/" is then an empty tree in memory, nor
// by export). No file is made on the host, and a failed command removes
// nothing. The URL without its password names the workspace wherever the
// command shows it, and its exec mirror.
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
// import and export copy a tree (or one file) between a host directory
// and the workspace, keeping permission bits and symbolic links.
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
// workspaces lists the workspaces of a PostgreSQL database (name, change
// counter, nodes, total size of the files), changing nothing.
//
// tools prints the tool definitions (name, description, input schema) as
// one JSON array.
//
// mcp serves the tools over the Model Context Protocol on stdin and
// stdout (newline-delimited JSON-RPC) until the client closes its end:
// the calls in flight then get 2 s to be answered, the rest are
// cancelled (their commands killed), and it exits 0. exec is off unless
// --exec sandbox or --exec host. publish is offered with --publish-addr:
// it copies the file and returns a signed link served over HTTP on that
// address (core/publish/local) until it expires or the server exits;
// --publish-base-url is where the links start when a proxy is in front.
//
// --approve mutating (every tool that
// changes the workspace) or --approve write,exec (tools by their spec
// names) makes those calls wait for the user's approval: the server asks
// the client (MCP elicitation), and a client that cannot be asked, or a
// user who does not approve, gets the refusal; nothing changes.
//
// --prefix PREFIX (call, tools, mcp) puts PREFIX before every tool's
// name (core.Options.Prefix): --prefix ws_ offers ws_read, ws_ls, ...,
// call takes those names, and a text that names another tool names it
// so. A prefix that would make a name some model provider refuses is a
// usage error.
//
// --overlay FILE (call, tools, mcp, and replay for every case) changes
// what the model sees (core.Options.Surface): tools' descriptions,
// parameter descriptions and default limits, or tools withheld, from an
// overlay file (CUE, or JSON with the same fields) as cmd/toolgen
// -overlay reads it. A mistake in it is reported at its line and column
// (exit status 2) before anything is opened.
//
// --exec sandbox runs each command as --exec host does, but in a
// bubblewrap sandbox (Linux; see execbackend.Sandbox): /workspace is the
// workspace (its host directory, or the mirror), the rest of the system
// is read-only, there is no network unless --exec-network, and the
// command's processes end with it. --exec-limits sets its limits as
// prlimit names them (nproc, cpu in seconds, fsize and as in bytes; a
// number or "unlimited"), --exec-user the unprivileged user the commands
// run as when agenttools runs as root. Where the sandbox cannot run
// (bwrap missing, user namespaces refused, not Linux) the command fails
// saying why; it never runs the commands without it.
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
	"strconv"
	"strings"
	"syscall"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/hostio"
	"github.com/agenttools/agenttools/internal/replay"
	"github.com/agenttools/agenttools/toolspec"
)

const usage = `usage: agenttools <command> [flags] [arguments]

Commands:
  call       run one tool call on the workspace and print the model output
  tools      print the tool definitions (name, description, JSON Schema)
  mcp        serve the tools over the Model Context Protocol on stdin and stdout
  import     copy a host directory (or a file) into the workspace
  export     copy a workspace directory out to the host
  replay     run the reference oracle's cases and print one JSON line per case
  check      check the workspace database for damage
  mirrors    list or remove the exec mirrors in the user cache directory
  workspaces list the workspaces of a PostgreSQL database

Run 'agenttools <command> --help' for a command's flags, 'agenttools --version' for
the version.
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
	case "workspaces":
		code, err = listWorkspaces(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if args[0] == "help" && len(args) > 1 && !isHelp(args[1]) {
			// help COMMAND is COMMAND --help.
			return run(ctx, []string{args[1], "--help"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "agenttools %s\n", version())
		return 0
	default:
		(&usageError{msg: fmt.Sprintf("unknown command %q", args[0])}).report(stderr)
		return 2
	}
	var ue *usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		ue.report(stderr)
		return 2
	case err != nil && ctx.Err() != nil:
		fmt.Fprintln(stderr, "agenttools: interrupted")
		return exitInterrupted
	case err != nil:
		fmt.Fprintf(stderr, "agenttools %s: %v\n", args[0], err)
		return 2
	}
	return code
}

// isHelp says whether arg asks for the usage.
func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// workspaceFlags are the flags that choose the workspace and tool set.
type workspaceFlags struct {
	command     string // whose flags they are, for usage errors
	db          string
	dir         string
	mirror      string
	output      string
	readonly    bool
	prefix      string
	overlay     string // --overlay FILE
	exec        string
	execTimeout int64
	network     bool
	limits      string
	user        string
	readOnly    string
	stderr      io.Writer // where a kept database is noted (os.Stderr when nil)
	// hostOpts open --dir: as root with --exec sandbox, what the tools
	// create there goes to the sandbox's user, who could otherwise not
	// change it.
	hostOpts []hostfs.Option
}

// registerStore registers the flags that choose the workspace.
func (w *workspaceFlags) registerStore(fl *flag.FlagSet) {
	fl.StringVar(&w.db, "db", "agenttools.db", "the workspace database (SQLite; created if missing, with its directory, unless\n--readonly): / and everything not mounted. One this user cannot write is opened\nread-only. Or a PostgreSQL URL, postgres://…/DATABASE?workspace=NAME: that\nworkspace of the database (default \"default\"; created if missing, unless --readonly)")
	fl.StringVar(&w.dir, "dir", "", "host directory mounted at /workspace (default: /workspace lives in --db)")
}

func (w *workspaceFlags) register(fl *flag.FlagSet, defaultExec string) {
	w.command = fl.Name()
	w.registerStore(fl)
	fl.BoolVar(&w.readonly, "readonly", false, "offer read, ls, find and grep only, and open --db read-only")
	registerPrefix(fl, &w.prefix)
	registerOverlay(fl, &w.overlay)
	fl.StringVar(&w.exec, "exec", defaultExec, "exec backend: host (bash -c in the directory behind /workspace, or in a\nmirror of it when /workspace is in --db), sandbox (the same in a bubblewrap\nsandbox, Linux: recommended) or none")
	w.registerSandbox(fl)
	fl.Int64Var(&w.execTimeout, "exec-timeout", 0, "kill an exec command after this many milliseconds (0: never)")
	fl.StringVar(&w.mirror, "mirror", "", "host directory where exec runs on a workspace in --db, synced before and after\neach command (default: one per --db under the user cache directory)")
	fl.StringVar(&w.output, "output", "", "host directory mounted at /.computer/output, where exec saves long output\n(default: in --db)")
}

// registerPrefix registers --prefix.
func registerPrefix(fl *flag.FlagSet, prefix *string) {
	fl.StringVar(prefix, "prefix", "", "put PREFIX before every tool's name (ws_ offers ws_read, ws_ls, ...; call takes\nthose names), so that the tools sit beside others of the same names; a text that\nnames another tool names it so. A letter or _, then letters, digits, _ and -")
}

// checkPrefix is --prefix's usage error, if any.
func checkPrefix(command, prefix string) error {
	if err := core.CheckPrefix(prefix); err != nil {
		return usagef(command, "--prefix: %s", strings.TrimPrefix(err.Error(), "core: option prefix "))
	}
	return nil
}

// registerSandbox registers the flags of the sandbox backend.
func (w *workspaceFlags) registerSandbox(fl *flag.FlagSet) {
	fl.BoolVar(&w.network, "exec-network", false, "with --exec sandbox: give the commands the host's network (default: none)")
	fl.StringVar(&w.limits, "exec-limits", "", "with --exec sandbox: the limits of each command, as prlimit names them, e.g.\nnproc=256,cpu=120,fsize=1073741824,as=8589934592 (cpu in seconds, sizes in bytes,\n\"unlimited\" for none; default nproc=1024,cpu=600,fsize=4 GiB,as=16 GiB)")
	fl.StringVar(&w.readOnly, "exec-ro", "", "with --exec sandbox: more host directories the sandbox shows, read-only, at the same\npath, separated by commas (a toolchain in /opt, a Go module cache)")
	fl.StringVar(&w.user, "exec-user", "", "with --exec sandbox, when agenttools runs as root: the unprivileged UID:GID the\ncommands run as (default 65534:65534), who must be able to write --dir")
}

// warnDatabaseInside warns on stderr when the database (or its
// directory) is inside --dir, where the sandbox's commands can read and
// change it.
func (w *workspaceFlags) warnDatabaseInside() {
	dir, err1 := filepath.Abs(w.dir)
	db, err2 := filepath.Abs(w.db)
	if err1 != nil || err2 != nil {
		return
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(db)); err == nil {
		db = filepath.Join(real, filepath.Base(db))
	}
	if rel, err := filepath.Rel(dir, db); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		stderr := w.stderr
		if stderr == nil {
			stderr = os.Stderr
		}
		fmt.Fprintf(stderr, "agenttools %s: warning: the database %s is inside --dir %s, so exec's commands can read and change it (and all of the workspace outside /workspace): put it elsewhere with --db\n", w.command, db, dir)
	}
}

// execMode says how exec runs commands: "host", "sandbox" or
// "sandbox with the network".
func (w *workspaceFlags) execMode() string {
	if w.exec == "sandbox" && w.network {
		return "sandbox with the network"
	}
	return w.exec
}

// sandbox is the sandbox the flags ask for: nil without --exec sandbox,
// where the other sandbox flags are a usage error.
func (w *workspaceFlags) sandbox() (*execbackend.Sandbox, error) {
	if w.exec != "sandbox" {
		for name, set := range map[string]bool{"--exec-network": w.network, "--exec-limits": w.limits != "", "--exec-user": w.user != "", "--exec-ro": w.readOnly != ""} {
			if set {
				return nil, usagef(w.command, "%s needs --exec sandbox", name)
			}
		}
		return nil, nil
	}
	sb := &execbackend.Sandbox{Network: w.network}
	if w.readOnly != "" {
		for _, p := range strings.Split(w.readOnly, ",") {
			abs, err := filepath.Abs(p)
			if p == "" || err != nil {
				return nil, usagef(w.command, "--exec-ro: want host directories separated by commas, got %q", w.readOnly)
			}
			sb.ReadOnly = append(sb.ReadOnly, abs)
		}
	}
	if w.limits != "" {
		seen := map[string]bool{}
		for item := range strings.SplitSeq(w.limits, ",") {
			name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
			n, err := int64(-1), error(nil)
			if value != "unlimited" {
				n, err = strconv.ParseInt(value, 10, 64)
			}
			if !ok || err != nil || n == 0 || n < -1 || n == -1 && value != "unlimited" {
				return nil, usagef(w.command, "--exec-limits: want NAME=N items, N a whole number above 0 or unlimited (nproc, cpu, fsize, as), got %q", item)
			}
			if seen[name] {
				return nil, usagef(w.command, "--exec-limits: %s is given twice", name)
			}
			seen[name] = true
			switch name {
			case "nproc":
				sb.Limits.Processes = int(n)
			case "cpu":
				sb.Limits.CPUSeconds = int(n)
			case "fsize":
				sb.Limits.FileBytes = n
			case "as":
				sb.Limits.AddressSpaceBytes = n
			default:
				return nil, usagef(w.command, "--exec-limits: no limit %q (the limits are nproc, cpu, fsize and as)", name)
			}
		}
	}
	if w.user != "" {
		uid, gid, ok := strings.Cut(w.user, ":")
		u, uerr := strconv.Atoi(uid)
		g, gerr := strconv.Atoi(gid)
		if !ok || uerr != nil || gerr != nil || u <= 0 || g <= 0 {
			return nil, usagef(w.command, "--exec-user: want UID:GID, two numbers above 0, got %q", w.user)
		}
		if os.Geteuid() != 0 {
			return nil, usagef(w.command, "--exec-user is for agenttools running as root; as any other user the commands run as that user")
		}
		sb.UID, sb.GID = u, g
	}
	return sb, nil
}

// workspace is an opened workspace and what to close with it.
type workspace struct {
	ws *vfs.Workspace
	// dbPath is the SQLite database's real path, "" for a PostgreSQL
	// one; name what the command calls the database (that path, or the
	// URL without its password, naming the workspace: shownURL), which
	// also names its exec mirror.
	dbPath, name string
	closers      []io.Closer
	// made is the database file this command created, "" when it
	// existed; madeDir the first directory made for it, "" for none.
	made, madeDir string
	// missing: --readonly found no database (or no such PostgreSQL
	// workspace), and "/" is an empty tree in memory.
	missing bool
	// db is the database (nil before it is opened, or with none), and
	// stderr where Discard says it kept it.
	db     *sqlitefs.FS
	stderr io.Writer
}

func (w *workspace) Close() {
	for i := len(w.closers) - 1; i >= 0; i-- {
		w.closers[i].Close()
	}
}

// Discard closes the workspace of a command that failed, and removes
// the database and its directories if the command created them: a
// failed command leaves no new file behind. A database another process
// opened meanwhile is kept (sqlitefs.FS.Discard), with a note on stderr:
// what it wrote there must not be lost.
func (w *workspace) Discard() {
	removed := false
	for i := len(w.closers) - 1; i >= 0; i-- {
		if c := w.closers[i]; c != io.Closer(w.db) || w.made == "" {
			c.Close()
			continue
		}
		var err error
		if removed, err = w.db.Discard(); err != nil {
			fmt.Fprintf(w.stderr, "agenttools: %v\n", err)
		}
	}
	if w.made == "" || w.madeDir == "" || (w.db != nil && !removed) {
		return
	}
	// Each directory only if empty.
	for dir := filepath.Dir(w.made); ; dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil || dir == w.madeDir || filepath.Dir(dir) == dir {
			return
		}
	}
}

// openStore opens the workspace: "/" in the --db database (which
// sqlitefs makes with an empty /workspace), the --dir host directory at
// /workspace when given. A --db that is a PostgreSQL URL (pgfs.IsURL)
// opens the workspace it names in that database instead (pgfs.Open,
// which makes it, with an empty /workspace, when missing): no file is
// made, and Discard removes nothing.
//
// readonly opens the database read-only (sqlitefs.ReadOnly), and a
// database that does not exist is not created: "/" is then an empty tree
// in memory. Without it, a database this process cannot write is opened
// read-only all the same (sqlitefs.Open), and its tools' changes fail
// saying so. A database this call creates is removed when the call
// fails, and so is one the caller Discards (unless another process
// opened it meanwhile: see workspace.Discard).
func (w *workspaceFlags) openStore(ctx context.Context, readonly bool) (*workspace, error) {
	dbPath, err := filepath.Abs(w.db)
	if err != nil {
		return nil, err
	}
	out := &workspace{stderr: w.stderr}
	if out.stderr == nil {
		out.stderr = os.Stderr
	}
	// The host directory first: a --dir that cannot be opened leaves
	// no database made for nothing.
	var host *hostfs.FS
	if w.dir != "" {
		dir, err := filepath.Abs(w.dir)
		if err != nil {
			return nil, err
		}
		if host, err = hostfs.Open(dir, w.hostOpts...); err != nil {
			return nil, fmt.Errorf("--dir: %w", err)
		}
		out.closers = append(out.closers, host)
	}
	if pgfs.IsURL(w.db) {
		if err := w.openPostgres(ctx, out, readonly); err != nil {
			out.Discard()
			return nil, err
		}
		return out, out.mount(ctx, host)
	}
	var root vfs.Store
	if _, err := os.Lstat(dbPath); errors.Is(err, fs.ErrNotExist) {
		if readonly {
			root, out.missing = memfs.New(), true
		} else {
			out.made, out.madeDir = dbPath, hostio.FirstMissing(filepath.Dir(dbPath))
		}
	}
	if root == nil {
		var opts []sqlitefs.Option
		if readonly {
			opts = append(opts, sqlitefs.ReadOnly())
		} else if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
			// "Created on first use" includes its directory (a client's
			// configuration often names a database in a directory not
			// made yet).
			out.Discard()
			return nil, fmt.Errorf("--db: %w", err)
		}
		db, err := sqlitefs.Open(dbPath, opts...)
		if err != nil {
			out.Discard()
			return nil, fmt.Errorf("--db: %w", err)
		}
		root, out.db, out.closers = db, db, append(out.closers, db)
	}
	// The database through a link is the file it names (one mirror for
	// both, and import leaves it out however it is reached).
	if real, err := filepath.EvalSymlinks(dbPath); err == nil {
		dbPath = real
	}
	out.ws, out.dbPath, out.name = vfs.New(root), dbPath, dbPath
	return out, out.mount(ctx, host)
}

// mount mounts host, when not nil, at /workspace, and Discards w when
// that fails.
func (w *workspace) mount(ctx context.Context, host *hostfs.FS) error {
	if host == nil {
		return nil
	}
	if err := w.ws.Mount(ctx, toolspec.WorkspaceRoot, host, vfs.MountOptions{}); err != nil {
		w.Discard()
		return err
	}
	return nil
}

// openPostgres sets out's root to the workspace the PostgreSQL URL --db
// names. readonly opens it read-only and creates nothing (pgfs.ReadOnly,
// pgfs.Existing): a workspace (or a database without workspace tables)
// that does not exist is then an empty tree in memory, as for a missing
// SQLite file.
func (w *workspaceFlags) openPostgres(ctx context.Context, out *workspace, readonly bool) error {
	name, err := shownURL(w.db, true)
	if err != nil {
		return usagef(w.command, "--db: %v", err)
	}
	out.name = name
	var opts []pgfs.Option
	if readonly {
		opts = append(opts, pgfs.ReadOnly(), pgfs.Existing())
	}
	db, err := pgfs.Open(ctx, w.db, opts...)
	if readonly && errors.Is(err, pgfs.ErrNoWorkspace) {
		out.ws, out.missing = vfs.New(memfs.New()), true
		return nil
	}
	if err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	out.ws, out.closers = vfs.New(db), append(out.closers, db)
	return nil
}

// open builds the tool set over the workspace. When the caller fails,
// it calls Discard on the workspace, else Close.
func (w *workspaceFlags) open(ctx context.Context) (*raw.Tools, *workspace, error) {
	wsp, opts, err := w.setup(ctx)
	if err != nil {
		return nil, nil, err
	}
	tools, err := raw.New(wsp.ws, opts)
	if err != nil {
		wsp.Discard()
		return nil, nil, err
	}
	return tools, wsp, nil
}

// setup opens the workspace and the tool-set options: exec on the host
// directory, or on a mirror of /workspace when it is in the database.
func (w *workspaceFlags) setup(ctx context.Context) (*workspace, agenttools.Options, error) {
	var none agenttools.Options
	if w.exec != "host" && w.exec != "sandbox" && w.exec != "none" {
		return nil, none, usagef(w.command, "--exec: want host, sandbox or none, got %q", w.exec)
	}
	if err := checkPrefix(w.command, w.prefix); err != nil {
		return nil, none, err
	}
	sandbox, err := w.sandbox()
	if err != nil {
		return nil, none, err
	}
	if sandbox != nil && os.Geteuid() == 0 && !w.readonly {
		w.hostOpts = append(w.hostOpts, hostfs.WithOwner(sandbox.RootUser()))
	}
	if sandbox != nil && w.dir != "" && !w.readonly && !pgfs.IsURL(w.db) {
		w.warnDatabaseInside()
	}
	if w.execTimeout < 0 || w.execTimeout > core.MaxExecTimeout {
		return nil, none, usagef(w.command, "--exec-timeout: want milliseconds from 0 to %d, got %d", core.MaxExecTimeout, w.execTimeout)
	}
	// Before anything is opened: a broken overlay leaves no database
	// made for nothing.
	surface, err := loadOverlay(w.overlay)
	if err != nil {
		return nil, none, err
	}
	withExec := w.exec != "none" && !w.readonly
	var output *hostfs.FS
	if withExec && w.output != "" {
		// Before the database, which a failure here would leave made
		// for nothing.
		var err error
		if output, err = hostfs.Open(w.output); err != nil {
			return nil, none, fmt.Errorf("--output: %w", err)
		}
	}
	wsp, err := w.openStore(ctx, w.readonly)
	if err != nil {
		if output != nil {
			output.Close()
		}
		return nil, none, err
	}
	ws := wsp.ws
	opts := agenttools.Options{Readonly: w.readonly, Prefix: w.prefix, ExecTimeout: w.execTimeout, Surface: surface}
	if withExec {
		if output != nil {
			wsp.closers = append(wsp.closers, output)
			if err := ws.Mount(ctx, toolspec.OutputDir, output, vfs.MountOptions{}); err != nil {
				wsp.Discard()
				return nil, none, err
			}
		}
		var backend execbackend.Backend
		hostOpts := execbackend.HostOptions{Sandbox: sandbox}
		if w.dir != "" {
			backend, err = execbackend.NewHost(ws, hostOpts)
		} else {
			// The mirror is made when exec first runs (the other tools
			// never need it): --mirror, or one per database under the
			// user cache directory.
			backend, err = execbackend.NewMirror(ws, execbackend.MirrorOptions{HostOptions: hostOpts, Mirror: w.mirror, Key: wsp.name})
		}
		if err != nil {
			wsp.Discard()
			return nil, none, err
		}
		opts.Backends = []execbackend.Backend{backend}
	}
	return wsp, opts, nil
}

func call(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	w := workspaceFlags{stderr: stderr}
	fl := flags("call", "[--db FILE|URL] [--dir DIR] [--readonly] [--prefix PREFIX] [--overlay FILE] [--exec host|sandbox|none] [--exec-network] [--exec-limits LIMITS] [--exec-ro DIRS] [--exec-user UID:GID] [--exec-timeout MS] [--mirror DIR] [--output DIR] [--typed] TOOL ['ARGS_JSON' | -]",
		"Runs one tool call on the workspace (the --db database, with DIR at /workspace when\ngiven) and prints what the model would receive. ARGS_JSON defaults to {}; - reads it\nfrom standard input. Exit status 0 for a result, 1 for a failure the model would see,\n2 for a usage error (bad flags, an unknown tool, ARGS_JSON that is not JSON at all).", stdout)
	fl.more = toolSummary
	w.register(fl.FlagSet, "host")
	typed := fl.Bool("typed", false, `print the model output object {"type":…,"value":…} instead of the bare value`)
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() < 1 || fl.NArg() > 2 {
		return 0, usagef("call", "want TOOL and at most one ARGS_JSON (flags go before TOOL), got %d arguments", fl.NArg())
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
		return 0, usagef("call", "ARGS_JSON is not valid JSON: %v", reason)
	}
	tools, wsp, err := w.open(ctx)
	if err != nil {
		return 0, err
	}
	if _, ok := tools.Executor().Tool(name); !ok {
		wsp.Discard()
		var names []string
		for _, d := range tools.Definitions() {
			names = append(names, d.Name)
		}
		return 0, usagef("call", "no tool %q (the tools are %s)", name, strings.Join(names, ", "))
	}
	defer wsp.Close()
	out, err := tools.Execute(ctx, name, []byte(argText))
	if err != nil {
		return 0, err
	}
	switch {
	case *typed:
		fmt.Fprintf(stdout, "%s\n", raw.ModelOutput(out))
	case out.Kind == toolspec.OutputText, out.Kind == toolspec.OutputErrorText:
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
	fl := flags("tools", "[--readonly] [--prefix PREFIX] [--overlay FILE] [--exec host|sandbox|none] [--exec-network]", "Prints the tool definitions (name, description, input schema) as a JSON array: those call\noffers with the same flags.", stdout)
	readonly := fl.Bool("readonly", false, "offer read, ls, find and grep only")
	var prefix string
	registerPrefix(fl.FlagSet, &prefix)
	var overlay string
	registerOverlay(fl.FlagSet, &overlay)
	backend := fl.String("exec", "host", "exec backend: host, sandbox or none")
	network := fl.Bool("exec-network", false, "with --exec sandbox: the sandbox has the host's network")
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		return 0, usagef("tools", "takes no arguments, got %d", fl.NArg())
	}
	if *backend != "host" && *backend != "sandbox" && *backend != "none" {
		return 0, usagef("tools", "--exec: want host, sandbox or none, got %q", *backend)
	}
	if *network && *backend != "sandbox" {
		return 0, usagef("tools", "--exec-network needs --exec sandbox")
	}
	if err := checkPrefix("tools", prefix); err != nil {
		return 0, err
	}
	surface, err := loadOverlay(overlay)
	if err != nil {
		return 0, err
	}
	ws := vfs.New(memfs.New())
	opts := agenttools.Options{Readonly: *readonly, Prefix: prefix, Surface: surface}
	if *backend != "none" {
		var sandbox *execbackend.Sandbox
		if *backend == "sandbox" {
			sandbox = &execbackend.Sandbox{Network: *network}
		}
		host, err := execbackend.NewHost(ws, execbackend.HostOptions{Sandbox: sandbox})
		if err != nil {
			return 0, err
		}
		opts.Backends = []execbackend.Backend{host}
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
	fl := flags("replay", "[--workspace memory|sqlite|postgres://URL] [--overlay FILE] CASES.json",
		"Runs the reference oracle's cases (its case format) and prints one JSON line per case,\nwith the oracle's field names. A case that fails says so in its line; the exit status\nis 0 unless the case file (or the --overlay file) cannot be read, or the PostgreSQL\ndatabase of --workspace reached. --overlay applies to every case's tool set\n(a limit a case's toolOptions set still wins over its default).", stdout)
	kind := fl.String("workspace", "memory", "workspace each case starts on: memory, sqlite (a new database per case) or a\nPostgreSQL URL (a new workspace per case in that database, removed after it)")
	var overlay string
	registerOverlay(fl.FlagSet, &overlay)
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 1 {
		return 0, usagef("replay", "want one CASES.json, got %d arguments", fl.NArg())
	}
	newWorkspace := map[string]replay.Workspace{"memory": replay.Memory, "sqlite": replay.SQLite}[*kind]
	if pgfs.IsURL(*kind) {
		if _, err := shownURL(*kind, false); err != nil {
			return 0, usagef("replay", "--workspace: %v", err)
		}
		// A database that cannot be reached (or is another program's)
		// stops the command, not every case.
		if _, err := pgfs.Workspaces(ctx, *kind); err != nil {
			return 0, fmt.Errorf("--workspace: %w", err)
		}
		newWorkspace = replay.Postgres(*kind)
	}
	if newWorkspace == nil {
		return 0, usagef("replay", "unknown workspace %q (memory, sqlite or a postgres:// URL)", *kind)
	}
	surface, err := loadOverlay(overlay)
	if err != nil {
		return 0, err
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
		rec := replay.RunWith(ctx, c, newWorkspace, surface)
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
		"import": "Copies the host directory DIR into the workspace directory --to (created if missing),\nover what is there: files, directories, permission bits and symbolic links (an absolute\nlink into DIR is remapped); a FILE is copied into --to under its name. Prints how many\nnodes it copied, and on stderr how many it passed over (named pipes, sockets, devices).\nA database it created is removed when it fails, unless another process opened it\nmeanwhile.",
		"export": "Copies the workspace directory --from into the host directory DIR (created if missing),\nover what is there: files, directories, permission bits and symbolic links (an absolute\nlink into --from is remapped); a file at --from is copied into DIR under its name. Prints\nhow many nodes it copied. The directories it created are removed when it fails.",
	}[command]
	w := workspaceFlags{stderr: stderr}
	fl := flags(command, map[string]string{"import": "[--db FILE|URL] [--to PATH] DIR|FILE", "export": "[--db FILE|URL] [--from PATH] DIR"}[command], about, stdout)
	fl.StringVar(&w.db, "db", "agenttools.db", "the workspace database: an SQLite file (import creates it if missing, with its\ndirectory; export needs it), or a PostgreSQL URL postgres://…/DATABASE?workspace=NAME\n(import creates the workspace, default \"default\", if missing; export needs it)")
	at := fl.String(map[string]string{"import": "to", "export": "from"}[command], toolspec.WorkspaceRoot, "the workspace directory")
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 1 {
		return 0, usagef(command, "want one %s, got %d arguments", map[string]string{"import": "DIR or FILE", "export": "DIR"}[command], fl.NArg())
	}
	dir, err := filepath.Abs(fl.Arg(0))
	if err != nil {
		return 0, err
	}
	// What is missing stops the command before anything is made.
	if command == "import" {
		if _, err := os.Stat(dir); err != nil {
			return 0, err
		}
	} else if !pgfs.IsURL(w.db) {
		if _, err := os.Stat(w.db); err != nil {
			return 0, fmt.Errorf("--db: %w", err)
		}
	}
	// export reads the workspace read-only, and makes none.
	wsp, err := w.openStore(ctx, command == "export")
	if err != nil {
		return 0, err
	}
	if wsp.missing && pgfs.IsURL(w.db) {
		wsp.Close()
		return 0, errNoWorkspace(w.db)
	}
	var passed []string
	c := hostio.Copy{WS: wsp.ws, Root: vfs.Clean(*at), Dir: dir, Skip: func(p string) bool {
		// The database itself, when it is in the tree.
		return wsp.dbPath != "" && (p == wsp.dbPath || strings.HasPrefix(p, wsp.dbPath+"-"))
	}, PassedOver: func(p string) { passed = append(passed, p) }}
	var n int
	if real, _ := filepath.EvalSymlinks(dir); command == "import" && c.Skip(real) {
		wsp.Discard()
		return 0, fmt.Errorf("%s is the workspace database (--db), not something to import", fl.Arg(0))
	} else if command == "import" {
		n, err = c.Import(ctx)
	} else {
		n, err = c.Export(ctx)
	}
	if errors.Is(err, hostio.ErrImportRoot) {
		err = fmt.Errorf("--to: %w", err)
	}
	if err != nil {
		wsp.Discard()
		return 0, err
	}
	wsp.Close()
	fmt.Fprintf(stdout, "%sed %s\n", command, nodeCount(n))
	switch len(passed) {
	case 0:
	case 1:
		fmt.Fprintf(stderr, "agenttools import: skipped 1 node that is not a file, directory or link: %s\n", passed[0])
	default:
		fmt.Fprintf(stderr, "agenttools import: skipped %d nodes that are not a file, directory or link (the first: %s)\n", len(passed), passed[0])
	}
	return 0, nil
}

// nodeCount is "1 node" or "n nodes".
func nodeCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return strconv.Itoa(n) + " nodes"
}

// integrityLines is how many lines of SQLite's integrity report check
// prints.
const integrityLines = 20

// checkDB examines the workspace database: exit status 0 when it is
// sound, 1 when it is damaged.
func checkDB(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fl := flags("check", "[--db FILE]",
		"Checks the workspace database --db for damage, changing nothing: SQLite's PRAGMA\nintegrity_check over the whole file, then every node (file, directory, link) against its\nchecksum and for values the workspace never writes, every directory's count of entries,\nthe files' content ids (one file each, and there), the counters of revisions and contents,\nevery chunk of file content against its checksum and every file's chunks against its\nsize. Prints what it found. Exit status 0 when the database is sound, 1 when it is\ndamaged, 2 for a usage error or a file that is not a workspace database. SQLite only:\na PostgreSQL URL is a usage error.", stdout)
	db := fl.String("db", "agenttools.db", "the workspace database (SQLite)")
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		return 0, usagef("check", "takes no arguments, got %d", fl.NArg())
	}
	if pgfs.IsURL(*db) {
		return 0, usagef("check", "--db: check examines SQLite workspace databases only, not a PostgreSQL one (a URL)")
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
	w := workspaceFlags{stderr: stderr}
	fl := flags("mcp", "[--db FILE|URL] [--dir DIR] [--readonly] [--prefix PREFIX] [--overlay FILE] [--exec host|sandbox|none] [--exec-network] [--exec-limits LIMITS] [--exec-ro DIRS] [--exec-user UID:GID] [--exec-timeout MS] [--mirror DIR] [--output DIR] [--publish-addr HOST:PORT [--publish-base-url URL]] [--approve mutating|TOOL,TOOL]",
		"Serves the tools over the Model Context Protocol (newline-delimited JSON-RPC on stdin and\nstdout) on the workspace: the --db database, with DIR at /workspace when given. exec is\noff unless --exec sandbox (commands in a bubblewrap sandbox: /workspace, a read-only\nsystem, no network) or --exec host (the client can run any command as this user); publish\nis offered with --publish-addr (signed links to copies served over HTTP). Runs until\nthe client closes the connection; the calls in flight then get 2 s to be answered, the\nrest are cancelled (their commands killed), and it exits 0.", stdout)
	w.register(fl.FlagSet, "none")
	var pf publishFlags
	pf.register(fl.FlagSet)
	var approve string
	fl.StringVar(&approve, "approve", "", "ask the client's user (MCP elicitation) before each call of these tools:\n\"mutating\" (every tool that changes the workspace) or tool names, comma-separated\n(write,exec); a call not approved, or whose client cannot be asked, changes nothing")
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		return 0, usagef("mcp", "takes no arguments, got %d", fl.NArg())
	}
	var approveList core.ApproveList
	if approve != "" {
		approveList = strings.Split(approve, ",")
		if err := approveList.Check(); err != nil {
			return 0, usagef("mcp", "--approve: %s", strings.TrimPrefix(err.Error(), "core: option approve "))
		}
	}
	if err := pf.check(w.readonly); err != nil {
		return 0, err
	}
	// Listen before the workspace is opened: an address in use leaves no
	// database made for nothing.
	published, err := pf.start(stderr)
	if err != nil {
		return 0, err
	}
	defer published.Close()
	wsp, opts, err := w.setup(ctx)
	if err != nil {
		return 0, err
	}
	if published != nil {
		opts.Publisher = published.pub
	}
	opts.Approve = approveList
	set, err := mcp.New(wsp.ws, opts)
	if err != nil {
		wsp.Discard()
		return 0, err
	}
	defer wsp.Close()
	// One line for the client's log (and a person at a terminal): what
	// is served, on what.
	var names []string
	for _, t := range set.Executor().Tools() {
		name := t.Name
		if t.Spec == toolspec.ToolExec {
			// Whether commands are confined is the first thing an
			// operator wants to know.
			name += " (" + w.execMode() + ")"
		}
		names = append(names, name)
	}
	where := wsp.name
	if wsp.missing {
		where = "an empty workspace in memory (" + wsp.name + " does not exist, and --readonly makes none)"
	}
	if w.dir != "" {
		where += ", /workspace at " + w.dir
	}
	if w.overlay != "" {
		where += ", with the overlay " + w.overlay
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
