package pgfs

import (
	"context"
	"io"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// OpenDir opens the directory at name (never following a link), with
// one statement. Errors: ENOENT, ENOTDIR (name is no directory, a link
// included), EINVAL, EIO.
func (f *FS) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	n, err := f.lookup(ctx, name)
	if err != nil {
		return nil, fail(ctx, name, err)
	}
	if n.typ != dbDir {
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return &dirHandle{f: f, name: name}, nil
}

// dirHandle is an open directory: its path.
type dirHandle struct {
	f    *FS
	name string
}

// Entries lists at most n entries after the name after, with the
// directory, in one statement.
func (d *dirHandle) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	var lim any
	if n >= 0 {
		lim = int64(n)
	}
	rows, err := d.f.pool.Query(ctx, "dir_after", d.f.ws, []byte(d.name), []byte(after), lim)
	if err != nil {
		return nil, fail(ctx, d.name, err)
	}
	out := []vfs.DirEntry{}
	err = d.f.listing(ctx, rows, d.name, func(base []byte, n node) {
		out = append(out, vfs.DirEntry{Name: string(base), Type: vfs.FileType(n.typ)})
	})
	if err != nil {
		return nil, fail(ctx, d.name, err)
	}
	return out, nil
}

func (d *dirHandle) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	return d.f.OpenDir(ctx, join(d.name, name))
}

func (d *dirHandle) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	return d.f.Open(ctx, join(d.name, name), offset)
}

func (d *dirHandle) Close() error { return nil }
