package goldentest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/modfile"
	"golang.org/x/tools/txtar"
)

// JSONSuffix ends the name of a section that holds compact JSON stored
// indented, one field per line, so that the diff of an update reads
// field by field. The value a test checks, and Section returns, is the
// compact form: the test still pins every byte, since compact JSON is
// exactly the indented text with the whitespace outside strings removed.
// A value that is not compact JSON (text, or JSON with its own spacing)
// is stored as it is, under its plain name.
const JSONSuffix = " (indented JSON)"

// Archive is a txtar golden file. Sections hold one value each; a value
// is stored with one trailing newline added, so values that do not end
// in a newline round-trip, and a compact JSON object or array is stored
// indented under its name plus JSONSuffix. Sections a test checks are
// its outputs; the others are inputs it reads (Save keeps those it is
// told to).
type Archive struct {
	Path    string
	Archive *txtar.Archive
	got     map[string]string
	seen    []string
	// update is the command that rewrites the archive's checked
	// sections (UpdateCommand of the test that loaded it).
	update string
}

// Load reads the archive at path; under -update a missing one starts
// empty.
func Load(t testing.TB, path string) *Archive {
	t.Helper()
	a := &Archive{Path: path, got: map[string]string{}, update: UpdateCommand(t)}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		a.Archive = txtar.Parse(data)
	case os.IsNotExist(err) && *Update:
		a.Archive = &txtar.Archive{}
	default:
		t.Fatalf("%v\nto create it: %s", err, a.update)
	}
	return a
}

// section finds the section holding the value named name, stored either
// way.
func (a *Archive) section(name string) (txtar.File, bool) {
	for _, f := range a.Archive.Files {
		if f.Name == name || f.Name == name+JSONSuffix {
			return f, true
		}
	}
	return txtar.File{}, false
}

// Section returns the value of section name: for a section stored
// indented (JSONSuffix), its compact form.
func (a *Archive) Section(name string) (string, bool) {
	f, ok := a.section(name)
	if !ok {
		return "", false
	}
	v := strings.TrimSuffix(string(f.Data), "\n")
	if strings.HasSuffix(f.Name, JSONSuffix) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(v)) == nil {
			return buf.String(), true
		}
		// An indented section that is no JSON (edited by hand) is
		// returned as it is, so that it differs from any value.
	}
	return v, true
}

// Check compares got with section name, or records it under -update. A
// failure shows the difference, line by line (a JSON value's field by
// field), and ends with the command that accepts the new value.
func (a *Archive) Check(t testing.TB, name, got string) {
	t.Helper()
	if strings.HasSuffix(name, JSONSuffix) {
		t.Fatalf("%s: section name %q ends with %q, which marks indented JSON", a.Path, name, JSONSuffix)
	}
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
		t.Errorf("%s: no section %q\nto add it: %s", a.Path, name, a.update)
		return
	}
	if want != got {
		t.Errorf("%s: %s (-want +got):\n%s\nto accept the new value: %s", a.Path, name, strings.TrimSuffix(Diff(want, got), "\n"), a.update)
	}
}

// Diff is the difference of two values as a person reads it: two JSON
// values are compared indented, with cmp.Diff, so that the diff shows
// the changed fields only; two one-line values (a description) are shown
// whole, one under the other; other values (and JSON that differs in
// spacing alone) go to cmp.Diff as they are.
func Diff(want, got string) string {
	iw, okw := indent(want)
	ig, okg := indent(got)
	switch {
	case okw && okg && iw != ig:
		return cmp.Diff(iw, ig)
	case !strings.Contains(want, "\n") && !strings.Contains(got, "\n"):
		return "- " + want + "\n+ " + got
	}
	return cmp.Diff(want, got)
}

// indent is v indented, one field per line, if v is JSON.
func indent(v string) (string, bool) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(v), "", "  "); err != nil {
		return "", false
	}
	return buf.String(), true
}

// stored is how Save writes the value v of section name: a compact JSON
// object or array indented, under name plus JSONSuffix, when that
// indented text gives v back; anything else as it is.
func stored(name, v string) txtar.File {
	if strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		if in, ok := indent(v); ok && in != v {
			var back bytes.Buffer
			if json.Compact(&back, []byte(in)) == nil && back.String() == v {
				return txtar.File{Name: name + JSONSuffix, Data: []byte(in + "\n")}
			}
		}
	}
	return txtar.File{Name: name, Data: []byte(v + "\n")}
}

// Save writes the archive under -update: checked sections get their new
// values and sections no longer checked are dropped, unless keep says
// they are inputs. Nothing is written when the test failed otherwise.
// Without -update, it reports sections no longer produced.
func (a *Archive) Save(t testing.TB, keep func(name string) bool) {
	t.Helper()
	if !*Update {
		for _, f := range a.Archive.Files {
			name := strings.TrimSuffix(f.Name, JSONSuffix)
			if !slices.Contains(a.seen, name) && (keep == nil || !keep(f.Name)) {
				t.Errorf("%s: section %q is no longer produced\nto drop it: %s", a.Path, f.Name, a.update)
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
		name := strings.TrimSuffix(f.Name, JSONSuffix)
		switch {
		case keep != nil && keep(f.Name):
			out.Files = append(out.Files, f)
		case slices.Contains(a.seen, name):
			out.Files = append(out.Files, stored(name, a.got[name]))
			done[name] = true
		}
	}
	for _, name := range a.seen {
		if !done[name] {
			out.Files = append(out.Files, stored(name, a.got[name]))
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

// UpdateCommand is the command that rewrites the golden files of the
// test t belongs to, run from the repository's root: the package's
// directory and the top-level test, e.g. go test ./golden -run
// '^TestSurface$' -update; for a package of a nested module (one with a
// go.mod of its own below the root) it first enters that module's
// directory: cd adapters/anthropic && go test . -run '^TestX$' -update.
func UpdateCommand(t testing.TB) string {
	pkg, cd := "./...", ""
	if root, dir, err := moduleRoot(); err == nil {
		if rel, err := filepath.Rel(root, dir); err == nil {
			pkg = "./" + filepath.ToSlash(rel)
			if rel == "." {
				pkg = "."
			}
		}
		if repo, err := repoRoot(dir); err == nil && repo != root {
			if rel, err := filepath.Rel(repo, root); err == nil {
				cd = "cd " + filepath.ToSlash(rel) + " && "
			}
		}
	}
	test, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("%sgo test %s -run '^%s$' -update", cd, pkg, test)
}

// ModuleRoot is the directory of the module's go.mod, found from the
// test's working directory (its package directory) upwards.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	root, _, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// RepoModule is the module path of the repository's main module.
const RepoModule = "github.com/agenttools/agenttools"

// RepoRoot is the repository's root, the directory of the go.mod whose
// module is RepoModule, found from the test's working directory upwards:
// ModuleRoot in the main module, and above it in a nested module
// (adapters/anthropic), whose tests find golden/testdata there too.
func RepoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err == nil {
		var root string
		if root, err = repoRoot(wd); err == nil {
			return root
		}
	}
	t.Fatalf("%v", err)
	return ""
}

// moduleRoot is the module's root and the working directory it was
// found from.
func moduleRoot() (root, wd string, err error) {
	wd, err = os.Getwd()
	if err != nil {
		return "", "", err
	}
	root, err = findUp(wd, "go.mod", func([]byte) bool { return true })
	return root, wd, err
}

// repoRoot is the directory of the go.mod of RepoModule at or above dir.
func repoRoot(dir string) (string, error) {
	return findUp(dir, "module "+RepoModule, func(gomod []byte) bool { return modfile.ModulePath(gomod) == RepoModule })
}

// findUp returns the first directory from dir upwards whose go.mod is
// one ok accepts; what names it in the error.
func findUp(dir, what string, ok func(gomod []byte) bool) (string, error) {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && ok(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod (" + what + ") above the test's directory")
		}
		dir = parent
	}
}
