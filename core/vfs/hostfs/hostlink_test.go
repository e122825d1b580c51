package hostfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/internal/testws"
)

// TestAbsoluteHostLinks checks that a link whose absolute target is a host
// path inside the mounted directory resolves to that place in the mount,
// while an absolute target outside it stays a workspace path (missing).
func TestAbsoluteHostLinks(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "project")
	for _, d := range []string{filepath.Join(dir, "docs"), filepath.Join(top, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range map[string]string{
		filepath.Join(dir, "docs", "a.txt"):    "inside\n",
		filepath.Join(top, "outside", "s.txt"): "secret\n",
	} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"abs-dir":     filepath.Join(dir, "docs"),
		"abs-file":    filepath.Join(dir, "docs", "a.txt"),
		"abs-climb":   filepath.Join(dir, "docs", "..", "docs", "a.txt"),
		"abs-outside": filepath.Join(top, "outside", "s.txt"),
		"abs-escape":  filepath.Join(dir, "..", "outside", "s.txt"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, _ := testws.Host(t, dir)
	read := func(p string) (string, error) {
		r, _, err := ws.Open(t.Context(), p, 0)
		if err != nil {
			return "", err
		}
		defer r.Close()
		b := make([]byte, 64)
		n, _ := r.Read(b)
		return string(b[:n]), nil
	}
	for _, p := range []string{"/workspace/abs-dir/a.txt", "/workspace/abs-file", "/workspace/abs-climb"} {
		got, err := read(p)
		if err != nil || got != "inside\n" {
			t.Errorf("read %s = %q, %v; want the file inside the mount", p, got, err)
		}
	}
	for _, p := range []string{"/workspace/abs-outside", "/workspace/abs-escape"} {
		got, err := read(p)
		if errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("read %s = %q, %v; want ENOENT (the target is a workspace path, not a host one)", p, got, err)
		}
	}
	if target, err := ws.Readlink(t.Context(), "/workspace/abs-dir"); err != nil || target != links["abs-dir"] {
		t.Errorf("Readlink = %q, %v; the target must stay verbatim", target, err)
	}
}
