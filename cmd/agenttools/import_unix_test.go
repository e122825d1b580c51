//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agenttools/agenttools/internal/hostio"
)

// import says what is wrong with --to, and what it passed over, under
// its own name.
func TestImportMessages(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ws.db")
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runCLI(t, "", "import", "--db", db, src); got != (result{0, "imported 1 node\n", ""}) {
		t.Fatalf("import: %+v", got)
	}
	want := "agenttools import: --to: /workspace/a.txt is a file, " + hostio.ErrImportRoot.Error() + "\n"
	if got := runCLI(t, "", "import", "--db", db, "--to", "/workspace/a.txt", filepath.Join(src, "a.txt")); got != (result{2, "", want}) {
		t.Errorf("import --to a file: %+v, want stderr %q", got, want)
	}
	// Named pipes are passed over, and said to be.
	for _, name := range []string{"p1", "p2"} {
		if err := syscall.Mkfifo(filepath.Join(src, name), 0o644); err != nil {
			t.Skip("no named pipes here:", err)
		}
	}
	got := runCLI(t, "", "import", "--db", db, src)
	want = "agenttools import: skipped 2 nodes that are not a file, directory or link (the first: " + filepath.Join(src, "p1") + ")\n"
	if got != (result{0, "imported 1 node\n", want}) {
		t.Errorf("import with pipes: %+v, want stderr %q", got, want)
	}
}
