package pgfs_test

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// walk reads every file below the directory real of w through handles,
// as find and grep do, and returns what it read by path (a directory
// as "<dir>", a link as "<link>").
func walk(t *testing.T, w *vfs.Workspace, real string) map[string]string {
	t.Helper()
	ctx := t.Context()
	out := map[string]string{}
	var visit func(d *vfs.Dir)
	visit = func(d *vfs.Dir) {
		defer d.Close()
		// In pages of 3, as a walk lists a directory bit by bit.
		for after := ""; ; {
			entries, err := d.Entries(ctx, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				path := d.Real() + "/" + e.Name
				switch e.Type {
				case vfs.TypeDir:
					out[path] = "<dir>"
					sub, err := d.OpenDir(ctx, e.Name)
					if err != nil {
						t.Fatal(err)
					}
					visit(sub)
				case vfs.TypeSymlink:
					out[path] = "<link>"
				default:
					out[path] = readAll(t, d.OpenLater(ctx, e.Name, 0))
				}
			}
			if len(entries) < 3 {
				return
			}
			after = entries[len(entries)-1].Name
		}
	}
	d, err := w.OpenDirReal(ctx, real)
	if err != nil {
		t.Fatal(err)
	}
	visit(d)
	return out
}

// readAll opens a file with open and reads it whole.
func readAll(t *testing.T, open func() (io.ReadCloser, error)) string {
	t.Helper()
	rc, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestWalkRoundTrips walks a tree of 32 directories through the
// workspace's handles (OpenDirReal, Entries, OpenDir, Open), reading
// every file: the listing of the whole tree is one statement, the small
// files' content one more, and each file too large for that one more
// each; not one per directory. With batching bounded to fewer nodes
// than the tree holds, or no content budget, the walk reads the same.
func TestWalkRoundTrips(t *testing.T) {
	f := open(t, pgtest.Database(t), "w")
	w := vfs.New(f)
	want := map[string]string{}
	dirs, large := 0, 0
	var fill func(dir string, depth int)
	fill = func(dir string, depth int) {
		dirs++
		for i := range 3 {
			name := fmt.Sprintf("%s/f%d.txt", dir, i)
			data := fmt.Sprintf("file %s\n", name)
			storetest.WriteFile(t, f, name[1:], []byte(data), 0o644)
			want[name] = data
		}
		if depth == 0 {
			big := bytes.Repeat([]byte(dir+"\n"), 100<<10/len(dir))
			storetest.WriteFile(t, f, dir[1:]+"/large", big, 0o644)
			want[dir+"/large"] = string(big)
			large++
		}
		if err := f.Symlink(t.Context(), "f0.txt", dir[1:]+"/link"); err != nil {
			t.Fatal(err)
		}
		want[dir+"/link"] = "<link>"
		if depth == 0 {
			return
		}
		for i := range 2 {
			sub := fmt.Sprintf("%s/d%d", dir, i)
			if err := f.Mkdir(t.Context(), sub[1:], 0o755); err != nil {
				t.Fatal(err)
			}
			want[sub] = "<dir>"
			fill(sub, depth-1)
		}
	}
	fill("/workspace", 4)
	if err := f.Mkdir(t.Context(), "workspace/empty", 0o755); err != nil {
		t.Fatal(err)
	}
	want["/workspace/empty"] = "<dir>"
	dirs++
	tests := []struct {
		name    string
		nodes   int
		budget  int64
		batched bool
	}{
		{"batched", 5000, 8 << 20, true},
		{"subtrees of 20 nodes at most", 20, 8 << 20, false},
		{"no content budget", 5000, 0, false},
	}
	for _, tt := range tests {
		restore := pgfs.SetBatching(tt.nodes, tt.budget)
		before := f.RoundTrips()
		got := walk(t, w, "/workspace")
		trips := f.RoundTrips() - before
		restore()
		t.Logf("%s: a walk of %d directories and %d other nodes made %d round trips", tt.name, dirs, len(want)-dirs, trips)
		if !maps.Equal(got, want) {
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s read as %.40q, want %.40q", tt.name, k, got[k], v)
				}
			}
			t.Fatalf("%s: the walk read %d nodes, want %d", tt.name, len(got), len(want))
		}
		if tt.batched && trips != int64(2+large) {
			t.Errorf("%s: %d round trips, want 2 (the tree's listing, the small files) + %d (one per large file)", tt.name, trips, large)
		}
	}
}

// TestDirHandleErrors: handles refuse what is no directory (a link to
// one included) or missing, whether they serve a subtree's listing or
// list each directory themselves.
func TestDirHandleErrors(t *testing.T) {
	f := open(t, pgtest.Database(t), "w")
	ctx := t.Context()
	storetest.WriteFile(t, f, "workspace/f", []byte("x"), 0o644)
	if err := f.Symlink(ctx, ".", "workspace/link"); err != nil {
		t.Fatal(err)
	}
	if err := f.Mkdir(ctx, "workspace/d", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		nodes  int
		budget int64
	}{{"batched", 5000, 8 << 20}, {"unbatched", 0, 0}} {
		t.Run(tt.name, func(t *testing.T) {
			defer pgfs.SetBatching(tt.nodes, tt.budget)()
			for name, code := range map[string]errno.Code{"workspace/f": errno.ENOTDIR, "workspace/link": errno.ENOTDIR,
				"workspace/missing": errno.ENOENT, "workspace/f/x": errno.ENOTDIR, "missing/x": errno.ENOENT} {
				if _, err := f.OpenDir(ctx, name); errno.CodeOf(err) != code {
					t.Errorf("OpenDir(%q): %v, want %s", name, err, code)
				}
			}
			h, err := f.OpenDir(ctx, "workspace")
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for name, code := range map[string]errno.Code{"f": errno.ENOTDIR, "link": errno.ENOTDIR, "missing": errno.ENOENT} {
				if _, err := h.OpenDir(ctx, name); errno.CodeOf(err) != code {
					t.Errorf("handle OpenDir(%q): %v, want %s", name, err, code)
				}
			}
			for name, code := range map[string]errno.Code{"d": errno.EISDIR, "link": errno.ELOOP, "missing": errno.ENOENT} {
				if _, err := h.Open(ctx, name, 0); errno.CodeOf(err) != code {
					t.Errorf("handle Open(%q): %v, want %s", name, err, code)
				}
			}
			d, err := h.OpenDir(ctx, "d")
			if err != nil {
				t.Fatal(err)
			}
			if entries, err := d.Entries(ctx, "", -1); err != nil || len(entries) != 0 {
				t.Errorf("Entries of an empty directory = %v, %v", entries, err)
			}
		})
	}
}

// TestWalkBatches walks, with a content budget of a tenth of the tree,
// a tree of 120 small files whose walk order (pre-order, siblings by
// name) is not the order of their paths ("a" and what is below it come
// before "a.0", whose path sorts first): each file that no batch brought
// brings the files that follow it in walk order up to the budget, so
// the walk costs the listing and one round trip per batch, not one per
// file; the content held for files not opened yet stays within two
// batches. A grep over the tree (which opens files on several
// goroutines) reads it at that cost too, and finds every file.
func TestWalkBatches(t *testing.T) {
	f := open(t, pgtest.Database(t), "w")
	ctx := t.Context()
	const size, files, perBatch = 1000, 120, 12
	want := map[string]string{}
	n := 0
	var fill func(dir string, depth int)
	fill = func(dir string, depth int) {
		for _, name := range []string{"a.0", "a.1", "b", "b.0"} {
			if depth == 0 || name == "a.0" || name == "b.0" || name == "a.1" {
				data := fmt.Sprintf("%-*s\n", size-1, fmt.Sprintf("needle %d in %s/%s", n, dir, name))
				storetest.WriteFile(t, f, dir+"/"+name, []byte(data), 0o644)
				want[dir+"/"+name] = data
				n++
				continue
			}
		}
		if depth == 0 {
			return
		}
		for _, name := range []string{"a", "b"} {
			if err := f.Mkdir(ctx, dir+"/"+name, 0o755); err != nil {
				t.Fatal(err)
			}
			fill(dir+"/"+name, depth-1)
		}
	}
	fill("workspace", 4)
	for ; n < files; n++ {
		name := fmt.Sprintf("workspace/z%03d", n)
		data := fmt.Sprintf("%-*s\n", size-1, fmt.Sprintf("needle %d in %s", n, name))
		storetest.WriteFile(t, f, name, []byte(data), 0o644)
		want[name] = data
	}
	defer pgfs.SetBatching(5000, perBatch*size)()

	before := f.RoundTrips()
	h, err := f.OpenDir(ctx, "workspace")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var visit func(h vfs.DirHandle, dir string)
	visit = func(h vfs.DirHandle, dir string) {
		entries, err := h.Entries(ctx, "", -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Type == vfs.TypeDir {
				sub, err := h.OpenDir(ctx, e.Name)
				if err != nil {
					t.Fatal(err)
				}
				visit(sub, dir+"/"+e.Name)
				continue
			}
			got[dir+"/"+e.Name] = readAll(t, func() (io.ReadCloser, error) { return h.Open(ctx, e.Name, 0) })
			if held := pgfs.HeldHeads(h); held > 2*perBatch*size {
				t.Errorf("after %s/%s: %d bytes held, want at most two batches (%d)", dir, e.Name, held, 2*perBatch*size)
			}
		}
	}
	visit(h, "workspace")
	trips := f.RoundTrips() - before
	t.Logf("a walk of %d files of %d bytes, batches of %d bytes: %d round trips", files, size, perBatch*size, trips)
	if !maps.Equal(got, want) {
		t.Fatalf("the walk read %d files, want %d (or other content)", len(got), len(want))
	}
	if want := int64(1 + files/perBatch); trips != want {
		t.Errorf("%d round trips, want %d (the listing, then one per batch of %d files)", trips, want, perBatch)
	}

	e, err := core.New(vfs.New(f), core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before = f.RoundTrips()
	out, err := e.Call(ctx, "grep", []byte(`{"path":"/workspace","query":"needle","limit":1000}`))
	if err != nil {
		t.Fatal(err)
	}
	trips = f.RoundTrips() - before
	t.Logf("a grep of them: %d round trips", trips)
	if c := strings.Count(out.AsText(), "needle "); c != files {
		t.Errorf("grep found %d lines, want %d:\n%.400s", c, files, out.AsText())
	}
	// The lookup of the path, the listing, a batch per 12 files; a file
	// a worker opens after the batch after its own was read (goroutines
	// are scheduled as they are) costs one of its own: a few at most.
	if max := int64(2 + files/perBatch + 4); trips > max {
		t.Errorf("grep: %d round trips, want at most %d", trips, max)
	}
}
