package hostfs

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core/vfs"
)

var _ vfs.DirOpener = (*FS)(nil)

// windowMin is the fewest entries a directory handle keeps from one
// reading of the directory (see dir.Entries): a walk asks for its
// entries in chunks, starting small, and a directory of up to
// windowMin entries is read once, not once per chunk.
const windowMin = 1024

// dir is an open directory of the store: a descriptor of its own (see
// sysDir), so that each step of a walk below it names one entry
// relative to it (one openat or fstatat) instead of resolving the path
// from the store's root again, and so that nothing reached through it
// leaves it. It was inside the store when opened; a host process that
// moves it elsewhere meanwhile takes the walk with it, below the
// directory only, as a host walker with directory descriptors (fts)
// does.
type dir struct {
	sys  sysDir
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
	sys, err := f.openSysDir(name)
	if err != nil {
		return nil, err
	}
	return &dir{sys: sys, name: name}, nil
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
	keep := vfs.NewSmallest(after, n)
	seen := 0
	err := d.sys.eachName(ctx, kinds, func(name string, typ vfs.FileType) {
		if name <= after || tempToken(name) != "" && d.sys.ownTemp(name) {
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
	sub, err := d.sys.openSub(name, d.join(name))
	if err != nil {
		return nil, err
	}
	return &dir{sys: sub, name: d.join(name)}, nil
}

// Open reads the regular file name in d from offset, as FS.Open.
func (d *dir) Open(_ context.Context, name string, offset int64) (io.ReadCloser, error) {
	return d.sys.open(name, d.join(name), offset)
}

// Close releases the directory's descriptor.
func (d *dir) Close() error { return d.sys.close() }
