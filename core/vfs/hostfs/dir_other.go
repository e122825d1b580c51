//go:build !linux

package hostfs

import (
	"context"
	"io"
	"os"
	"syscall"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// sysDir is the host side of an open directory: an os.Root of its own.
type sysDir struct {
	root *os.Root
}

// rootFD is what Linux keeps of the store's directory besides its
// os.Root (nothing here).
type rootFD struct{}

func openRootFD(string) (rootFD, error) { return rootFD{}, nil }

func (rootFD) close() error { return nil }

// openTop is Linux's way to open a file directly in the store's
// directory; here os.Root opens every file (ok is false).
func (f *FS) openTop(string, int64) (io.ReadCloser, bool, error) { return nil, false, nil }

// openSysDir opens the directory at name in the store.
func (f *FS) openSysDir(name string) (sysDir, error) {
	r, err := openSub(f.root, rel(name), name)
	return sysDir{r}, err
}

// openSub opens the directory rname in the directory r as a root of its
// own. A node that is no directory is ENOTDIR, and so is a symbolic link:
// os.Root follows a link in the last component (inside r), so the
// directory opened must be the one Lstat saw, or it was replaced
// meanwhile (ENOENT, as a node that vanished).
func openSub(r *os.Root, rname, name string) (*os.Root, error) {
	fi, err := r.Lstat(rname)
	if err != nil {
		return nil, hostErr(name, err)
	}
	if !fi.IsDir() {
		return nil, &errno.Error{Code: errno.ENOTDIR, Message: toolspec.MsgReasonNotDirectory, Path: name}
	}
	sub, err := r.OpenRoot(rname)
	if err != nil {
		return nil, hostErr(name, err)
	}
	cur, err := sub.Stat(".")
	if err != nil {
		sub.Close()
		return nil, hostErr(name, err)
	}
	if !os.SameFile(cur, fi) {
		sub.Close()
		return nil, &errno.Error{Code: errno.ENOENT, Message: toolspec.MsgReasonReplaced, Path: name}
	}
	return sub, nil
}

// openSub opens the directory name in d (shown in the store).
func (d sysDir) openSub(name, shown string) (sysDir, error) {
	r, err := openSub(d.root, name, shown)
	return sysDir{r}, err
}

// eachName calls fn with each entry of the directory (see the
// platform's eachName).
func (d sysDir) eachName(ctx context.Context, kinds bool, fn func(name string, typ vfs.FileType)) error {
	file, err := d.root.Open(".")
	if err != nil {
		return err
	}
	defer file.Close()
	return eachName(ctx, file, kinds, fn)
}

// open reads the regular file name in d from offset.
func (d sysDir) open(name, shown string, offset int64) (io.ReadCloser, error) {
	return openFile(d.root, name, shown, offset)
}

// lstat describes the node name in d without following a link.
func (d sysDir) lstat(name, shown string) (vfs.Info, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return vfs.Info{}, hostErr(shown, err)
	}
	return info(d.root, name, shown, fi)
}

func (d sysDir) close() error { return d.root.Close() }

// ownTemp reports whether the node name in the directory r is a
// temporary file of this package's (named and marked so, see the
// package doc), which listings leave out; when its writer is gone (it is
// not locked), it is removed.
func (d sysDir) ownTemp(name string) bool {
	r := d.root
	token := tempToken(name)
	if token == "" {
		return false
	}
	file, err := r.OpenFile(name, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() || !marked(file, token) {
		return false
	}
	if tryLock(file) {
		// Its writer is gone, killed before it could remove it.
		if cur, err := r.Lstat(name); err == nil && os.SameFile(cur, fi) {
			_ = r.Remove(name)
		}
	}
	return true
}
