package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/goldentest"
)

// The user's module of examples/overlay, its overlay and what go generate
// makes of it there.
const (
	exampleDir = "../../examples/overlay"
	generated  = "tools/agenttools_gen.go"
	regenerate = "(cd examples/overlay && go generate ./...)"
)

// TestOverlayExample is the user's path from their own module: a copy of
// examples/overlay, built against this repository through its replace,
// runs go generate (toolgen -overlay through the go.mod tool directive),
// which writes the committed tools/agenttools_gen.go byte for byte; then
// go build and go test pass there (its tests show what the model sees
// through langchaingo and MCP), and leave its go.mod and go.sum as they
// are. It runs offline, from the module cache this module's own tests
// fill. A copy whose overlay has a type error or
// an unknown field (CUE's message), renames a parameter or sets a fixed
// limit (refused) fails go generate with the overlay's file:line.
func TestOverlayExample(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: the example module cannot be built")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(exampleDir, generated))
	if err != nil {
		t.Fatal(err)
	}

	dir := copyExample(t, repo)
	modFiles := func() []byte {
		t.Helper()
		var both []byte
		for _, name := range []string{"go.mod", "go.sum"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			both = append(both, data...)
		}
		return both
	}
	before := modFiles()
	goCommand(t, dir, "generate", "./...")
	got, err := os.ReadFile(filepath.Join(dir, generated))
	if err != nil {
		t.Fatal(err)
	}
	goCommand(t, dir, "build", "./...")
	goCommand(t, dir, "test", "./...")
	if !bytes.Equal(modFiles(), before) {
		t.Errorf("go generate, build and test changed examples/overlay's go.mod or go.sum: run (cd examples/overlay && go mod tidy)")
	}
	switch {
	case bytes.Equal(got, committed):
	case *goldentest.Update && !t.Failed():
		if err := os.WriteFile(filepath.Join(exampleDir, generated), got, 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("examples/overlay/%s is stale: go generate there writes another file; run %s (or %s)", generated, regenerate, goldentest.UpdateCommand(t))
	}

	// The overlay's mistakes, each at a line of its own appended to the
	// example's agenttools.cue: go generate stops and names that line.
	src, err := os.ReadFile(filepath.Join(exampleDir, "agenttools.cue"))
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Count(src, []byte("\n")) + 1
	for _, c := range []struct{ name, add, want string }{
		{"type error", `tools: write: limits: maxBytes: "1MB"`, "tools.write.limits.maxBytes: conflicting values"},
		{"unknown field", `tools: grep: summary: "Search"`, "tools.grep.summary: field not allowed"},
		{"renamed parameter", `tools: read: params: lines: "How many lines"`, "tools.read.params.lines: read has no parameter lines"},
		{"fixed limit", `tools: ls: limits: page: 50`, "tools.ls.limits.page: ls's page is fixed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			broken := append(append(bytes.Clone(src), c.add...), '\n')
			if err := os.WriteFile(filepath.Join(dir, "agenttools.cue"), broken, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := goRun(dir, "generate", "./...")
			if err == nil {
				t.Fatalf("go generate accepted the overlay with %s:\n%s", c.add, out)
			}
			at := "agenttools.cue:" + strconv.Itoa(line) + ":"
			if !strings.Contains(out, at) || !strings.Contains(out, c.want) {
				t.Errorf("go generate on the overlay with %s said\n%s\nwant %s and %s", c.add, out, at, c.want)
			}
		})
	}
}

// copyExample copies examples/overlay into a scratch directory, with its
// replace pointing at repo and without the generated file (so go generate
// must make it), and returns the copy's directory.
func copyExample(t *testing.T, repo string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "overlay")
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, generated)); err != nil {
		t.Fatal(err)
	}
	goCommand(t, dir, "mod", "edit", "-replace", "github.com/agenttools/agenttools="+repo)
	return dir
}

// goCommand runs the go command in dir and fails the test when it fails.
func goCommand(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := goRun(dir, args...); err != nil {
		t.Fatalf("go %s in a copy of examples/overlay: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// goRun runs the go command in dir offline, with the module cache as it
// is and this toolchain, and returns its combined output.
func goRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestReadmeOverlay pins README's "Change what the model sees" to what
// toolgen and examples/overlay do: its //go:generate line is the
// example's, toolgen accepts its overlay and, with the line README adds,
// stops with the error README shows; the settable limits it lists are
// the spec's.
func TestReadmeOverlay(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Change what the model sees\n")
	section, _, _ = strings.Cut(section, "\n## ")
	if section == "" {
		t.Fatal(`README.md has no section "## Change what the model sees"`)
	}
	gen, err := os.ReadFile(filepath.Join(exampleDir, "generate.go"))
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(string(gen), "//go:generate ")
	line, _, _ = strings.Cut(line, "\n")
	if !strings.Contains(section, "\n//go:generate "+line+"\n") {
		t.Errorf("README.md does not show examples/overlay's line //go:generate %s", line)
	}

	_, overlay, _ := strings.Cut(section, "```cue\n")
	overlay, _, _ = strings.Cut(overlay, "```")
	_, bad, _ := strings.Cut(section, "Adding `")
	bad, _, _ = strings.Cut(bad, "`")
	t.Chdir(t.TempDir())
	toolgen := func(src string) (code int, stderr string) {
		t.Helper()
		if err := os.WriteFile("agenttools.cue", []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		code = run([]string{"-overlay", "agenttools.cue", "-out", "tools"}, &out, &errs)
		return code, errs.String()
	}
	if code, errs := toolgen(overlay); code != 0 {
		t.Fatalf("toolgen refuses README's overlay (exit %d):\n%s\n%s", code, errs, overlay)
	}
	if code, errs := toolgen(overlay + bad + "\n"); code == 0 || !strings.Contains(section, "\n```\n"+errs+"```\n") {
		t.Errorf("with README's line %s, toolgen exits %d and says\n%s\nwhich README does not show", bad, code, errs)
	}

	// toolgen's refusal of a fixed limit lists the settable ones.
	_, errs := toolgen("tools: ls: limits: page: 50\n")
	_, settable, found := strings.Cut(strings.TrimSpace(errs), "settable limits: ")
	flat := strings.Join(strings.Fields(strings.ReplaceAll(section, "`", "")), " ")
	if !found || !strings.Contains(flat, "settable ("+settable+")") {
		t.Errorf("README.md does not list the settable limits as toolgen does: %s", settable)
	}
}
