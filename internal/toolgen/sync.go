package toolgen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// OwnedDirs are the directories whose generated Go files toolgen owns: a
// .go file there that starts with Header and that Generate no longer
// produces is an orphan, which Diff reports and Apply removes.
var OwnedDirs = func() []string {
	dirs := []string{GenDir}
	for _, a := range AdapterTargets {
		dirs = append(dirs, a.Dir)
	}
	return dirs
}()

// Change is one file that differs between the generated output and the
// tree on disk.
type Change struct {
	Path string // relative to the module root, slash-separated
	Old  []byte // nil when the file does not exist
	New  []byte // nil when the file is an orphan to remove
}

// Diff compares generated files with the tree rooted at root and returns
// what differs, sorted by path: the files of DiffFiles and the orphans in
// OwnedDirs.
func Diff(root string, files map[string][]byte) ([]Change, error) {
	changes, err := DiffFiles(root, files)
	if err != nil {
		return nil, err
	}
	for _, dir := range OwnedDirs {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || files[p] != nil {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				return nil, err
			}
			if bytes.HasPrefix(data, []byte("// "+Header)) {
				changes = append(changes, Change{Path: p, Old: data})
			}
		}
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// DiffFiles compares the files with those on disk and returns the ones
// that are missing or differ, sorted by path. Paths are relative to root
// (slash-separated); with root "" they are relative to the current
// directory, or absolute.
func DiffFiles(root string, files map[string][]byte) ([]Change, error) {
	var changes []Change
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if err != nil {
			got = nil
		}
		if !bytes.Equal(got, want) || got == nil {
			changes = append(changes, Change{Path: p, Old: got, New: want})
		}
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// Unified renders a change as a unified diff.
func (c Change) Unified() string {
	return udiff.Unified("a/"+c.Path, "b/"+c.Path, string(c.Old), string(c.New))
}

// Describe says in one line what the change does.
func (c Change) Describe() string {
	switch {
	case c.Old == nil:
		return c.Path + ": missing"
	case c.New == nil:
		return c.Path + ": orphan (no longer generated)"
	}
	return c.Path + ": stale"
}

// Applied says in one line what Apply did for the change ("wrote
// tools/agenttools_gen.go", "removed toolspec/old_gen.go (no longer
// generated)"): what -w and toolgen -overlay print, where Describe's
// "missing" or "stale" would name a state the file has just left.
func (c Change) Applied() string {
	if c.New == nil {
		return "removed " + c.Path + " (no longer generated)"
	}
	return "wrote " + c.Path
}

// Apply writes the changes under root: changed and missing files are
// written, orphans removed. Files that did not change are not touched.
func Apply(root string, changes []Change) error {
	for _, c := range changes {
		p := filepath.Join(root, filepath.FromSlash(c.Path))
		if c.New == nil {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, c.New, fs.FileMode(0o644)); err != nil {
			return fmt.Errorf("write %s: %w", c.Path, err)
		}
	}
	return nil
}

// ModuleRoot finds the directory holding go.mod, from dir upwards.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = up
	}
}
