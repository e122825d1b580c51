package goldentest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the failures it is given, so that
// the failure messages themselves can be checked.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *recorder) Failed() bool { return len(r.errors) > 0 }

func setUpdate(t *testing.T, on bool) {
	old := *Update
	*Update = on
	t.Cleanup(func() { *Update = old })
}

// The values of an archive round-trip through Save and Load byte for
// byte; a compact JSON object or array is stored indented, one field per
// line, under its name with JSONSuffix, anything else as it is.
func TestSaveStoresCompactJSONIndented(t *testing.T) {
	values := []struct {
		name, value string
		indented    bool
	}{
		{"schema", `{"type":"object","properties":{"path":{"type":"string","description":"a \"quoted\"\nline, ünïcode, <html>"}},"required":["path"]}`, true},
		{"list", `[1,2.50,{"a":null}]`, true},
		{"empty object", `{}`, false},
		{"spaced json", `{"a": 1}`, false},
		{"text", "Read a file.\nTwo lines", false},
		{"number", `42`, false},
		{"not json", `{"a":1`, false},
	}
	path := filepath.Join(t.TempDir(), "a.txtar")
	setUpdate(t, true)
	a := Load(t, path)
	for _, v := range values {
		a.Check(t, v.name, v.value)
	}
	a.Save(t, nil)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "-- schema"+JSONSuffix+" --\n{\n  \"type\": \"object\",\n  \"properties\": {\n") {
		t.Errorf("the schema is not stored indented:\n%s", data)
	}

	setUpdate(t, false)
	b := Load(t, path)
	for _, v := range values {
		if got, ok := b.Section(v.name); !ok || got != v.value {
			t.Errorf("section %s: %q, %v; want %q", v.name, got, ok, v.value)
		}
		_, plain := b.section(v.name)
		if f, _ := b.section(v.name); plain && strings.HasSuffix(f.Name, JSONSuffix) != v.indented {
			t.Errorf("section %s stored as %q", v.name, f.Name)
		}
		b.Check(t, v.name, v.value)
	}
	b.Save(t, nil)
}

// Every failure ends with the command that rewrites the archive, for the
// package and the top-level test it happens in; a changed JSON value is
// shown field by field, the unchanged fields left out.
func TestFailuresEndWithUpdateCommand(t *testing.T) {
	const command = "go test ./internal/goldentest -run '^TestFailuresEndWithUpdateCommand$' -update"
	t.Run("subtest", func(t *testing.T) {
		if got := UpdateCommand(t); got != command {
			t.Errorf("UpdateCommand: %q, want %q", got, command)
		}
	})
	var fields []string
	for i := range 40 {
		fields = append(fields, fmt.Sprintf(`"field%d":%d`, i, i))
	}
	old := "{" + strings.Join(fields, ",") + "}"
	changed := strings.Replace(old, `"field20":20`, `"field20":21`, 1)
	path := filepath.Join(t.TempDir(), "a.txtar")
	setUpdate(t, true)
	a := Load(t, path)
	a.Check(t, "value", old)
	a.Check(t, "gone", "text")
	a.Save(t, nil)
	setUpdate(t, false)

	r := &recorder{TB: t}
	b := Load(r, path)
	b.Check(r, "value", changed)
	b.Check(r, "new", "text")
	b.Save(r, nil)
	Load(r, filepath.Join(t.TempDir(), "missing.txtar"))
	if len(r.errors) != 4 {
		t.Fatalf("%d failures, want 4 (a changed value, a new section, a section no longer produced, a missing file):\n%s", len(r.errors), strings.Join(r.errors, "\n\n"))
	}
	for _, e := range r.errors {
		if !strings.HasSuffix(e, ": "+command) {
			t.Errorf("failure does not end with the update command:\n%s", e)
		}
	}
	diff := r.errors[0]
	if !diffLine(diff, "-", `"field20": 20,`) || !diffLine(diff, "+", `"field20": 21,`) {
		t.Errorf("the diff does not show the changed field alone on its lines:\n%s", diff)
	}
	if strings.Contains(diff, `"field5": 5`) || strings.Contains(diff, `"field35": 35`) {
		t.Errorf("the diff shows fields far from the change:\n%s", diff)
	}
	// A one-line text, a description, is shown whole, old over new.
	if got, want := Diff("Search workspace text.", "Search files."), "- Search workspace text.\n+ Search files."; got != want {
		t.Errorf("Diff of one-line texts:\n%s\nwant\n%s", got, want)
	}
}

// diffLine reports whether diff has a line marked mark (- or +) that
// holds text and nothing else.
func diffLine(diff, mark, text string) bool {
	for line := range strings.Lines(diff) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), mark)
		if ok && strings.TrimSpace(strings.ReplaceAll(rest, "\u00a0", " ")) == text {
			return true
		}
	}
	return false
}

// From a package of a nested module (a go.mod of its own below the
// repository's), RepoRoot is still the repository's root, an archive
// under it is read and written there, and the update command enters the
// nested module first; from the main module it is as before.
func TestNestedModule(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(repo, "adapters", "anthropic")
	for dir, gomod := range map[string]string{
		repo:                              "module " + RepoModule + "\n\ngo 1.26.0\n",
		nested:                            "module " + RepoModule + "/adapters/anthropic\n\ngo 1.26.0\n",
		filepath.Join(repo, "golden"):     "",
		filepath.Join(nested, "internal"): "",
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if gomod != "" {
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Chdir(filepath.Join(nested, "internal"))
	if got := RepoRoot(t); got != repo {
		t.Errorf("RepoRoot from the nested module: %s, want %s", got, repo)
	}
	if got := ModuleRoot(t); got != nested {
		t.Errorf("ModuleRoot from the nested module: %s, want %s", got, nested)
	}
	const command = "cd adapters/anthropic && go test ./internal -run '^TestNestedModule$' -update"
	if got := UpdateCommand(t); got != command {
		t.Errorf("UpdateCommand from the nested module: %q, want %q", got, command)
	}
	path := filepath.Join(RepoRoot(t), "golden", "x.txtar")
	setUpdate(t, true)
	a := Load(t, path)
	a.Check(t, "value", "text")
	a.Save(t, nil)
	setUpdate(t, false)
	r := &recorder{TB: t}
	b := Load(r, path)
	b.Check(r, "value", "other text")
	if len(r.errors) != 1 || !strings.HasSuffix(r.errors[0], ": "+command) {
		t.Errorf("failures %q, want one that ends with %q", r.errors, command)
	}

	t.Chdir(filepath.Join(repo, "golden"))
	if got := RepoRoot(t); got != repo {
		t.Errorf("RepoRoot from the main module: %s, want %s", got, repo)
	}
	if got, want := UpdateCommand(t), "go test ./golden -run '^TestNestedModule$' -update"; got != want {
		t.Errorf("UpdateCommand from the main module: %q, want %q", got, want)
	}

	t.Chdir(t.TempDir())
	r = &recorder{TB: t}
	if got := RepoRoot(r); got != "" || len(r.errors) != 1 {
		t.Errorf("RepoRoot outside the repository: %q, failures %q", got, r.errors)
	}
}
