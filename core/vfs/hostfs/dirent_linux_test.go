package hostfs

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/vfs"
)

// TestDirentsOfUnknownKind checks the records of a file system that
// gives no kinds (d_type DT_UNKNOWN, as some network and FUSE file
// systems do): with kinds, each is stat'ed in the directory and one that
// vanished is left out; without, the names alone come, as files.
func TestDirentsOfUnknownKind(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, name := range []string{".", "..", "file", "gone", "sub", "link", "fifo"} {
		reclen := (int(direntName) + len(name) + 1 + 7) &^ 7
		rec := make([]byte, reclen)
		binary.NativeEndian.PutUint16(rec[direntReclen:], uint16(reclen))
		rec[direntType] = unix.DT_UNKNOWN
		copy(rec[direntName:], name)
		buf = append(buf, rec...)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, c := range []struct {
		kinds bool
		want  []vfs.DirEntry
	}{
		{true, []vfs.DirEntry{{Name: "file", Type: vfs.TypeFile}, {Name: "sub", Type: vfs.TypeDir}, {Name: "link", Type: vfs.TypeSymlink}, {Name: "fifo", Type: vfs.TypeOther}}},
		{false, []vfs.DirEntry{{Name: "file"}, {Name: "gone"}, {Name: "sub"}, {Name: "link"}, {Name: "fifo"}}},
	} {
		var got []vfs.DirEntry
		err := parseDirents(fd, buf, c.kinds, func(name string, typ vfs.FileType) {
			got = append(got, vfs.DirEntry{Name: strings.Clone(name), Type: typ})
		})
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("kinds %v: %v, %v; want %v", c.kinds, got, err, c.want)
		}
	}
}
