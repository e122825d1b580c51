package sqlitefs

import (
	"context"
	"io"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

var _ vfs.DirOpener = (*FS)(nil)

// dir is an open directory of the store (see vfs.DirOpener): its path,
// and what its listing has seen so far, to check the listing against
// the directory's count of entries as ReadDir does.
type dir struct {
	f    *FS
	name string
	// rev is the directory's revision when its listing started (after
	// ""), listed how many entries the listing has given since; rev is -1
	// when there is nothing to check.
	rev    int64
	listed int64
}

// OpenDir opens the directory at name as a handle. Errors: ENOENT,
// ENOTDIR (a symbolic link included), EINVAL, EIO.
func (f *FS) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	// One lookup: a statement of its own, no transaction.
	done, err := f.fresh(ctx)
	defer done()
	if err == nil {
		_, err = lookupDir(ctx, f.r, name)
	}
	if err != nil {
		return nil, f.fail(ctx, name, err)
	}
	return &dir{f: f, name: name, rev: -1}, nil
}

// lookupDir reads the directory at name (ENOTDIR when it is something
// else).
func lookupDir(ctx context.Context, q source, name string) (node, error) {
	d, err := lookup(ctx, q, name)
	if err == nil && d.typ != dbDir {
		err = errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return d, err
}

func (d *dir) join(name string) string {
	if d.name == "" {
		return name
	}
	return d.name + "/" + name
}

// Entries lists the first n entries after after with one indexed query
// (a range of the index from after on) that reads the directory too (one
// snapshot), each entry checked as ReadDir checks it. A
// listing that goes from "" to the end while the directory is not
// changed (its revision stays) is checked against its count of entries.
func (d *dir) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	done, err := d.f.fresh(ctx)
	defer done()
	if err != nil {
		return nil, d.f.fail(ctx, d.name, err)
	}
	var out []vfs.DirEntry
	q := d.f.r
	dn, err := listing(ctx, q, d.name, qDirAfter, []any{d.name, after, max(n, -1)}, func(en node, base string) {
		out = append(out, vfs.DirEntry{Name: base, Type: en.info(base).Type})
	})
	if err == nil {
		if after == "" {
			d.rev, d.listed = dn.rev, 0
		} else if dn.rev != d.rev {
			d.rev = -1
		}
		d.listed += int64(len(out))
		if end := n < 0 || len(out) < n; end && d.rev >= 0 && !q.unsummed() && d.listed != dn.entries {
			err = errEntryCount
		}
	}
	if err != nil {
		return nil, d.f.fail(ctx, d.name, err)
	}
	return out, nil
}

// OpenDir opens the directory name in d.
func (d *dir) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	return d.f.OpenDir(ctx, d.join(name))
}

// Open reads the regular file name in d, as FS.Open.
func (d *dir) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	return d.f.Open(ctx, d.join(name), offset)
}

// Close releases nothing: the handle holds no connection.
func (d *dir) Close() error { return nil }
