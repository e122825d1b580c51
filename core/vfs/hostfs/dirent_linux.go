package hostfs

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/vfs"
)

// direntBuf is the size of the buffer getdents(2) fills: a 64 KiB read
// brings about two thousand names per system call (Go's os package
// reads 8 KiB).
const direntBuf = 64 << 10

var direntBufs = sync.Pool{New: func() any { b := make([]byte, direntBuf); return &b }}

// The layout of a linux_dirent64 record (syscall.Dirent).
const (
	direntReclen = unsafe.Offsetof(syscall.Dirent{}.Reclen)
	direntType   = unsafe.Offsetof(syscall.Dirent{}.Type)
	direntName   = unsafe.Offsetof(syscall.Dirent{}.Name)
)

// eachName calls fn with the name and kind of each entry of the
// directory open as fd ("." and ".." left out), reading on from the
// descriptor's offset, the names with getdents(2) and their kinds from
// its d_type: no entry is stat'ed, except, with kinds set, one whose
// file system does not give its kind (d_type DT_UNKNOWN; without kinds
// its kind is given as TypeFile). os.File.ReadDir stats every entry of a
// directory opened through an os.Root, which is what this avoids. The
// name fn gets is valid during the call only (strings.Clone it to keep
// it). An entry that vanishes before its stat is left out.
func eachName(ctx context.Context, fd int, kinds bool, fn func(name string, typ vfs.FileType)) error {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := unix.Getdents(fd, buf)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return &os.PathError{Op: "getdents", Path: ".", Err: err}
		case n <= 0:
			return nil
		}
		if err := parseDirents(fd, buf[:n], kinds, fn); err != nil {
			return err
		}
	}
}

// parseDirents calls fn for each record of buf, which getdents(2) filled
// reading the directory fd.
func parseDirents(fd int, buf []byte, kinds bool, fn func(name string, typ vfs.FileType)) error {
	for len(buf) > int(direntName) {
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen <= int(direntName) || reclen > len(buf) {
			return errors.New("getdents: malformed record")
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		s := unsafe.String(&name[0], len(name))
		typ := vfs.TypeOther
		switch rec[direntType] {
		case unix.DT_REG:
			typ = vfs.TypeFile
		case unix.DT_DIR:
			typ = vfs.TypeDir
		case unix.DT_LNK:
			typ = vfs.TypeSymlink
		case unix.DT_UNKNOWN:
			typ = vfs.TypeFile
			if kinds {
				var st unix.Stat_t
				err := ignoringEINTR(func() error { return unix.Fstatat(fd, s, &st, unix.AT_SYMLINK_NOFOLLOW) })
				if errors.Is(err, unix.ENOENT) {
					continue // removed since the listing
				}
				if err != nil {
					return &os.PathError{Op: "fstatat", Path: string(name), Err: err}
				}
				typ = kindOfStat(st.Mode)
			}
		}
		fn(s, typ)
	}
	return nil
}

// kindOfStat is the kind of a node of stat(2) mode m.
func kindOfStat(m uint32) vfs.FileType {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return vfs.TypeFile
	case unix.S_IFDIR:
		return vfs.TypeDir
	case unix.S_IFLNK:
		return vfs.TypeSymlink
	}
	return vfs.TypeOther
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}
