//go:build linux

package hostfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
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

// TestUpdatePiecesConcurrentAndFailed edits one file from goroutines at
// once, each adding its line as a piece after the old content (a part
// of old) and before it: no acknowledged edit is lost, and the old
// content's pieces are the bytes read, not a buffer reused meanwhile.
// An edit whose fn fails, or whose context ends after fn gave its
// pieces, leaves the file byte-identical.
func TestUpdatePiecesConcurrentAndFailed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	orig := "first\r\nsecond\x00\xff\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := t.Context()
	cctx, cancel := context.WithCancel(ctx)
	err = f.UpdatePieces(cctx, "f.txt", 1<<20, func(old []byte, _ vfs.Info) (vfs.Pieces, error) {
		cancel()
		return vfs.Pieces{old[:3], []byte("NEW"), old[3:]}, nil
	})
	if err == nil {
		t.Errorf("an update whose context ended after fn succeeded")
	}
	err = f.UpdatePieces(ctx, "f.txt", 1<<20, func(old []byte, _ vfs.Info) (vfs.Pieces, error) {
		return vfs.Pieces{old, []byte("NEW")}, errors.New("no")
	})
	if err == nil || err.Error() != "no" {
		t.Errorf("an update whose fn failed: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("after failed updates the file is %q, want %q", b, orig)
	}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			line := []byte(fmt.Sprintf("line %d\n", i))
			if err := f.UpdatePieces(ctx, "f.txt", 1<<20, func(old []byte, _ vfs.Info) (vfs.Pieces, error) {
				half := len(old) / 2
				return vfs.Pieces{old[:half], old[half:], line, old[:0]}, nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, orig) || len(got) != len(orig)+n*len("line 0\n")+(n-10) {
		t.Errorf("after %d edits at once the file is %q", n, got)
	}
	for i := range n {
		if !strings.Contains(got, fmt.Sprintf("\nline %d\n", i)) {
			t.Errorf("the edit adding line %d was lost: %q", i, got)
		}
	}
}
