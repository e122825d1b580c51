package hostfs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	_, d := openRoot(t, dir)
	t.Cleanup(func() { d.Close() })
	return d
}

// TestOpenLaterOutlivesTheHandle checks that a file prepared with
// OpenLater opens from another goroutine after its directory's handle
// was closed and listed meanwhile, and that the directory's descriptor
// is released once every prepared file was opened.
func TestOpenLaterOutlivesTheHandle(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, d := openRoot(t, dir)
	var opens []func() (io.ReadCloser, error)
	for i := range 20 {
		opens = append(opens, d.OpenLater(t.Context(), fmt.Sprintf("f%02d", i), 0))
	}
	fd := d.sys.fd
	got := make([]string, 20)
	var wg sync.WaitGroup
	for i, open := range opens {
		wg.Go(func() {
			r, err := open()
			if err != nil {
				got[i] = err.Error()
				return
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			got[i] = fmt.Sprintf("%s %v", b, err)
		})
		if i == 10 {
			if _, err := d.Entries(t.Context(), "", -1); err != nil {
				t.Error(err)
			}
			d.Close()
		}
	}
	wg.Wait()
	for i, g := range got {
		if want := fmt.Sprint(i, nil); g != want {
			t.Errorf("file %d read %q, want %q", i, g, want)
		}
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
		t.Errorf("the directory's descriptor is still open (%v)", err)
	}
}

// TestOpenTopAsOpenBelow checks that a file directly in the store's
// directory is opened through a plain descriptor (no os.File, whose open
// costs a stat and the poller's registration more), and answers as a
// file further down, which os.Root opens: the same bytes from each
// offset, the same failures for a link, a directory, a FIFO, a missing
// name.
func TestOpenTopAsOpenBelow(t *testing.T) {
	dir := t.TempDir()
	for _, at := range []string{dir, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(filepath.Join(at, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(at, "f.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("f.txt", filepath.Join(at, "link")); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mkfifo(filepath.Join(at, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := f.Open(t.Context(), "f.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*fdReader); !ok {
		t.Errorf("Open(f.txt) reads through %T, want a plain descriptor", r)
	}
	r.Close()
	for _, name := range []string{"f.txt", "link", "d", "fifo", "missing"} {
		for _, offset := range []int64{0, 3, 12, 100, 1 << 62} {
			top, topErr := readAllAt(f, name, offset)
			below, belowErr := readAllAt(f, "sub/"+name, offset)
			if top != below || errno.CodeOf(topErr) != errno.CodeOf(belowErr) || fmt.Sprint(topErr) != strings.Replace(fmt.Sprint(belowErr), "sub/", "", 1) {
				t.Errorf("Open(%q, %d): %q, %v; Open(sub/%s): %q, %v", name, offset, top, topErr, name, below, belowErr)
			}
		}
	}
}

// readAllAt reads the file name of f from offset to its end.
func readAllAt(f *FS, name string, offset int64) (string, error) {
	r, err := f.Open(context.Background(), name, offset)
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return string(b), err
}
