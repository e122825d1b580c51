package sqlitefs

import (
	"context"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

var _ vfs.DirOpener = (*FS)(nil)

// dirMax is how many entries a directory holds, at most, for OpenDir
// to list it whole as it opens it (one statement for both) and keep
// the listing (see listings); a larger one is listed in chunks, as they
// are asked for.
const dirMax = 1024

// listingsMax is how many entries the kept listings hold, at most.
const listingsMax = 32 << 10

// listings keeps directory listings between calls, for as long as the
// tree does not change: every change to the tree, by any process, moves
// the change counter (meta 'rev'), and the listings are of one value of
// it. A walk of a tree that did not change since the last one (find,
// then grep) lists it without reading a row, and ls pages through a
// directory reading each entry once.
//
// A listing is kept under a value of the counter read before the
// listing was: it is as new as that value or newer, never older, so it
// is never served once the tree changed after it was read.
type listings struct {
	mu   sync.Mutex
	rev  int64 // the counter's value they are of; 0: none kept
	dirs map[string]kept
	held int // entries in dirs
}

// kept is a directory's listing: its first entries in name order, all
// of them when whole.
type kept struct {
	infos []vfs.Info
	whole bool
}

// get returns the listing of the directory name kept at rev.
func (l *listings) get(rev int64, name string) (kept, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rev != l.rev || rev <= 0 {
		return kept{}, false
	}
	k, ok := l.dirs[name]
	return k, ok
}

// put keeps k, the listing of name read after the counter was rev.
// Listings of an earlier value are dropped; one of an earlier value than
// those kept is not kept.
func (l *listings) put(rev int64, name string, k kept) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case rev <= 0 || rev < l.rev:
		return
	case rev > l.rev || l.held+len(k.infos) > listingsMax:
		l.rev, l.dirs, l.held = rev, map[string]kept{}, 0
	}
	if old, ok := l.dirs[name]; ok {
		l.held -= len(old.infos)
	}
	l.dirs[name] = k
	l.held += len(k.infos)
}

// rev reads the change counter; 0 when it is not kept (a database of
// layout 1 or 2, read-only).
func (f *FS) rev(ctx context.Context) (int64, error) {
	var rev int64
	err := f.r.QueryRowContext(ctx, qRev).Scan(&rev)
	return max(rev, 0), err
}

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
	// list is the directory's whole listing, read at open or kept (see
	// listings), nil when it is listed in chunks; at is the value of the
	// change counter read before it, which the handles opened through
	// this one use too (-1: none).
	list []vfs.Info
	at   int64
}

// OpenDir opens the directory at name as a handle. It reads the change
// counter, and a listing kept at its value (see listings) serves the
// handle; else, in one more statement, the directory and, when it holds
// at most dirMax entries, all of them, which the handle then serves and
// which are kept. Errors: ENOENT, ENOTDIR (a symbolic link included),
// EINVAL, EIO.
func (f *FS) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	done, err := f.fresh(ctx)
	defer done()
	var d *dir
	if err == nil {
		var rev int64
		if rev, err = f.rev(ctx); err == nil {
			d, err = f.openDir(ctx, name, rev)
		}
	}
	if err != nil {
		return nil, f.fail(ctx, name, err)
	}
	return d, nil
}

// openDir opens the directory at name for a handle whose view is of
// the change counter's value at: from the listing kept at that value,
// or with one statement (see OpenDir).
func (f *FS) openDir(ctx context.Context, name string, at int64) (*dir, error) {
	if k, ok := f.listings.get(at, name); ok && k.whole {
		return &dir{f: f, name: name, rev: -1, list: k.infos, at: at}, nil
	}
	q := f.r
	list := []vfs.Info{}
	dn, err := listing(ctx, q, name, qDirAfter, []any{name, "", dirMax + 1}, func(en node, base string) {
		list = append(list, en.info(base))
	})
	if err != nil {
		return nil, err
	}
	if len(list) > dirMax || q.unsummed() {
		// Listed in chunks (as is a database whose counts of entries are
		// not kept: its listings cannot be checked whole).
		return &dir{f: f, name: name, rev: -1, at: -1}, nil
	}
	if int64(len(list)) != dn.entries {
		return nil, errEntryCount
	}
	f.listings.put(at, name, kept{infos: list, whole: true})
	return &dir{f: f, name: name, rev: -1, list: list, at: at}, nil
}

func (d *dir) join(name string) string {
	if d.name == "" {
		return name
	}
	return d.name + "/" + name
}

// Entries lists the first n entries after after: from the directory's
// whole listing when the handle has it, else with one indexed query (a
// range of the index from after on) that reads the directory too (one
// snapshot), each entry checked as ReadDir checks it. A listing that
// goes from "" to the end while the directory is not changed (its
// revision stays) is checked against its count of entries.
func (d *dir) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	if d.list != nil {
		list := d.list
		i, found := slices.BinarySearchFunc(list, after, compareEntry)
		if found {
			i++
		}
		list = list[i:]
		if n >= 0 && n < len(list) {
			list = list[:n]
		}
		out := make([]vfs.DirEntry, len(list))
		for i, info := range list {
			out[i] = vfs.DirEntry{Name: info.Name, Type: info.Type}
		}
		return out, nil
	}
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

// OpenDir opens the directory name in d. When d has its listing, the
// entry is found there and the handle's view is d's (see openDir): no
// statement when its listing is kept, one otherwise.
func (d *dir) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	path := d.join(name)
	if d.list == nil {
		return d.f.OpenDir(ctx, path)
	}
	if err := checkName(path); err != nil || strings.IndexByte(name, '/') >= 0 {
		return nil, errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, path)
	}
	i, found := slices.BinarySearchFunc(d.list, name, compareEntry)
	switch {
	case !found:
		return nil, errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, path)
	case d.list[i].Type != vfs.TypeDir:
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, path)
	}
	done, err := d.f.fresh(ctx)
	defer done()
	var sub *dir
	if err == nil {
		sub, err = d.f.openDir(ctx, path, d.at)
	}
	if err != nil {
		return nil, d.f.fail(ctx, path, err)
	}
	return sub, nil
}

// compareEntry orders entries by name, raw bytes.
func compareEntry(e vfs.Info, name string) int { return strings.Compare(e.Name, name) }

// Open reads the regular file name in d, as FS.Open.
func (d *dir) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	return d.f.Open(ctx, d.join(name), offset)
}

// Close releases nothing: the handle holds no connection.
func (d *dir) Close() error { return nil }
