// Command toolgen generates, from spec/tools.cue, the Go code of the tool
// set (package toolspec's *_gen.go files and each adapter's tools_gen.go)
// and docs/deviations.md.
//
// By default it only checks: it names on stderr every generated file that
// is stale, missing or orphaned (a generated Go file the spec no longer
// makes), prints a unified diff of each on stdout (not with -q) and exits
// 1, or exits 0 when the tree is up to date. With -w it writes the files
// that changed (and only those) and removes orphans. This is the
// repository's only go:generate entry, so `go generate ./...` writes and
// `go run ./cmd/toolgen` checks. It runs from anywhere in the module: the
// files are found from the directory holding go.mod.
//
// Usage:
//
//	toolgen [-w] [-q]
//
// Exit status: 0 up to date (or written), 1 stale, 2 a usage error, or the
// spec, the generator or reading and writing the files failed (a CUE error
// names the file, line and column).
package main

//go:generate go run . -w

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/spec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("toolgen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	write := fl.Bool("w", false, "write the generated files instead of checking them")
	quiet := fl.Bool("q", false, "in check mode, name stale files without printing diffs")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: toolgen [-w] [-q]\n\nChecks (default) or writes (-w) the code generated from spec/tools.cue.")
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
	if *write {
		if err := toolgen.Apply(root, changes); err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
		for _, c := range changes {
			fmt.Fprintln(stdout, "toolgen: wrote", c.Describe())
		}
		return 0
	}
	if len(changes) == 0 {
		return 0
	}
	for _, c := range changes {
		fmt.Fprintln(stderr, "toolgen:", c.Describe())
		if !*quiet {
			fmt.Fprint(stdout, c.Unified())
		}
	}
	fmt.Fprintln(stderr, "toolgen: generated code is stale; run go generate ./...")
	return 1
}
