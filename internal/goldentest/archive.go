package goldentest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// Archive is a txtar golden file. Sections hold one value each; a value
// is stored with one trailing newline added, so values that do not end
// in a newline round-trip. Sections a test checks are its outputs; the
// others are inputs it reads (Save keeps those it is told to).
type Archive struct {
	Path    string
	Archive *txtar.Archive
	got     map[string]string
	seen    []string
}

// Load reads the archive at path; under -update a missing one starts
// empty.
func Load(t testing.TB, path string) *Archive {
	t.Helper()
	a := &Archive{Path: path, got: map[string]string{}}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		a.Archive = txtar.Parse(data)
	case os.IsNotExist(err) && *Update:
		a.Archive = &txtar.Archive{}
	default:
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	return a
}

// Section returns the value of section name.
func (a *Archive) Section(name string) (string, bool) {
	for _, f := range a.Archive.Files {
		if f.Name == name {
			return strings.TrimSuffix(string(f.Data), "\n"), true
		}
	}
	return "", false
}

// Check compares got with section name, or records it under -update.
func (a *Archive) Check(t testing.TB, name, got string) {
	t.Helper()
	if strings.Contains("\n"+got, "\n-- ") {
		t.Fatalf("%s: value of %s holds a line that starts like a txtar marker", a.Path, name)
	}
	a.got[name] = got
	a.seen = append(a.seen, name)
	if *Update {
		return
	}
	want, ok := a.Section(name)
	if !ok {
		t.Errorf("%s: no section %q (run go test -update)", a.Path, name)
		return
	}
	if want != got {
		t.Errorf("%s: %s (-want +got):\n%s", a.Path, name, cmp.Diff(want, got))
	}
}

// Save writes the archive under -update: checked sections get their new
// values and sections no longer checked are dropped, unless keep says
// they are inputs. Nothing is written when the test failed otherwise.
// Without -update, it reports sections no longer produced.
func (a *Archive) Save(t testing.TB, keep func(name string) bool) {
	t.Helper()
	if !*Update {
		for _, f := range a.Archive.Files {
			if !slices.Contains(a.seen, f.Name) && (keep == nil || !keep(f.Name)) {
				t.Errorf("%s: section %q is no longer produced (run go test -update)", a.Path, f.Name)
			}
		}
		return
	}
	if t.Failed() {
		t.Logf("%s: not updated, the test failed", a.Path)
		return
	}
	out := &txtar.Archive{Comment: a.Archive.Comment}
	done := map[string]bool{}
	for _, f := range a.Archive.Files {
		switch {
		case keep != nil && keep(f.Name):
			out.Files = append(out.Files, f)
		case a.got[f.Name] != "" || slices.Contains(a.seen, f.Name):
			out.Files = append(out.Files, txtar.File{Name: f.Name, Data: []byte(a.got[f.Name] + "\n")})
			done[f.Name] = true
		}
	}
	for _, name := range a.seen {
		if !done[name] {
			out.Files = append(out.Files, txtar.File{Name: name, Data: []byte(a.got[name] + "\n")})
			done[name] = true
		}
	}
	data := txtar.Format(out)
	if old, err := os.ReadFile(a.Path); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.WriteFile(a.Path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("updated %s", a.Path)
}

// ModuleRoot is the directory of the module's go.mod, found from the
// test's working directory (its package directory) upwards.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
