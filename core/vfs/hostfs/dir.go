package hostfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

var _ vfs.DirOpener = (*FS)(nil)

// readBatch is how many names a listing reads from the host at a time.
const readBatch = 1024

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
// names in batches and keeping n at most; no entry is stat'ed (the kind
// comes with the name from the host). This package's temporary files
// are left out, as ReadDir leaves them out.
func (d *dir) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	return d.scan(ctx, after, n, true)
}

// scan is Entries; without kinds (all TypeFile) unless kinds is set,
// which reads the names alone.
func (d *dir) scan(ctx context.Context, after string, n int, kinds bool) ([]vfs.DirEntry, error) {
	file, err := d.root.Open(".")
	if err != nil {
		return nil, hostErr(d.name, err)
	}
	defer file.Close()
	keep := vfs.NewSmallest(after, n)
	offer := func(name string, typ vfs.FileType) {
		if name > after && (tempToken(name) == "" || !ownTemp(d.root, name)) {
			keep.Offer(vfs.DirEntry{Name: name, Type: typ})
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if kinds {
			var batch []fs.DirEntry
			batch, err = file.ReadDir(readBatch)
			for _, e := range batch {
				offer(e.Name(), kindOf(e.Type()))
			}
		} else {
			var batch []string
			batch, err = file.Readdirnames(readBatch)
			for _, name := range batch {
				offer(name, vfs.TypeFile)
			}
		}
		if errors.Is(err, io.EOF) {
			return keep.Sorted(), nil
		}
		if err != nil {
			return nil, hostErr(d.name, err)
		}
	}
}

// kindOf is the kind of a node of type bits t.
func kindOf(t fs.FileMode) vfs.FileType {
	switch {
	case t&fs.ModeSymlink != 0:
		return vfs.TypeSymlink
	case t.IsDir():
		return vfs.TypeDir
	case t.IsRegular():
		return vfs.TypeFile
	}
	return vfs.TypeOther
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
