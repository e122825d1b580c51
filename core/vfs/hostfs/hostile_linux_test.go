//go:build linux

package hostfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
)

// TestOpenTopNeverLeaves opens names directly under the store's
// directory that lead out of it (symbolic links to a file outside, by
// absolute and relative path; "..", "." and empty names; a file
// replaced by such a link after it was read once): none reads the file
// outside, and each fails as the same name one directory down fails.
func TestOpenTopNeverLeaves(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(outside, "root")
	for _, at := range []string{dir, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(at, 0o755); err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(at, secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, filepath.Join(at, "abs")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rel, filepath.Join(at, "rel")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(at, "swapped"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range []string{"", "sub/"} {
		if got, err := readAllAt(f, p+"swapped", 0); got != "mine" || err != nil {
			t.Fatalf("%sswapped: %q, %v", p, got, err)
		}
		at := filepath.Join(dir, p, "swapped")
		if err := os.Remove(at); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"abs", "rel", "swapped", "..", ".", "", "abs/", "./abs", "../secret"} {
		top, topErr := readAllAt(f, name, 0)
		if strings.Contains(top, "SECRET") || topErr == nil {
			t.Errorf("Open(%q) read %q, %v: the file outside the store", name, top, topErr)
		}
		if name == "" || strings.ContainsAny(name, "./") {
			continue
		}
		_, belowErr := readAllAt(f, "sub/"+name, 0)
		if errno.CodeOf(topErr) != errno.CodeOf(belowErr) {
			t.Errorf("Open(%q): %v; Open(sub/%s): %v", name, topErr, name, belowErr)
		}
	}
}
