//go:build unix

package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// swapStore is a host store whose directory handles call swap with the
// directory's name in the store once they listed it: a test swaps nodes
// on the host at that moment, as a process racing the walk would.
type swapStore struct {
	*hostfs.FS
	swap func(name string)
}

func (s swapStore) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	h, err := s.FS.OpenDir(ctx, name)
	if err != nil {
		return nil, err
	}
	return swapDir{h, name, s.swap}, nil
}

type swapDir struct {
	vfs.DirHandle
	name string
	swap func(name string)
}

func (d swapDir) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	out, err := d.DirHandle.Entries(ctx, after, n)
	d.swap(d.name)
	return out, err
}

func (d swapDir) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	h, err := d.DirHandle.OpenDir(ctx, name)
	if err != nil {
		return nil, err
	}
	return swapDir{h, strings.TrimPrefix(d.name+"/"+name, "/"), d.swap}, nil
}

// TestWalkPassesOverSwapped: a directory or file swapped for a link (to
// the host's root), a file or a directory while find or grep walks by
// is passed over, not the whole call failed, and nothing outside the
// workspace is reached; so is a directory the walk comes back to after
// a directory above it was swapped for a link.
func TestWalkPassesOverSwapped(t *testing.T) {
	comb := "c" + strings.Repeat("/a", 300)
	for _, c := range []struct {
		name  string
		when  string // the directory (store name) whose listing triggers the swap
		swap  func(t *testing.T, dir string)
		setup []string // directories to make besides d1..d5 and their files
	}{
		{"dir to link", "", func(t *testing.T, dir string) { replaceWithLink(t, dir, "d3", "/") }, nil},
		{"dir to file", "", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "d3")))
			must(t, os.WriteFile(filepath.Join(dir, "d3"), []byte("needle\n"), 0o644))
		}, nil},
		{"file to link", "d2", func(t *testing.T, dir string) { replaceWithLink(t, dir, "d2/f.txt", "/etc/passwd") }, nil},
		{"file to dir", "d2", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "d2/f.txt")))
			must(t, os.Mkdir(filepath.Join(dir, "d2/f.txt"), 0o755))
		}, nil},
		{"ancestor to link", comb, func(t *testing.T, dir string) {
			must(t, os.Rename(filepath.Join(dir, "c/a"), filepath.Join(dir, "moved")))
			must(t, os.Symlink("/", filepath.Join(dir, "c/a")))
		}, []string{comb}},
	} {
		for _, tool := range []string{"find", "grep"} {
			t.Run(c.name+"/"+tool, func(t *testing.T) {
				dir := t.TempDir()
				for i := 1; i <= 5; i++ {
					d := filepath.Join(dir, "d"+string(rune('0'+i)))
					must(t, os.Mkdir(d, 0o755))
					must(t, os.WriteFile(filepath.Join(d, "f.txt"), []byte("needle\n"), 0o644))
				}
				for _, p := range c.setup {
					// A comb: each level holds a/ and b/, so the walk
					// comes back to each level after a/.
					must(t, os.MkdirAll(filepath.Join(dir, p), 0o755))
					for q := p; q != "."; q = filepath.Dir(q) {
						must(t, os.Mkdir(filepath.Join(dir, q, "b"), 0o755))
					}
				}
				host, err := hostfs.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer host.Close()
				swapped := false
				store := swapStore{host, func(name string) {
					if name == c.when && !swapped {
						swapped = true
						c.swap(t, dir)
					}
				}}
				ws := vfs.New(memfs.New())
				if err := ws.Mount(t.Context(), toolspec.WorkspaceRoot, store, vfs.MountOptions{}); err != nil {
					t.Fatal(err)
				}
				ex, err := core.New(ws, core.Options{})
				if err != nil {
					t.Fatal(err)
				}
				args := `{"pattern":"**","limit":1000}`
				if tool == "grep" {
					args = `{"query":"needle","limit":1000}`
				}
				out := call(t, ex, tool, args)
				got := string(out.JSON) + out.Text
				if !swapped {
					t.Fatalf("the swap did not happen: %s", got)
				}
				if strings.Contains(got, `"error"`) || !strings.Contains(got, "/workspace/d5/f.txt") {
					t.Fatalf("%s over a tree changed meanwhile: %.300s", tool, got)
				}
				if strings.Contains(got, "root:") || strings.Contains(got, "/etc") || strings.Contains(got, "/bin") {
					t.Fatalf("%s reached outside the workspace: %.300s", tool, got)
				}
			})
		}
	}
}

func replaceWithLink(t *testing.T, dir, name, target string) {
	t.Helper()
	must(t, os.RemoveAll(filepath.Join(dir, name)))
	must(t, os.Symlink(target, filepath.Join(dir, name)))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
