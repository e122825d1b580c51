// Command toolgen generates Go code from the agenttools spec. It has two
// modes.
//
// Without -overlay it generates, from spec/tools.cue, the Go code of the
// tool set (package toolspec's *_gen.go files and each adapter's
// tools_gen.go) and docs/deviations.md. By default it only checks: it
// names on stderr every generated file that is stale, missing or orphaned
// (a generated Go file the spec no longer makes), prints a unified diff of
// each on stdout (not with -q) and exits 1, or exits 0 when the tree is up
// to date. With -w it writes the files that changed (and only those) and
// removes orphans. This is the repository's only go:generate entry, so
// `go generate ./...` writes and `go run ./cmd/toolgen` checks. It runs
// from anywhere in the module: the files are found from the directory
// holding go.mod.
//
// With -overlay FILE it writes, in a user's module, a package that builds
// the tool set with the changes FILE makes to what the model sees (tool
// descriptions, parameter descriptions, default limits, tools not
// offered): the file OUT/agenttools_gen.go, only when its bytes change,
// holding the overlay as a toolspec.Overlay literal (Overlay), its surface
// (Surface), the adapter options that carry it (Options) and, for each
// adapter -adapters names, constructors with the adapter's own signature
// (NewLangchaingo, NewMCP and NewMCPServer, NewGenkit and DefineGenkit,
// NewEino, NewRaw). FILE is CUE (any package name, or none) or, ending in
// .json, JSON; it is checked against the spec's #Overlay (spec/overlay.cue)
// and toolspec's Surface.With, and every mistake is reported with FILE's
// line and column. With -check it writes nothing: it names the stale file,
// prints its diff and exits 1. Paths are relative to the current
// directory, which for go generate is the directory of the file holding
// the //go:generate line:
//
//	//go:generate go tool toolgen -overlay agenttools.cue -out ./tools -adapters langchaingo,mcp
//
// go tool runs the toolgen named by a tool directive in the user's go.mod
// (go get -tool github.com/agenttools/agenttools/cmd/toolgen, or go mod
// edit -tool with a replace while the module is unpublished), which keeps
// the generator's dependencies (CUE, jennifer) in go.mod and go.sum. go run
// of the package path works only while they are there: without the
// directive go build reports missing go.sum entries, and go mod tidy drops
// them again since no package of the module imports them.
//
// Usage:
//
//	toolgen [-w] [-q]
//	toolgen -overlay FILE [-out DIR] [-package NAME] [-adapters LIST] [-check [-q]]
//
// Exit status: 0 up to date (or written), 1 stale, 2 a usage error, or the
// spec, the overlay, the generator or reading and writing the files failed
// (a CUE error or a refused change names the file, line and column).
package main

//go:generate go run . -w

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/spec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("toolgen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	write := fl.Bool("w", false, "write the generated files instead of checking them (without -overlay)")
	quiet := fl.Bool("q", false, "in check mode, name stale files without printing diffs")
	overlay := fl.String("overlay", "", "generate a user's package from this overlay `file` (.cue, or .json)")
	out := fl.String("out", ".", "with -overlay: the `directory` of the package to write")
	pkg := fl.String("package", "", "with -overlay: the package `name` (default: the one the directory's Go files declare, else the directory's name)")
	adapters := fl.String("adapters", "", "with -overlay: comma-separated `list` of adapters to write constructors for: "+strings.Join(toolgen.UserAdapters, ","))
	check := fl.Bool("check", false, "with -overlay: check the package instead of writing it")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: toolgen [-w] [-q]
       toolgen -overlay FILE [-out DIR] [-package NAME] [-adapters LIST] [-check [-q]]

Without -overlay: checks (default) or writes (-w) the code generated from
spec/tools.cue, in this module.
With -overlay: writes DIR/`+toolgen.UserFile+`, a package that builds the tool set
with the changes FILE makes to what the model sees; -check only checks it.
`)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fl.Usage()
		return 2
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *overlay != "" {
		if *write {
			fmt.Fprintln(stderr, "toolgen: -w is for the spec's code; with -overlay, toolgen writes unless -check")
			return 2
		}
		return runOverlay(overlayArgs{file: *overlay, out: *out, pkg: *pkg, adapters: *adapters, check: *check, quiet: *quiet}, stdout, stderr)
	}
	for _, name := range []string{"out", "package", "adapters", "check"} {
		if set[name] {
			fmt.Fprintf(stderr, "toolgen: -%s needs -overlay\n", name)
			return 2
		}
	}
	root, err := toolgen.ModuleRoot(".")
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	model, err := toolgen.Load(spec.Filename, spec.Source)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	files, err := toolgen.Generate(model)
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	changes, err := toolgen.Diff(root, files)
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	return apply(root, changes, *write, *quiet, "go generate ./...", stdout, stderr)
}

// apply writes the changes (write) or reports them and returns 1 when
// there are any, telling the user to run fix.
func apply(root string, changes []toolgen.Change, write, quiet bool, fix string, stdout, stderr io.Writer) int {
	if write {
		if err := toolgen.Apply(root, changes); err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
		for _, c := range changes {
			fmt.Fprintln(stdout, "toolgen:", c.Applied())
		}
		return 0
	}
	if len(changes) == 0 {
		return 0
	}
	for _, c := range changes {
		fmt.Fprintln(stderr, "toolgen:", c.Describe())
		if !quiet {
			fmt.Fprint(stdout, c.Unified())
		}
	}
	fmt.Fprintln(stderr, "toolgen: generated code is stale; run "+fix)
	return 1
}
