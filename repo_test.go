package agenttools_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

const module = "github.com/agenttools/agenttools"

type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
	TestGoFiles  []string
	XTestGoFiles []string
	// Module is the module the package is in: the directory the go
	// command runs in for it.
	Module struct{ Dir string }
}

// listPackages lists the packages of the main module and of the
// repository's other modules (goldentest.OtherModules, less those another
// test runs), so that the rules here hold in every module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	root := goldentest.ModuleRoot(t)
	dirs := []string{root}
	for _, dir := range goldentest.OtherModules(t, root) {
		if !slices.Contains(goldentest.TestedElsewhere, dir) {
			dirs = append(dirs, filepath.Join(root, dir))
		}
	}
	var pkgs []pkg
	for _, dir := range dirs {
		cmd := exec.Command("go", "list", "-json", "-deps=false", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", dir, err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var p pkg
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

func rel(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// generationOnly are the modules and packages used to generate code; no
// package that runs in an agent may depend on them.
var generationOnly = []string{"cuelang.org/", "github.com/dave/jennifer", module + "/internal/toolgen", module + "/spec"}

// overlayFiles are the generator's files that import toolspec: an
// overlay is checked by toolspec's Surface.With, the one check run-time
// overrides pass too, and the user's package is written from its
// toolspec.Overlay. The rest of the generator (spec to code) must not
// depend on what it generates.
var overlayFiles = map[string]bool{"internal/toolgen/overlayfile.go": true, "internal/toolgen/userpkg.go": true}

// overlayLoaders are the files of programs that run tools which may
// import the generator's overlay loader (internal/toolgen's LoadOverlay,
// and with it CUE): `agenttools --overlay FILE` reads an overlay file as
// cmd/toolgen -overlay does, with CUE's own errors at the file's
// line:col, so a server's user changes what the model sees without Go
// code. The exception is this one file: the rest of the command, and
// every other package that runs tools, must still not depend on the
// generator (their dependencies are checked without the loader's).
var overlayLoaders = map[string]bool{"cmd/agenttools/overlay.go": true}

// importing lists the Go files of p (not its tests) that import imp.
func importing(t *testing.T, p pkg, imp string) []string {
	t.Helper()
	var files []string
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool { return s.Path.Value == strconv.Quote(imp) }) {
			files = append(files, name)
		}
	}
	return files
}

// loaderImports are the generation-only imports of p that its
// overlayLoaders make, when no other file of p makes them; an import of
// the generator by another file is an error.
func loaderImports(t *testing.T, p pkg) map[string]bool {
	t.Helper()
	loaded := map[string]bool{}
	for _, imp := range p.Imports {
		if !slices.ContainsFunc(generationOnly, func(g string) bool { return strings.HasPrefix(imp, g) }) {
			continue
		}
		for _, file := range importing(t, p, imp) {
			if !overlayLoaders[rel(p.ImportPath)+"/"+file] {
				t.Errorf("%s/%s imports %s, which only the generator may use (and, to read an overlay, the files of overlayLoaders)", rel(p.ImportPath), file, imp)
				continue
			}
			loaded[imp] = true
		}
	}
	return loaded
}

// runtimeInternal are the internal packages the exec backends and the
// stores may use: host helpers that know nothing of the tools.
var runtimeInternal = map[string]bool{"internal/cgroup": true, "internal/hostio": true}

// frameworks may be imported only by their own adapter.
var frameworks = map[string]string{
	"github.com/tmc/langchaingo":             "adapters/langchaingo",
	"github.com/firebase/genkit":             "adapters/genkit",
	"github.com/cloudwego/eino":              "adapters/eino",
	"github.com/modelcontextprotocol/go-sdk": "adapters/mcp",
	"github.com/openai/openai-go":            "adapters/openai",
	"github.com/anthropics/anthropic-sdk-go": "adapters/anthropic",
}

// TestImportBoundaries enforces the dependency directions of docs/ARCHITECTURE.md.
func TestImportBoundaries(t *testing.T) {
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		generator := r == "internal/toolgen" || r == "cmd/toolgen" || r == "spec"
		for _, imp := range p.Imports {
			ir := rel(imp)
			switch {
			case r == "toolspec" && !isStd(imp) && ir != "internal/placeholder":
				t.Errorf("toolspec imports %s; it may import only the standard library and internal/placeholder", imp)
			case r == "internal/placeholder" && !isStd(imp):
				t.Errorf("internal/placeholder imports %s; toolspec imports it, so it may import only the standard library", imp)
			case r == "core/errno" && !isStd(imp):
				t.Errorf("core/errno imports %s", imp)
			case strings.HasPrefix(r, "core") && (strings.HasPrefix(ir, "adapters/") || strings.HasPrefix(ir, "cmd/")):
				t.Errorf("%s imports %s; core must not import adapters or commands", r, imp)
			case r == "core/execbackend" && (ir == "core" || strings.HasPrefix(ir, "internal/") && !runtimeInternal[ir]):
				t.Errorf("%s imports %s; the exec runtime must not import the tools", r, imp)
			case strings.HasPrefix(r, "core/vfs") && (ir == "core" || strings.HasPrefix(ir, "internal/") && !runtimeInternal[ir]):
				t.Errorf("%s imports %s; vfs must not import core", r, imp)
			case generator && ir == "toolspec":
				for _, file := range importing(t, p, imp) {
					if !overlayFiles[r+"/"+file] {
						t.Errorf("%s/%s imports %s; the generator must not import what it generates, except to read an overlay (see overlayFiles)", r, file, imp)
					}
				}
			case generator && (ir == "core" || strings.HasPrefix(ir, "core/") || strings.HasPrefix(ir, "adapters/")):
				t.Errorf("%s imports %s; the generator must not import what it generates or runs", r, imp)
			}
			for prefix, home := range frameworks {
				if strings.HasPrefix(imp, prefix) && !strings.HasPrefix(r, home) && !strings.HasPrefix(r, "examples/") {
					t.Errorf("%s imports %s; only %s may", r, imp, home)
				}
			}
		}
		if generator {
			continue
		}
		roots := []string{p.ImportPath}
		if loaded := loaderImports(t, p); len(loaded) > 0 {
			// The package's dependencies but those the loader file
			// brings: its imports, less the ones only that file makes.
			roots = slices.DeleteFunc(slices.Clone(p.Imports), func(imp string) bool { return loaded[imp] })
		}
		list := exec.Command("go", append([]string{"list", "-deps"}, roots...)...)
		list.Dir = p.Module.Dir
		list.Env = append(os.Environ(), "GOWORK=off")
		deps, err := list.Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, dep := range strings.Fields(string(deps)) {
			for _, g := range generationOnly {
				if strings.HasPrefix(dep, g) {
					t.Errorf("%s depends on %s, which only the generator may use", r, dep)
				}
			}
		}
	}
}

// TestEveryTestPackageTakesUpdate checks each package with tests imports
// internal/goldentest, so `go test ./... -update` never meets a test
// binary without the flag.
func TestEveryTestPackageTakesUpdate(t *testing.T) {
	const flagPkg = module + "/internal/goldentest"
	for _, p := range listPackages(t) {
		if p.ImportPath == flagPkg {
			continue // its own tests register the flag by being in it
		}
		if len(p.TestGoFiles) > 0 && !slices.Contains(p.TestImports, flagPkg) && !slices.Contains(p.Imports, flagPkg) {
			t.Errorf("%s: its in-package tests do not import internal/goldentest", rel(p.ImportPath))
		}
		if len(p.XTestGoFiles) > 0 && !slices.Contains(p.XTestImports, flagPkg) {
			t.Errorf("%s: its _test package does not import internal/goldentest", rel(p.ImportPath))
		}
	}
}

// TestNoModelTextOutsideSpec: every text a model can see comes from the
// spec through toolspec; no adapter, and none of the code that builds the
// results (core, its exec runtime and stores, the host helpers), spells
// one. A string literal in their hand-written code that is a piece of a
// model-facing text (a description, a message, a schema) fails, so
// changing a text in the spec changes what every framework sends, with
// no other edit. A literal is taken apart at its fmt verbs (%s, %d, ...)
// and compared with the spec's templates, placeholders and verbs alike
// standing for any value, so a text built with fmt is found too. Only
// prose is compared (12 bytes or more with a space, or 30 bytes or
// more): short vocabulary such as "file" or ", " is not told apart from
// other strings this way.
func TestNoModelTextOutsideSpec(t *testing.T) {
	var texts []string
	for _, e := range toolspec.Catalog {
		texts = append(texts, e.Sample, placeholderRE.ReplaceAllString(e.Template, "{}"))
	}
	texts = append(texts, toolspec.LsDescription, toolspec.FindDescription, toolspec.GrepDescription, toolspec.WriteDescription,
		toolspec.EditDescription, toolspec.DeleteDescription, toolspec.ReadDescription(toolspec.ReadMaxLinesDefault, toolspec.ReadMaxBytesDefault),
		toolspec.LsInputSchema, toolspec.FindInputSchema, toolspec.GrepInputSchema, toolspec.WriteInputSchema, toolspec.EditInputSchema,
		toolspec.DeleteInputSchema, toolspec.ReadInputSchema,
		toolspec.ExecDescription("", []toolspec.ExecBackend{{ID: "a"}, {ID: "b", Callable: true}}, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault),
		toolspec.ExecInputSchema([]toolspec.ExecBackend{{ID: "a"}, {ID: "b", Callable: true}}))
	var files []string
	for _, pattern := range []string{"adapters/*/*.go", "adapters/*/*/*.go", "core/*.go", "core/*/*.go", "core/*/*/*.go", "internal/hostio/*.go", "internal/adapt/*.go"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	checked := map[string]int{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || strings.HasSuffix(file, "_gen.go") || forPeople[file] != "" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked[strings.SplitN(file, "/", 2)[0]]++
		for _, lit := range modelTextLiterals(f, texts) {
			t.Errorf("%s: the literal %q is model-facing text; take it from toolspec", file, lit)
		}
	}
	if checked["adapters"] < 4 || checked["core"] < 40 {
		t.Errorf("checked %v files", checked)
	}
}

// forPeople are the files among those TestNoModelTextOutsideSpec reads
// whose texts only people read, never a model, and why.
var forPeople = map[string]string{
	"core/vfs/sqlitefs/check.go": "the report of agenttools check (sqlitefs.Check), which words damage in more detail than the model's reasons",
}

// placeholderRE matches a spec template's placeholder, {name} or
// {name|format}.
var placeholderRE = regexp.MustCompile(`\{[A-Za-z0-9]+(\|[a-z]+)?\}`)

// verbRE matches a fmt verb.
var verbRE = regexp.MustCompile(`%[-+# 0]*(\*|[0-9]+)?(\.(\*|[0-9]+))?[a-zA-Z]`)

// modelTextLiterals returns the string literals of f that hold a piece of
// one of texts (where "{}" stands for any value): the literal with its
// fmt verbs as "{}", or a run of it between two verbs.
func modelTextLiterals(f *ast.File, texts []string) []string {
	prose := func(s string) bool { return len(s) >= 12 && strings.Contains(s, " ") || len(s) >= 30 }
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if imp, ok := n.(*ast.ImportSpec); ok && imp != nil {
			return false
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		normal := verbRE.ReplaceAllString(s, "{}")
		pieces := append([]string{normal}, strings.Split(normal, "{}")...)
		for _, piece := range pieces {
			if !prose(piece) {
				continue
			}
			if slices.ContainsFunc(texts, func(text string) bool { return strings.Contains(text, piece) }) {
				found = append(found, s)
				return true
			}
		}
		return true
	})
	return found
}

// TestExamplesBuild: the examples a user copies compile.
func TestExamplesBuild(t *testing.T) {
	if out, err := exec.Command("go", "build", "./examples/...").CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
}

// TestRootAliasesComplete: the root package names every type a user of
// Options meets (the option groups, reached through Options' fields) and
// the result type every adapter hands out, so that importing agenttools
// alone configures a tool set and reads its output.
func TestRootAliasesComplete(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "agenttools.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	aliased := map[string]bool{} // "core.Options", "toolspec.Output"
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Assign.IsValid() {
			if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
				aliased[sel.X.(*ast.Ident).Name+"."+sel.Sel.Name] = true
			}
		}
		return true
	})
	want := map[string]bool{"toolspec.Output": true, "toolspec.OutputKind": true, "toolspec.Media": true}
	var visit func(reflect.Type)
	visit = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.PkgPath() != module+"/core" || want["core."+typ.Name()] {
			return
		}
		want["core."+typ.Name()] = true
		if typ.Kind() == reflect.Struct {
			for i := range typ.NumField() {
				if typ.Field(i).IsExported() {
					visit(typ.Field(i).Type)
				}
			}
		}
	}
	visit(reflect.TypeFor[core.Options]())
	for name := range want {
		if !aliased[name] {
			t.Errorf("agenttools.go has no alias of %s", name)
		}
	}
}

// TestNoProgramsTracked: no file git tracks is a compiled program (ELF,
// Mach-O, PE), such as the binary `go build ./...` leaves in a module
// whose only package is a main package (examples/anthropic) when run
// without -o. Skipped where git or the repository's history is missing.
func TestNoProgramsTracked(t *testing.T) {
	root := goldentest.ModuleRoot(t)
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	magics := [][]byte{
		[]byte("\x7fELF"),
		{0xcf, 0xfa, 0xed, 0xfe}, {0xce, 0xfa, 0xed, 0xfe}, // Mach-O, little-endian
		{0xfe, 0xed, 0xfa, 0xcf}, {0xfe, 0xed, 0xfa, 0xce},
		[]byte("MZ"), // PE
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magics {
			if bytes.HasPrefix(head[:n], m) {
				t.Errorf("%s is a compiled program; build output is not tracked", name)
				break
			}
		}
	}
}
