package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/toolspec"
)

// TestCheckThenWrite runs toolgen in a scratch module: check mode reports
// the stale file with a diff and exits 1, -w writes, and check mode then
// exits 0.
func TestCheckThenWrite(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	var out, errs bytes.Buffer
	if code := run(nil, &out, &errs); code != 1 {
		t.Fatalf("check on an empty module: exit %d, want 1\n%s", code, errs.String())
	}
	if !strings.Contains(errs.String(), "toolspec/read_gen.go: missing") || !strings.Contains(out.String(), "+++ b/toolspec/read_gen.go") {
		t.Errorf("check did not name and diff toolspec/read_gen.go:\nstderr: %.300s\nstdout: %.300s", errs.String(), out.String())
	}
	out.Reset()
	errs.Reset()
	if code := run([]string{"-w"}, &out, &errs); code != 0 {
		t.Fatalf("-w: exit %d\n%s", code, errs.String())
	}
	if _, err := os.Stat(filepath.Join(root, "toolspec", "read_gen.go")); err != nil {
		t.Fatal(err)
	}
	if code := run(nil, &out, &errs); code != 0 {
		t.Fatalf("check after -w: exit %d\n%s", code, errs.String())
	}
	if code := run([]string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("an extra argument: exit %d, want 2", code)
	}
}

// TestOverlayPackage runs toolgen -overlay as go generate would (in the
// overlay's directory, paths relative to it) on testdata/overlay.txtar's
// agenttools.cue, with all five adapters, into a directory inside this
// module (its name starts with "_", so ./... patterns skip it): the
// file's bytes are the archive's, a second run writes nothing, -check
// passes, and go test builds and vets the package against the module's
// adapters and runs useTest in it.
func TestOverlayPackage(t *testing.T) {
	root := goldentest.ModuleRoot(t)
	a := goldentest.Load(t, filepath.Join(root, "cmd", "toolgen", "testdata", "overlay.txtar"))
	src, ok := a.Section("agenttools.cue")
	if !ok {
		t.Fatal("no section agenttools.cue")
	}
	dir, err := os.MkdirTemp(filepath.Join(root, "cmd", "toolgen"), "_overlay")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "agenttools.cue"), []byte(src+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	args := []string{"-overlay", "agenttools.cue", "-out", "./tools", "-adapters", "langchaingo,mcp,genkit,eino,raw"}
	var out, errs bytes.Buffer
	if code := run(args, &out, &errs); code != 0 || out.String() != "toolgen: wrote tools/agenttools_gen.go\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errs.String())
	}
	got, err := os.ReadFile(filepath.Join("tools", "agenttools_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	a.Check(t, "tools/agenttools_gen.go", strings.TrimSuffix(string(got), "\n"))
	out.Reset()
	if code := run(args, &out, &errs); code != 0 || out.Len() != 0 {
		t.Errorf("second run: exit %d, stdout %q; want 0 and nothing written", code, out.String())
	}
	if code := run(append(args, "-check"), &out, &errs); code != 0 {
		t.Errorf("-check after writing: exit %d\n%s", code, errs.String())
	}
	if err := os.WriteFile(filepath.Join("tools", "use_test.go"), []byte(useTest), 0o644); err != nil {
		t.Fatal(err)
	}
	// A package generated for an overlay that this agenttools refuses, as
	// one generated with another version may be.
	stale, err := toolgen.GenerateUser(toolgen.UserPackage{Source: "agenttools.cue", Package: "stale", Overlay: toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Limits: map[string]int64{"maxLines": 0}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("stale", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("stale", toolgen.UserFile), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("stale", "stale_test.go"), []byte(staleTest), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("go", "test", "-count=1", "./tools", "./stale").CombinedOutput(); err != nil {
		t.Errorf("go test of the generated packages: %v\n%s", err, b)
	}
	a.Save(t, func(name string) bool { return name == "agenttools.cue" })
}

// TestOverlayCommand: toolgen -overlay reports a mistake of the overlay
// at its line and column and writes nothing, -check reports a stale file
// with exit 1, the package name comes from the directory's Go files, and
// the flags of one mode are refused in the other.
func TestOverlayCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errs bytes.Buffer
	do := func(args ...string) int {
		out.Reset()
		errs.Reset()
		return run(args, &out, &errs)
	}

	write("agenttools.cue", "package agenttools\n\ntools: read: descripton: \"Read a file\"\ntools: ls: limits: page: 50\n")
	if code := do("-overlay", "agenttools.cue", "-out", "gen"); code != 2 || errs.String() != "agenttools.cue:3:14: tools.read.descripton: field not allowed; a tool's fields: offered, description, params, limits\n" {
		t.Errorf("a misspelt field: exit %d, stderr %q", code, errs.String())
	}
	write("agenttools.cue", "package agenttools\n\ntools: read: description: \"Read a file\"\ntools: ls: limits: page: 50\n")
	if code := do("-overlay", "agenttools.cue", "-out", "gen"); code != 2 || !strings.HasPrefix(errs.String(), "agenttools.cue:4:20: tools.ls.limits.page: ls's page is fixed: ") {
		t.Errorf("a fixed limit: exit %d, stderr %q", code, errs.String())
	}
	if _, err := os.Stat("gen"); !os.IsNotExist(err) {
		t.Errorf("a refused overlay wrote something: %v", err)
	}

	write("agenttools.json", `{"tools": {"read": {"description": "Read a file"}}}`)
	write("gen/doc.go", "// Package agenttools builds our tools.\npackage agenttools\n")
	if code := do("-overlay", "agenttools.json", "-out", "gen"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	got, err := os.ReadFile(filepath.Join("gen", "agenttools_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("// Code generated by toolgen from agenttools.json. DO NOT EDIT.\n\npackage agenttools\n")) {
		t.Errorf("header and package clause:\n%.120s", got)
	}
	write("agenttools.json", `{"tools": {"read": {"description": "Read one file"}}}`)
	if code := do("-overlay", "agenttools.json", "-out", "gen", "-check"); code != 1 ||
		errs.String() != "toolgen: gen/agenttools_gen.go: stale\ntoolgen: generated code is stale; run go generate\n" ||
		!strings.Contains(out.String(), "\n+\t\t\tDescription: new(\"Read one file\"),\n") {
		t.Errorf("-check of a stale file: exit %d\nstderr: %s\nstdout: %s", code, errs.String(), out.String())
	}
	if now, _ := os.ReadFile(filepath.Join("gen", "agenttools_gen.go")); !bytes.Equal(now, got) {
		t.Error("-check wrote the file")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-overlay", "agenttools.json", "-w"}, "toolgen: -w is for the spec's code; with -overlay, toolgen writes unless -check\n"},
		{[]string{"-out", "gen"}, "toolgen: -out needs -overlay\n"},
		{[]string{"-overlay", "agenttools.json", "-out", "gen", "-adapters", "langchaingo,crewai"}, "toolgen: unknown adapter \"crewai\" (adapters: langchaingo, mcp, genkit, eino, raw)\n"},
		{[]string{"-overlay", "agenttools.json", "-out", "my-tools"}, "toolgen: the directory name \"my-tools\" is not a Go package name; give -package\n"},
	} {
		if code := do(c.args...); code != 2 || errs.String() != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, code, errs.String(), c.want)
		}
	}
}

// staleTest is a test of a generated package whose overlay this
// agenttools refuses: Surface, Options and a constructor fail with an
// error that says so, names the overlay file and go generate, and wraps
// With's *toolspec.OverlayError.
const staleTest = `package stale

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/toolspec"
)

func TestStale(t *testing.T) {
	_, err := Surface()
	want := "stale: agenttools.cue is refused by this version of agenttools, which checks it differently from the version toolgen ran with; go generate names each refused field with its line: overlay: tools.read.limits.maxLines: 0 is out of range"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Surface: %v\nwant %s...", err, want)
	}
	if oe := (*toolspec.OverlayError)(nil); !errors.As(err, &oe) || oe.Path != "tools.read.limits.maxLines" {
		t.Errorf("the error does not wrap the OverlayError: %v", err)
	}
	if _, err2 := Options(agenttools.Options{}); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("Options: %v", err2)
	}
}
`

// useTest is a test of the generated package: the raw tool set NewRaw
// builds offers the overlay's texts and limit, and the spec's elsewhere.
const useTest = `package tools

import (
	"strings"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

func TestNewRaw(t *testing.T) {
	set, err := NewRaw(vfs.New(memfs.New()), agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range set.Definitions() {
		got[d.Name] = d.Description + "\n" + string(d.InputSchema)
	}
	for name, want := range map[string]string{
		"grep": "Search file contents; results give paths and line numbers.\n" + toolspec.GrepInputSchema,
		"ls":   toolspec.LsDescription + "\n" + toolspec.LsInputSchema,
		"read": "Read a workspace file, at most 500 lines or 256KB at a time.\n" +
			strings.Replace(toolspec.ReadInputSchema, "Path to the file to read", "Absolute path of the file", 1),
	} {
		if got[name] != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got[name], want)
		}
	}
	if !strings.Contains(got["edit"], "\"description\":\"Exact text to replace, \\\"quotes\\\" and all\"") {
		t.Errorf("edit: %s", got["edit"])
	}
	if s := set.Executor().Surface(); s.Limit("read", "maxLines") != 500 || s.Offered("exec") {
		t.Errorf("surface: read.maxLines %d, exec offered %v", s.Limit("read", "maxLines"), s.Offered("exec"))
	}
}
`
