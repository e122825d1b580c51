package memfs_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) vfs.Store { return memfs.New() })
}

// TestClock checks that the injected clock stamps every mtime, truncated
// to milliseconds, and which nodes each operation stamps.
func TestClock(t *testing.T) {
	const start = 1767225600000 // the reference's fixed clock
	// Sub-millisecond parts are dropped, never rounded.
	at := func(ms int64) time.Time { return time.UnixMilli(ms).Add(999 * time.Microsecond) }
	clk := storetest.NewClock(at(start))
	fs := memfs.New(memfs.WithClock(clk.Now))
	ctx := t.Context()

	steps := []struct {
		name string
		op   func() error
		want map[string]int64 // name -> mtime after the step
	}{
		{"new", func() error { return nil }, map[string]int64{"": start}},
		{"mkdir", func() error { return fs.Mkdir(ctx, "d", 0o755) },
			map[string]int64{"": start + 1, "d": start + 1}},
		{"write new file", func() error { return fs.WriteFile(ctx, "d/f", strings.NewReader("x"), 0o644) },
			map[string]int64{"": start + 1, "d": start + 2, "d/f": start + 2}},
		{"replace file", func() error { return fs.WriteFile(ctx, "d/f", strings.NewReader("yy"), 0o644) },
			map[string]int64{"": start + 1, "d/f": start + 3}},
		{"symlink", func() error { return fs.Symlink(ctx, "f", "d/l") },
			map[string]int64{"": start + 1, "d": start + 4, "d/l": start + 4, "d/f": start + 3}},
		{"chmod keeps mtime", func() error { return fs.Chmod(ctx, "d/f", 0o600) },
			map[string]int64{"d": start + 4, "d/f": start + 3}},
		{"remove stamps the parent", func() error { return fs.Remove(ctx, "d/l") },
			map[string]int64{"": start + 1, "d": start + 6, "d/f": start + 3}},
		{"removeall stamps the parent", func() error { return fs.RemoveAll(ctx, "d") },
			map[string]int64{"": start + 7}},
	}
	for i, st := range steps {
		clk.Set(at(start + int64(i)))
		if err := st.op(); err != nil {
			t.Fatalf("step %q: %v", st.name, err)
		}
		for name, want := range st.want {
			info, err := fs.Lstat(ctx, name)
			if err != nil {
				t.Fatalf("step %q: Lstat(%q): %v", st.name, name, err)
			}
			if info.MTime != want {
				t.Errorf("step %q: mtime of %q = %d, want %d", st.name, name, info.MTime, want)
			}
		}
	}
}

// TestClockThroughWorkspace checks that the workspace reports the store's
// mtimes unchanged.
func TestClockThroughWorkspace(t *testing.T) {
	const ms = 1767225600123
	fs := memfs.New(memfs.WithClock(func() time.Time { return time.UnixMilli(ms).Add(500 * time.Microsecond) }))
	ws := vfs.New(fs)
	if err := ws.WriteFile(t.Context(), "/a/b.txt", []byte("x"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/a", "/a/b.txt"} {
		info, err := ws.Stat(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if info.MTime != ms {
			t.Errorf("Stat(%q).MTime = %d, want %d", p, info.MTime, ms)
		}
	}
}

// TestOpenKeepsSnapshot is stricter than the conformance suite, which lets
// a reader fail: a memfs reader always reads what it opened.
func TestOpenKeepsSnapshot(t *testing.T) {
	ctx := t.Context()
	fs := memfs.New()
	if err := fs.WriteFile(ctx, "f", strings.NewReader("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := fs.Open(ctx, "f", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := fs.WriteFile(ctx, "f", strings.NewReader("NEW"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fs.Remove(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "content" {
		t.Errorf("reader after replace and remove read %q, %v; want %q", b, err, "content")
	}
}

// TestPageHoldsPage: a page of a large directory holds the entries up to
// the page's end, not a list of every name.
func TestPageHoldsPage(t *testing.T) {
	if b := storetest.PageBytes(t, memfs.New(), 20000); b > 4 {
		t.Errorf("a page of 10 entries of 20000 allocated %.1f bytes per entry of the directory; want at most 4", b)
	}
}
