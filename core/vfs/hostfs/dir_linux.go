package hostfs

import (
	"context"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// On Linux a walk goes through plain descriptors, not os.Root and
// os.File: entering a directory is one openat(2) of one name relative to
// the directory above (O_NOFOLLOW|O_DIRECTORY: a link or a non-directory
// is refused by the kernel, atomically, so nothing is checked before or
// after), listing it is getdents(2) on that same descriptor, and a file
// is read through a descriptor opened relative to it with O_NOFOLLOW,
// without the poller's registration (os.File adds an fstat, fcntl and
// epoll_ctl to every open, and a stat before it through os.Root). Each
// name opened is a single component that is neither "." nor "..", and no
// link is followed, so nothing reached leaves the directory the walk
// started from, as with os.Root.

// sysDir is the host side of an open directory: its descriptor, and
// whether it was read (its offset is then rewound before reading again).
type sysDir struct {
	fd   int
	read bool
	// refs counts the holders of fd once a file is to be opened later
	// (see dir.OpenLater): the handle and each such opening; the last
	// one closes it. nil before.
	refs *atomic.Int32
}

// rootFD is a descriptor of the store's directory, from which sysDirs
// are opened (os.Root has its own, which it does not give out).
type rootFD struct{ fd int }

func openRootFD(abs string) (rootFD, error) {
	fd, err := openAt(unix.AT_FDCWD, abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return rootFD{-1}, &os.PathError{Op: "open", Path: abs, Err: err}
	}
	return rootFD{fd}, nil
}

func (r rootFD) close() error {
	if r.fd < 0 {
		return nil
	}
	return unix.Close(r.fd)
}

func openAt(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// oneName reports whether name is one entry of a directory: not empty,
// ".", "..", and without "/".
func oneName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.Contains(name, "/")
}

// openSysDir opens the directory at name in the store, one component at
// a time from the store's directory. A name with an empty, "." or ".."
// component (which the workspace never gives) is opened through os.Root
// as before, which confines it.
func (f *FS) openSysDir(name string) (sysDir, error) {
	parts := strings.Split(name, "/")
	if name == "" {
		parts = nil
	}
	for _, p := range parts {
		if !oneName(p) {
			return f.openSysDirRoot(name)
		}
	}
	fd, err := openAt(f.fd.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return sysDir{}, hostErr(name, &os.PathError{Op: "openat", Path: name, Err: err})
	}
	d := sysDir{fd: fd}
	for i, p := range parts {
		sub, err := d.openSub(p, strings.Join(parts[:i+1], "/"))
		d.close()
		if err != nil {
			return sysDir{}, err
		}
		d = sub
	}
	return d, nil
}

// openSysDirRoot opens the directory at name through os.Root (refusing a
// link in the last component, which os.Root follows) and keeps a
// duplicate of its descriptor.
func (f *FS) openSysDirRoot(name string) (sysDir, error) {
	fi, err := f.root.Lstat(rel(name))
	if err != nil {
		return sysDir{}, hostErr(name, err)
	}
	if !fi.IsDir() {
		return sysDir{}, &errno.Error{Code: errno.ENOTDIR, Message: toolspec.MsgReasonNotDirectory, Path: name}
	}
	file, err := f.root.Open(rel(name))
	if err != nil {
		return sysDir{}, hostErr(name, err)
	}
	defer file.Close()
	cur, err := file.Stat()
	if err != nil {
		return sysDir{}, hostErr(name, err)
	}
	if !os.SameFile(cur, fi) {
		return sysDir{}, &errno.Error{Code: errno.ENOENT, Message: toolspec.MsgReasonReplaced, Path: name}
	}
	fd := -1
	err = fdControl(file, func(ffd int) (err error) {
		fd, err = unix.FcntlInt(uintptr(ffd), unix.F_DUPFD_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return sysDir{}, hostErr(name, err)
	}
	return sysDir{fd: fd}, nil
}

// openSub opens the directory name in d (shown in the store): one
// openat. A link (never followed) or a node that is no directory is
// ENOTDIR.
func (d *sysDir) openSub(name, shown string) (sysDir, error) {
	if !oneName(name) {
		return sysDir{}, &errno.Error{Code: errno.ENOENT, Message: toolspec.MsgReasonNoEntry, Path: shown}
	}
	fd, err := openAt(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	switch {
	case err == unix.ENOTDIR || err == unix.ELOOP:
		return sysDir{}, &errno.Error{Code: errno.ENOTDIR, Message: toolspec.MsgReasonNotDirectory, Path: shown}
	case err != nil:
		return sysDir{}, hostErr(shown, &os.PathError{Op: "openat", Path: shown, Err: err})
	}
	return sysDir{fd: fd}, nil
}

// eachName calls fn with each entry of the directory, from its first.
func (d *sysDir) eachName(ctx context.Context, kinds bool, fn func(name string, typ vfs.FileType)) error {
	if d.read {
		if _, err := unix.Seek(d.fd, 0, io.SeekStart); err != nil {
			return &os.PathError{Op: "lseek", Path: ".", Err: err}
		}
	}
	d.read = true
	return eachName(ctx, d.fd, kinds, fn)
}

// open reads the regular file name in d from offset: openat with
// O_NOFOLLOW (a link is ELOOP) and O_NONBLOCK (a FIFO does not block
// the open; it is refused after), and an fstat to check that it is a
// regular file.
func (d *sysDir) open(name, shown string, offset int64) (io.ReadCloser, error) {
	if !oneName(name) {
		return nil, &errno.Error{Code: errno.ENOENT, Message: toolspec.MsgReasonNoEntry, Path: shown}
	}
	fd, err := openAt(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	switch {
	case err == unix.ELOOP:
		return nil, &errno.Error{Code: errno.ELOOP, Message: toolspec.MsgReasonSymlink, Path: shown}
	case err != nil:
		return nil, hostErr(shown, &os.PathError{Op: "openat", Path: shown, Err: err})
	}
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		unix.Close(fd)
		return nil, hostErr(shown, &os.PathError{Op: "fstat", Path: shown, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		code := errno.EINVAL
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			code = errno.EISDIR
		}
		return nil, &errno.Error{Code: code, Message: toolspec.MsgReasonNotRegularFile, Path: shown}
	}
	return &fdReader{fd: fd, off: max(offset, 0), size: st.Size, name: shown}, nil
}

// openTop opens name, a file directly in the store's directory, as a
// walk opens a file of a directory it holds (sysDir.open: one openat
// with O_NOFOLLOW, an fstat, reads with pread), sparing os.Root's stat
// before the open and os.File's registration with the poller. ok is
// false for any other name, which os.Root opens.
func (f *FS) openTop(name string, offset int64) (r io.ReadCloser, ok bool, err error) {
	if !oneName(name) || f.fd.fd < 0 {
		return nil, false, nil
	}
	d := sysDir{fd: f.fd.fd}
	r, err = d.open(name, name, offset)
	return r, true, err
}

// fdReader reads a file through its descriptor with pread(2), from off.
// A short read that reaches the size the file had when opened ends the
// file (io.EOF with the bytes), sparing the read that would return
// nothing: a regular file reads short only at its end. A file that gave
// no size (0, as the kernel's own files do) is read until a read
// returns nothing.
type fdReader struct {
	fd   int
	off  int64
	size int64
	name string
}

func (r *fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Pread(r.fd, p, r.off)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EINVAL && n <= 0:
			// An offset beyond what the host's files can hold: there
			// is nothing there, as at any other offset past the end.
			return 0, io.EOF
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: r.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		r.off += int64(n)
		if n < len(p) && r.size > 0 && r.off >= r.size {
			return n, io.EOF
		}
		return n, nil
	}
}

func (r *fdReader) Close() error {
	if r.fd < 0 {
		return os.ErrClosed
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// lstat describes the node name in d without following a link: one
// fstatat (and a readlinkat for a link).
func (d *sysDir) lstat(name, shown string) (vfs.Info, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return vfs.Info{}, hostErr(shown, &os.PathError{Op: "fstatat", Path: shown, Err: err})
	}
	i := vfs.Info{
		Name:  name,
		Mode:  st.Mode & 0o7777,
		Size:  st.Size,
		MTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec).UnixMilli(),
		Type:  kindOfStat(st.Mode),
	}
	switch i.Type {
	case vfs.TypeSymlink:
		target, err := readlinkAt(d.fd, name)
		if err != nil {
			return vfs.Info{}, hostErr(shown, &os.PathError{Op: "readlinkat", Path: shown, Err: err})
		}
		i.Target = target
	case vfs.TypeOther:
		i.Size = 0
	}
	return i, nil
}

func readlinkAt(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

func (d *sysDir) close() error {
	if d.refs != nil && d.refs.Add(-1) > 0 {
		return nil // a file is still to be opened in it
	}
	return unix.Close(d.fd)
}

var _ vfs.LaterOpener = (*dir)(nil)

// OpenLater keeps the directory's descriptor for a file opened later
// (see vfs.Dir.OpenLater): openat relative to it is safe from any
// goroutine, while the handle lists it or after it is closed.
func (d *dir) OpenLater(_ context.Context, name string, offset int64) func() (io.ReadCloser, error) {
	if d.sys.refs == nil {
		d.sys.refs = new(atomic.Int32)
		d.sys.refs.Store(1)
	}
	d.sys.refs.Add(1)
	held := sysDir{fd: d.sys.fd, refs: d.sys.refs}
	shown := d.join(name)
	return func() (io.ReadCloser, error) {
		defer held.close()
		return held.open(name, shown, offset)
	}
}

// ownTemp reports whether the node name in d is a temporary file of this
// package's (named and marked so, see the package doc), which listings
// leave out; when its writer is gone (it is not locked), it is removed.
func (d *sysDir) ownTemp(name string) bool {
	token := tempToken(name)
	if token == "" || !oneName(name) {
		return false
	}
	fd, err := openAt(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return false
	}
	file := os.NewFile(uintptr(fd), name)
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() || !marked(file, token) {
		return false
	}
	if tryLock(file) {
		// Its writer is gone, killed before it could remove it.
		var st unix.Stat_t
		if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && sameStat(&st, fi) {
			_ = unix.Unlinkat(d.fd, name, 0)
		}
	}
	return true
}

// sameStat reports whether st describes the file fi describes.
func sameStat(st *unix.Stat_t, fi fs.FileInfo) bool {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return uint64(st.Dev) == uint64(s.Dev) && uint64(st.Ino) == uint64(s.Ino)
}
