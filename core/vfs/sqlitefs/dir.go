package sqlitefs

import (
	"context"
	"database/sql"
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

// listings keeps directory listings, and nodes looked up, between calls,
// for as long as the tree does not change: every change to the tree, by
// any process, moves the change counter (meta 'rev'), and what is kept
// is of one value of it. A walk of a tree that did not change since the
// last one (find, then grep) lists it without reading a row, ls pages
// through a directory reading each entry once, and a path looked up
// again (read resolves it, then opens it) is not read again.
//
// What is kept is kept under a value of the counter read in the
// statement that read it, or before: it is as new as that value or
// newer, never older, so it is never served once the tree changed after
// it was read.
type listings struct {
	mu    sync.Mutex
	rev   int64 // the counter's value they are of; 0: none kept
	dirs  map[string]kept
	nodes map[string]vfs.Info // by path
	held  int                 // entries in dirs and nodes
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

// room makes room for n entries kept at rev, dropping what is kept at
// an earlier value (or all, when full); false when rev is earlier than
// what is kept, which is then not replaced. l.mu is held.
func (l *listings) room(rev int64, n int) bool {
	switch {
	case rev <= 0 || rev < l.rev:
		return false
	case rev > l.rev || l.held+n > listingsMax:
		l.rev, l.dirs, l.nodes, l.held = rev, map[string]kept{}, map[string]vfs.Info{}, 0
	}
	return true
}

// put keeps k, the listing of name read after the counter was rev.
// Listings of an earlier value are dropped; one of an earlier value than
// those kept is not kept.
func (l *listings) put(rev int64, name string, k kept) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.room(rev, len(k.infos)) {
		return
	}
	if old, ok := l.dirs[name]; ok {
		l.held -= len(old.infos)
	}
	l.dirs[name] = k
	l.held += len(k.infos)
}

// putNodes keeps the nodes at paths, described by infos, read after the
// counter was rev, as put keeps a listing.
func (l *listings) putNodes(rev int64, paths []string, infos []vfs.Info) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.room(rev, len(infos)) {
		return
	}
	for i, info := range infos {
		if _, ok := l.nodes[paths[i]]; !ok {
			l.held++
		}
		l.nodes[paths[i]] = info
	}
}

// stat describes the node at path from what is kept at rev: known is
// false when nothing kept tells, found false when a listing kept tells
// there is none.
func (l *listings) stat(rev int64, path string) (info vfs.Info, found, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.statLocked(rev, path)
}

// statPath is LstatPath from what is kept at rev (see FS.LstatPath);
// known is false when what is kept does not tell all of it.
func (l *listings) statPath(rev int64, name string, elems []string) (out []vfs.Info, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := name
	for i := -1; i < len(elems); i++ {
		if i >= 0 {
			cur = join(cur, elems[i])
		}
		info, found, known := l.statLocked(rev, cur)
		switch {
		case !known:
			return nil, false
		case !found:
			return out, true
		}
		out = append(out, info)
		if info.Type != vfs.TypeDir {
			break
		}
	}
	return out, true
}

// statLocked is stat with l.mu held.
func (l *listings) statLocked(rev int64, path string) (info vfs.Info, found, known bool) {
	if rev != l.rev || rev <= 0 {
		return info, false, false
	}
	if info, ok := l.nodes[path]; ok {
		return info, true, true
	}
	if path == "" {
		return info, false, false
	}
	dir, base := split(path)
	k, ok := l.dirs[dir]
	if !ok {
		return info, false, false
	}
	i, found := slices.BinarySearchFunc(k.infos, base, compareEntry)
	switch {
	case found:
		return k.infos[i], true, true
	case k.whole || i < len(k.infos):
		// Not among the directory's first entries, in name order, which
		// reach past it.
		return info, false, true
	}
	return info, false, false
}

// walHdrSize is the length in bytes of the header of SQLite's WAL index,
// which the -shm file holds twice at its start; walMapped how much of
// the file is mapped: both, and the checkpoint's record after them
// (WalCkptInfo, 40 bytes).
const (
	walHdrSize = 48
	walMapped  = 2*walHdrSize + 40
)

// walHdr is a copy of the WAL index's header: every commit, of any
// connection in any process, rewrites it with a new count of frames (or
// new salts, when the WAL starts over), so while it reads the same, no
// change was committed.
type walHdr [walHdrSize / 4]uint32

// seenRev is the change counter's value read by a statement that began
// after the WAL index's header read hdr: while the header still reads
// so, no change was committed since, and the counter has that value.
type seenRev struct {
	hdr walHdr
	rev int64
}

// keptRev is the change counter's value when the WAL index's header
// tells it without a statement (see seenRev), else 0; hdr and ok are
// the header as read now, for saw.
func (f *FS) keptRev() (rev int64, hdr walHdr, ok bool) {
	hdr, ok = f.wal.Load().header()
	if s := f.seen.Load(); ok && s != nil && s.hdr == hdr {
		return s.rev, hdr, true
	}
	return 0, hdr, ok
}

// saw records rev, the counter's value a statement read that began
// after the WAL index's header read hdr (ok: hdr was read).
func (f *FS) saw(hdr walHdr, ok bool, rev int64) {
	if ok && rev > 0 {
		f.seen.Store(&seenRev{hdr: hdr, rev: rev})
	}
}

// rev reads the change counter, without a statement while the WAL
// index's header tells it (see seenRev); 0 when it is not kept (a
// database of layout 1 or 2, read-only).
func (f *FS) rev(ctx context.Context) (int64, error) {
	rev, hdr, ok := f.keptRev()
	if rev > 0 {
		return rev, nil
	}
	err := f.r.QueryRowContext(ctx, qRev).Scan(&rev)
	f.saw(hdr, ok && err == nil, rev)
	return max(rev, 0), err
}

// lstat is Lstat's work: from what is kept at the change counter's value
// when the WAL index's header tells it (see keptRev), else with one
// statement that reads the counter too, keeping what it read.
func (f *FS) lstat(ctx context.Context, name string) (vfs.Info, error) {
	rev, hdr, ok := f.keptRev()
	if rev > 0 {
		if info, found, known := f.listings.stat(rev, name); found {
			return info, nil
		} else if known {
			// Not in its directory's listing: the directory is one.
			return vfs.Info{}, errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
		}
	}
	dir, base := split(name)
	s := newRowScanner()
	n, _, err := s.node(withExtra{f.r.QueryRowContext(ctx, qNodeRev, name), []any{&rev}}, false, dir, base, name == "", f.r.unsummed())
	s.free()
	if err == sql.ErrNoRows {
		return vfs.Info{}, missing(ctx, f.r, name)
	}
	if err != nil {
		return vfs.Info{}, err
	}
	info := n.info(base)
	f.saw(hdr, ok, rev)
	f.listings.putNodes(rev, []string{name}, []vfs.Info{info})
	return info, nil
}

// lstatPath is LstatPath's work, from what is kept as lstat serves it,
// else with a statement for each pathSlots nodes, keeping what they read.
func (f *FS) lstatPath(ctx context.Context, name string, elems []string) ([]vfs.Info, error) {
	rev, hdr, ok := f.keptRev()
	if rev > 0 {
		if out, known := f.listings.statPath(rev, name, elems); known {
			return out, nil
		}
	}
	out, paths, rev, err := lstatPath(ctx, f.r, name, elems)
	if err != nil {
		return nil, err
	}
	f.saw(hdr, ok, rev)
	f.listings.putNodes(rev, paths, out)
	return out, nil
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
