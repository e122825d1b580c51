// Reading: listing directories, opening files, reading links.

package vfs

import (
	"context"
	"io"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// ReadDir lists the directory at path (following links) in raw byte
// order of the names, skipping offset entries and returning at most
// limit (all when limit < 0). Errors: ENOENT "no such path", ENOTDIR
// "not a directory", both with the canonical path.
func (w *Workspace) ReadDir(ctx context.Context, path string, offset, limit int) ([]Info, error) {
	loc, err := w.Resolve(ctx, path)
	if err != nil {
		return nil, err
	}
	if loc.Info.Type != TypeDir {
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgNotDirectory(loc.Path), loc.Path)
	}
	return w.ReadDirResolved(ctx, loc.Real, offset, limit)
}

// ReadDirResolved lists the directory at a link-free path (Location.Real
// of Resolve, or a path built from an earlier listing of such a path)
// without resolving it again: a walk that already knows where it is pays
// no lookup per directory.
func (w *Workspace) ReadDirResolved(ctx context.Context, real string, offset, limit int) ([]Info, error) {
	m, name := w.locate(real)
	entries, err := m.store.ReadDir(ctx, name, offset, limit)
	if err != nil {
		return nil, hostError(toolspec.MsgOpList, real, err)
	}
	roots := w.mountsIn(real)
	for i := range entries {
		normalize(&entries[i])
		for _, root := range roots {
			if Base(root) == entries[i].Name {
				if info, err := w.lstatReal(ctx, root); err == nil {
					entries[i] = info
				}
			}
		}
	}
	return entries, nil
}

// Open reads the regular file at path (following links) from byte
// offset. Errors: ENOENT "no such file: <path>", EISDIR
// "path is a directory: <path>", with the path as given.
func (w *Workspace) Open(ctx context.Context, path string, offset int64) (io.ReadCloser, Info, error) {
	r, loc, err := w.OpenFile(ctx, path, offset)
	return r, loc.Info, err
}

// OpenFile is Open that also says where path led: the Location's Path is
// path's canonical form, its Real the file's link-free path.
func (w *Workspace) OpenFile(ctx context.Context, path string, offset int64) (io.ReadCloser, Location, error) {
	canon, n, err := w.lookup(ctx, path, true)
	if isNotExist(err) {
		return nil, Location{}, errno.New(errno.ENOENT, toolspec.MsgNoSuchFile(path), path)
	}
	if err != nil {
		return nil, Location{}, err
	}
	switch n.info.Type {
	case TypeDir:
		return nil, Location{}, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(path), path)
	case TypeOther:
		return nil, Location{}, errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(path), path)
	}
	r, err := w.OpenResolved(ctx, n.path, offset)
	return r, Location{Path: canon, Real: n.path, Info: n.info}, err
}

// OpenResolved reads the regular file at a link-free path (Location.Real
// of Resolve, or a path built from a listing) from byte offset, without
// resolving it again.
// A failure of Read is worded as a failure to open is ("read <path>:
// <reason>"); the context's error and io.EOF pass unchanged.
func (w *Workspace) OpenResolved(ctx context.Context, real string, offset int64) (io.ReadCloser, error) {
	m, name := w.locate(real)
	r, err := m.store.Open(ctx, name, offset)
	if err != nil {
		return nil, hostError(toolspec.MsgOpRead, real, err)
	}
	return wordedReader{r, real}, nil
}

// wordedReader words its reader's failures with the path it reads.
type wordedReader struct {
	io.ReadCloser
	path string
}

func (r wordedReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = hostError(toolspec.MsgOpRead, r.path, err)
	}
	return n, err
}

// Readlink returns the target of the symbolic link at path. Errors:
// ENOENT "no such path", EINVAL "not a symbolic link".
func (w *Workspace) Readlink(ctx context.Context, path string) (string, error) {
	info, err := w.Lstat(ctx, path)
	if err != nil {
		return "", err
	}
	if info.Type != TypeSymlink {
		return "", errno.New(errno.EINVAL, toolspec.MsgNotSymlink(path), path)
	}
	return info.Target, nil
}
