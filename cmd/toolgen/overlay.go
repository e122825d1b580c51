package main

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/internal/toolgen"
)

type overlayArgs struct {
	file, out, pkg, adapters string
	check, quiet             bool
}

// runOverlay is toolgen -overlay: it writes (or, with check, checks)
// a.out/agenttools_gen.go from the overlay file a.file.
func runOverlay(a overlayArgs, stdout, stderr io.Writer) int {
	o, _, err := toolgen.ReadOverlay(a.file)
	var pe *toolgen.PosError
	switch {
	case errors.As(err, &pe):
		fmt.Fprintln(stderr, err)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	name := a.pkg
	if name == "" {
		if name, err = packageName(a.out); err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
	}
	var adapters []string
	for _, s := range strings.Split(a.adapters, ",") {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(adapters, s) {
			adapters = append(adapters, s)
		}
	}
	// The header names the file as the user's module does, so it is the
	// same on every machine: an absolute path is cut to its base name.
	source := filepath.ToSlash(filepath.Clean(a.file))
	if filepath.IsAbs(a.file) {
		source = filepath.Base(a.file)
	}
	data, err := toolgen.GenerateUser(toolgen.UserPackage{Overlay: o, Source: source, Package: name, Adapters: adapters})
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	changes, err := toolgen.DiffFiles("", map[string][]byte{filepath.ToSlash(filepath.Join(a.out, toolgen.UserFile)): data})
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	return apply("", changes, !a.check, a.quiet, "go generate", stdout, stderr)
}

// packageName is the package the Go files in dir declare (other than
// the generated file and tests), or else the directory's name, which
// must then be a Go identifier.
func packageName(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == toolgen.UserFile {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		return f.Name.Name, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	name := filepath.Base(abs)
	if !token.IsIdentifier(name) {
		return "", fmt.Errorf("the directory name %q is not a Go package name; give -package", name)
	}
	return name, nil
}
