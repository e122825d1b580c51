package hostfs

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
)

// TestOpenDirFollowsNoLinkOnTheWay checks that a handle is opened one
// name at a time without following a link anywhere in the name: a link
// on the way (to a directory inside the store, which os.Root would
// follow) is ENOTDIR, as a link at the end is.
func TestOpenDirFollowsNoLinkOnTheWay(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"link/sub", "link"} {
		d, err := f.OpenDir(t.Context(), name)
		if err == nil {
			d.Close()
		}
		if errno.CodeOf(err) != errno.ENOTDIR {
			t.Errorf("OpenDir(%q): %v, want ENOTDIR", name, err)
		}
	}
	d, err := f.OpenDir(t.Context(), "real/sub")
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
}

// TestHandleReadsFilesOfNoSize checks that a file the kernel gives no
// size (0, as /proc's files, which also read short) is read whole through
// a handle, up to the read that returns nothing.
func TestHandleReadsFilesOfNoSize(t *testing.T) {
	want, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil || len(want) == 0 {
		t.Skip("no /proc/self/mountinfo")
	}
	d := rootHandle(t, "/proc/self")
	r, err := d.Open(t.Context(), "mountinfo", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	// The mounts of one process are the same for the two reads.
	if err != nil || !strings.HasPrefix(string(got), string(want[:len(want)/2])) || len(got) < len(want)/2 {
		t.Errorf("read %d bytes, %v; want %d", len(got), err, len(want))
	}
}

// TestHandleOpensNoFIFO checks that a FIFO listed in a directory is
// refused (EINVAL) through a handle without blocking the open.
func TestHandleOpensNoFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := rootHandle(t, dir)
	if r, err := d.Open(t.Context(), "fifo", 0); errno.CodeOf(err) != errno.EINVAL {
		if err == nil {
			r.Close()
		}
		t.Errorf("Open(fifo): %v, want EINVAL", err)
	}
}

// rootHandle opens the host directory dir as a store and its root as a
// handle, both closed when the test ends.
func rootHandle(t *testing.T, dir string) vfs.DirHandle {
	t.Helper()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	d, err := f.OpenDir(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
