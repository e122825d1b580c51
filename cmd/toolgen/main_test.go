package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
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
