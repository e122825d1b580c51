package golden_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/agenttools/agenttools/internal/goldentest"
)

// archive is a txtar golden file. Sections hold one value each; a value
// is stored with one trailing newline added, so values that do not end
// in a newline round-trip.
type archive struct {
	path string
	ar   *txtar.Archive
	got  map[string]string
	seen []string
}

func loadArchive(t *testing.T, path string) *archive {
	t.Helper()
	a := &archive{path: path, got: map[string]string{}}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		a.ar = txtar.Parse(data)
	case os.IsNotExist(err) && *goldentest.Update:
		a.ar = &txtar.Archive{}
	default:
		t.Fatalf("%v (run go test ./golden -update to create it)", err)
	}
	return a
}

func (a *archive) section(name string) (string, bool) {
	for _, f := range a.ar.Files {
		if f.Name == name {
			return strings.TrimSuffix(string(f.Data), "\n"), true
		}
	}
	return "", false
}

// check compares got with section name, or records it under -update.
func (a *archive) check(t *testing.T, name, got string) {
	t.Helper()
	if strings.Contains("\n"+got, "\n-- ") {
		t.Fatalf("%s: value of %s holds a line that starts like a txtar marker", a.path, name)
	}
	a.got[name] = got
	a.seen = append(a.seen, name)
	if *goldentest.Update {
		return
	}
	want, ok := a.section(name)
	if !ok {
		t.Errorf("%s: no section %q (run go test ./golden -update)", a.path, name)
		return
	}
	if want != got {
		t.Errorf("%s: %s (-want +got):\n%s", a.path, name, cmp.Diff(want, got))
	}
}

// save writes the archive under -update: checked sections get their new
// values and sections no longer checked are dropped, unless keep says
// they are inputs. Nothing is written when the test failed otherwise.
func (a *archive) save(t *testing.T, keep func(name string) bool) {
	t.Helper()
	if !*goldentest.Update {
		for _, f := range a.ar.Files {
			if !slices.Contains(a.seen, f.Name) && (keep == nil || !keep(f.Name)) {
				t.Errorf("%s: section %q is no longer produced (run go test ./golden -update)", a.path, f.Name)
			}
		}
		return
	}
	if t.Failed() {
		t.Logf("%s: not updated, the test failed", a.path)
		return
	}
	out := &txtar.Archive{Comment: a.ar.Comment}
	done := map[string]bool{}
	for _, f := range a.ar.Files {
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
	if old, err := os.ReadFile(a.path); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.WriteFile(a.path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("updated %s", a.path)
}
