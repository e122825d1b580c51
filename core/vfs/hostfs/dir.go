package hostfs

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

var _ vfs.DirOpener = (*FS)(nil)

// windowMin is the fewest entries a directory handle keeps from one
// reading of the directory (see dir.Entries): a walk asks for its
// entries in chunks, starting small, and a directory of up to
// windowMin entries is read once, not once per chunk.
const windowMin = 1024

// dir is an open directory of the store: an os.Root of its own, so that
// each step of a walk below it names one entry relative to it (one
// openat or fstatat) instead of resolving the path from the store's
// root again, and so that nothing reached through it leaves it. It was
// inside the store when opened; a host process that moves it elsewhere
// meanwhile takes the walk with it, below the directory only, as a host
// walker with directory descriptors (fts) does.
type dir struct {
	root *os.Root
	name string // in the store
	// win is the window of the directory's entries kept from its last
	// reading: all the names after winAfter up to win's last, in raw byte
	// order; winAll tells that no name followed the last. ok is false
	// before the first reading.
	win      []vfs.DirEntry
	winAfter string
	winAll   bool
	ok       bool
}

// OpenDir opens the directory at name as a handle (see vfs.DirOpener).
// Errors: ENOENT, ENOTDIR (a symbolic link included, never followed),
// EACCES, and the host's own.
func (f *FS) OpenDir(_ context.Context, name string) (vfs.DirHandle, error) {
	return f.openDir(name)
}

func (f *FS) openDir(name string) (*dir, error) {
	r, err := openSub(f.root, rel(name), name)
	if err != nil {
		return nil, err
	}
	return &dir{root: r, name: name}, nil
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

func (d *dir) join(name string) string {
	if d.name == "" {
		return name
	}
	return d.name + "/" + name
}

// Entries lists the directory's first n entries after after, reading its
// names with their kinds and keeping max(n, windowMin) at most; no entry
// is stat'ed on Linux (the kind comes with the name from the host). The
// entries kept beyond n answer the calls that follow, when they ask for
// names within them, without reading the directory again: a directory
// changed meanwhile may be seen as it was at the last reading. This
// package's temporary files are left out, as ReadDir leaves them out.
func (d *dir) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	if d.ok && after >= d.winAfter {
		i, _ := slices.BinarySearchFunc(d.win, after, func(e vfs.DirEntry, name string) int { return strings.Compare(e.Name, name) })
		if i < len(d.win) && d.win[i].Name == after {
			i++
		}
		if d.winAll || n >= 0 && i+n <= len(d.win) {
			end := len(d.win)
			if n >= 0 {
				end = min(end, i+n)
			}
			return slices.Clone(d.win[i:end]), nil
		}
	}
	keep := n
	if n >= 0 {
		keep = max(n, windowMin)
	}
	win, all, err := d.scan(ctx, after, keep, true)
	if err != nil {
		return nil, err
	}
	d.win, d.winAfter, d.winAll, d.ok = win, after, all, true
	if n >= 0 && n < len(win) {
		win = win[:n]
	}
	return slices.Clone(win), nil
}

// scan reads the directory and returns its first n entries after after
// (all when n < 0) in raw byte order, and whether they are all the
// entries after after. Kinds are read unless kinds is false (all
// TypeFile then: the names alone). Names are kept only when they are
// among the n first so far, so memory grows with n, not with the
// directory.
func (d *dir) scan(ctx context.Context, after string, n int, kinds bool) ([]vfs.DirEntry, bool, error) {
	file, err := d.root.Open(".")
	if err != nil {
		return nil, false, hostErr(d.name, err)
	}
	defer file.Close()
	keep := vfs.NewSmallest(after, n)
	seen := 0
	err = eachName(ctx, file, kinds, func(name string, typ vfs.FileType) {
		if name <= after || tempToken(name) != "" && ownTemp(d.root, name) {
			return
		}
		seen++
		if keep.Wants(name) {
			keep.Offer(vfs.DirEntry{Name: strings.Clone(name), Type: typ})
		}
	})
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, false, err
		}
		return nil, false, hostErr(d.name, err)
	}
	return keep.Sorted(), n < 0 || seen <= n, nil
}

// OpenDir opens the directory name in d (one openat, confined to d).
func (d *dir) OpenDir(_ context.Context, name string) (vfs.DirHandle, error) {
	r, err := openSub(d.root, name, d.join(name))
	if err != nil {
		return nil, err
	}
	return &dir{root: r, name: d.join(name)}, nil
}

// Open reads the regular file name in d from offset, as FS.Open.
func (d *dir) Open(_ context.Context, name string, offset int64) (io.ReadCloser, error) {
	return openFile(d.root, name, d.join(name), offset)
}

// Close releases the directory's descriptor.
func (d *dir) Close() error { return d.root.Close() }
