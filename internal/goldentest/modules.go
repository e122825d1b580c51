package goldentest

import (
	"io/fs"
	"path/filepath"
	"testing"
)

// TestedElsewhere are the modules another test of the main module runs:
// examples/overlay is copied, generated and tested offline by
// cmd/toolgen's TestOverlayExample.
var TestedElsewhere = []string{"examples/overlay"}

// OtherModules lists the directories, relative to the repository root,
// that hold a go.mod other than the root's, in lexical order.
func OtherModules(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" || filepath.Dir(path) == root {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dirs = append(dirs, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
