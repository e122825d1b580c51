package sqlitefs

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// node is one row of the tree table, read and checked (see
// rowScanner.node).
type node struct {
	typ     int
	mode    uint32
	mtime   int64
	size    int64
	target  string
	rev     int64
	cid     sql.NullInt64
	entries int64 // 0 when read unsummed
}

func (n *node) info(name string) vfs.Info {
	i := vfs.Info{Name: name, Mode: n.mode, MTime: n.mtime, Size: n.size, Target: n.target, Rev: n.rev}
	switch n.typ {
	case dbDir:
		i.Type, i.Size = vfs.TypeDir, 0
	case dbSymlink:
		i.Type = vfs.TypeSymlink
	case dbFile:
		i.Type = vfs.TypeFile
	default:
		i.Type = vfs.TypeOther
	}
	return i
}

// getNode reads the node at name and checks it (a failure is a
// *damage); ok is false when there is none.
func getNode(ctx context.Context, q source, name string) (n node, ok bool, err error) {
	dir, base := split(name)
	s := newRowScanner()
	defer s.free()
	n, _, err = s.node(q.QueryRowContext(ctx, qNode, name), false, dir, base, name == "", q.unsummed())
	if err == sql.ErrNoRows {
		return n, false, nil
	}
	return n, err == nil, err
}

// lookup reads the node at name, or explains its absence (ENOENT or
// ENOTDIR).
func lookup(ctx context.Context, q source, name string) (node, error) {
	n, ok, err := getNode(ctx, q, name)
	if err != nil || ok {
		return n, err
	}
	return n, missing(ctx, q, name)
}

// missing explains why name has no node: ENOTDIR when one of the
// directories it names is something else, ENOENT otherwise.
func missing(ctx context.Context, q source, name string) error {
	for i := 0; i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		n, ok, err := getNode(ctx, q, name[:i])
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if n.typ != dbDir {
			return errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
		}
	}
	return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
}

// split returns the directory holding name and name's last element.
func split(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// checkName refuses a name no Store is ever given: one with an empty,
// "." or ".." element, or a NUL. The root is "".
func checkName(name string) error {
	if name == "" {
		return nil
	}
	if strings.IndexByte(name, 0) >= 0 {
		return errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, name)
		}
	}
	return nil
}

// parentDir checks that the directory holding name exists and is a
// directory, and returns its path and name's last element.
func parentDir(ctx context.Context, q source, name string) (dir, base string, err error) {
	dir, base = split(name)
	p, err := lookup(ctx, q, dir)
	if err != nil {
		if errno.CodeOf(err) == errno.ENOENT || errno.CodeOf(err) == errno.ENOTDIR {
			return "", "", missing(ctx, q, name)
		}
		return "", "", err
	}
	if p.typ != dbDir {
		return "", "", errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return dir, base, nil
}

// Lstat describes the node at name, a link not followed. Errors: ENOENT,
// ENOTDIR (an element of name is not a directory), EINVAL (a malformed
// name), EIO.
func (f *FS) Lstat(ctx context.Context, name string) (vfs.Info, error) {
	if err := checkName(name); err != nil {
		return vfs.Info{}, err
	}
	done, err := f.fresh(ctx)
	defer done()
	if err != nil {
		return vfs.Info{}, f.fail(ctx, name, err)
	}
	info, err := f.lstat(ctx, name)
	if err != nil {
		return vfs.Info{}, f.fail(ctx, name, err)
	}
	return info, nil
}

// ReadDir lists the directory at name in raw byte order of the entries'
// names, skipping offset entries and returning at most limit (all when
// limit < 0), with one indexed query after the directory's lookup, both
// in one read transaction. Every entry is checked against its checksum
// as the entry of this directory, and the listing against the
// directory's count of entries (it must hold all the entries the count
// leaves after offset, up to limit): an entry that is missing from the
// index, or that the index places in another directory, is damage.
// Errors: ENOENT, ENOTDIR (name is no directory, a link to one
// included), EINVAL, EIO.
func (f *FS) ReadDir(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	done, err := f.fresh(ctx)
	defer done()
	var out []vfs.Info
	if err == nil {
		out, err = f.readDirKept(ctx, name, max(offset, 0), max(limit, -1))
	}
	if err != nil {
		return nil, f.fail(ctx, name, err)
	}
	return out, nil
}

// readDirKept is ReadDir through the listings kept (see listings): it
// reads the change counter, serves a page the listing kept at its value
// holds, reads only the entries after what it holds when it holds the
// page's start, and keeps what it read from the directory's first entry
// on. A listing kept is served as it was read: a page read in two parts
// may see a change made between them in its second part only.
func (f *FS) readDirKept(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	if f.r.unsummed() {
		return readDir(ctx, f.r, name, offset, limit)
	}
	rev, err := f.rev(ctx)
	if err != nil {
		return nil, err
	}
	end := vfs.PageEnd(offset, limit)
	k, ok := f.listings.get(rev, name)
	switch {
	case ok && (k.whole || end >= 0 && end <= len(k.infos)):
		return page(k.infos, offset, limit), nil
	case !ok || offset > len(k.infos):
		out, err := readDir(ctx, f.r, name, offset, limit)
		if err == nil && offset == 0 {
			f.listings.put(rev, name, kept{infos: slices.Clone(out), whole: limit < 0 || len(out) < limit})
		}
		return out, err
	}
	from, n := len(k.infos), -1
	if end >= 0 {
		n = end - len(k.infos)
	}
	more, err := readDir(ctx, f.r, name, from, n)
	if err != nil {
		return nil, err
	}
	all := append(slices.Clip(k.infos), more...)
	f.listings.put(rev, name, kept{infos: all, whole: n < 0 || len(more) < n})
	return page(all, offset, limit), nil
}

// page is a copy of the entries of list a page of limit entries at
// offset holds (all from offset on when limit < 0).
func page(list []vfs.Info, offset, limit int) []vfs.Info {
	list = list[min(offset, len(list)):]
	if limit >= 0 && limit < len(list) {
		list = list[:limit]
	}
	return slices.Clone(list)
}

func readDir(ctx context.Context, q source, name string, offset, limit int) ([]vfs.Info, error) {
	offset, limit = max(offset, 0), max(limit, -1)
	out := []vfs.Info{}
	d, err := listing(ctx, q, name, qDirPage, []any{name, limit, offset}, func(n node, base string) {
		out = append(out, n.info(base))
	})
	if err != nil {
		return nil, err
	}
	if !q.unsummed() {
		want := max(d.entries-int64(offset), 0)
		if limit >= 0 {
			want = min(want, int64(limit))
		}
		if int64(len(out)) != want {
			return nil, errEntryCount
		}
	}
	return out, nil
}

// listing runs query (qDirPage or qDirAfter, with args) for the directory
// at name, checks the directory's row and every entry's as lookup and
// ReadDir check them, calls add with each entry, in order, and returns
// the directory's node. Errors: ENOENT, ENOTDIR (name is no directory),
// damage.
func listing(ctx context.Context, q source, name, query string, args []any, add func(n node, base string)) (d node, err error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return d, err
	}
	defer rows.Close()
	s := newRowScanner()
	defer s.free()
	parent, _ := split(name)
	found := false
	for rows.Next() {
		entry, err := s.scanListing(rows)
		if err != nil {
			return d, err
		}
		if entry == 0 {
			// The directory: its name is the last element of its path.
			if d, _, err = s.check(true, parent, "", name == "", q.unsummed()); err != nil {
				return d, err
			}
			found = true
			continue
		}
		n, base, err := s.check(true, name, "", false, q.unsummed())
		if err != nil {
			return d, err
		}
		add(n, base)
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	rows.Close()
	if !found {
		return d, missing(ctx, q, name)
	}
	if d.typ != dbDir {
		return d, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return d, nil
}

// add inserts a new node at name in t: its parent must be a directory
// and nothing may be at name (EEXIST). The parent's mtime and Rev move.
func (t *wtx) add(name string, typ int, mode uint32, size int64, target string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if name == "" {
		return errno.New(errno.EEXIST, toolspec.MsgReasonExists, name)
	}
	dir, base, err := parentDir(t.ctx, t, name)
	if err != nil {
		return err
	}
	if _, ok, err := getNode(t.ctx, t, name); err != nil {
		return err
	} else if ok {
		return errno.New(errno.EEXIST, toolspec.MsgReasonExists, name)
	}
	if _, err := t.bump(); err != nil {
		return err
	}
	if err := t.insert(name, dir, base, typ, mode, size, target, sql.NullInt64{}); err != nil {
		return err
	}
	return t.touchDir(dir, +1)
}

// insert adds the node at name (base in dir) of the transaction's
// revision and mtime; the caller found nothing at name. An index entry
// in the way, of no node, is damage.
func (t *wtx) insert(name, dir, base string, typ int, mode uint32, size int64, target string, cid sql.NullInt64) error {
	_, err := t.ExecContext(t.ctx, qAddNode, name, dir, base, typ, mode, t.now, size, target, t.rev, cid)
	if isConstraint(err) {
		return errEntryCount
	}
	return err
}

// touchDir stamps a directory whose entries changed, by delta entries.
func (t *wtx) touchDir(dir string, delta int) error {
	res, err := t.ExecContext(t.ctx, qStampDir, t.now, t.rev, delta, dir)
	return t.changed(res, err, dir, delta)
}

// changed checks that an UPDATE of the node at name (setting the
// transaction's revision, and changing a directory's count of entries by
// delta) changed it, and otherwise says why not: the row did not match
// its checksum, the new revision is not above its own (the counter went
// back) or the count would go below 0, which are damage, or it is gone,
// which the callers have ruled out (damage too: a directory missing
// under its entries).
func (t *wtx) changed(res sql.Result, err error, name string, delta int) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	n, ok, err := getNode(t.ctx, t, name)
	switch {
	case err != nil:
		return err
	case !ok, n.typ != dbDir && delta != 0:
		return errNodeInvalid
	case n.rev >= t.rev:
		return errCounter
	case n.entries+int64(delta) < 0:
		return errEntryCount
	}
	return errNodeChecksum
}

// Create creates an empty regular file at name with permission bits
// mode&0o7777, in one transaction: of concurrent creates of one name, in
// any process, exactly one succeeds. Errors: EEXIST (anything at name),
// ENOENT or ENOTDIR (no parent directory), EINVAL, EBUSY, EIO.
func (f *FS) Create(ctx context.Context, name string, mode uint32) error {
	return f.write(ctx, name, func(t *wtx) error { return t.add(name, dbFile, mode&0o7777, 0, "") })
}

// Mkdir creates a directory at name with permission bits mode&0o7777.
// Errors as for Create.
func (f *FS) Mkdir(ctx context.Context, name string, mode uint32) error {
	return f.write(ctx, name, func(t *wtx) error { return t.add(name, dbDir, mode&0o7777, 0, "") })
}

// Symlink creates a symbolic link at name holding target verbatim; it
// reports mode 0o777 and the target's length in UTF-16 code units as its
// size. Errors as for Create.
func (f *FS) Symlink(ctx context.Context, target, name string) error {
	return f.write(ctx, name, func(t *wtx) error { return t.add(name, dbSymlink, 0o777, vfs.UTF16Len(target), target) })
}

// Remove removes the file, symbolic link or empty directory at name and
// the file's content. Errors: ENOENT, ENOTDIR, ENOTEMPTY (a directory
// with entries), EPERM (the root), EINVAL, EBUSY, EIO.
func (f *FS) Remove(ctx context.Context, name string) error {
	return f.write(ctx, name, func(t *wtx) error { return t.remove(name, false) })
}

// RemoveAll removes name and everything below it: one range delete over
// the paths that start with name+"/". Errors: ENOENT (nothing at name),
// ENOTDIR, EPERM (the root), EINVAL, EBUSY, EIO.
func (f *FS) RemoveAll(ctx context.Context, name string) error {
	return f.write(ctx, name, func(t *wtx) error { return t.remove(name, true) })
}

func (t *wtx) remove(name string, all bool) error {
	if err := checkName(name); err != nil {
		return err
	}
	if name == "" {
		return errno.New(errno.EPERM, toolspec.MsgReasonRemoveRoot, name)
	}
	n, err := lookup(t.ctx, t, name)
	if err != nil {
		return err
	}
	if n.typ == dbDir {
		lo, hi := name+"/", name+"0"
		if !all {
			if n.entries > 0 {
				return errno.New(errno.ENOTEMPTY, toolspec.MsgReasonNotEmpty, name)
			}
			// Counted empty: an entry found is damage.
			var one int
			err := t.QueryRowContext(t.ctx, qHasEntry, name).Scan(&one)
			if err == nil {
				return errEntryCount
			}
			if err != sql.ErrNoRows {
				return err
			}
		} else {
			// The nodes below must be as written: a content id changed
			// on disk could be another file's, which this would delete.
			var one int
			err := t.QueryRowContext(t.ctx, qBadBelow, lo, hi).Scan(&one)
			if err == nil {
				return errNodeChecksum
			}
			if err != sql.ErrNoRows {
				return err
			}
			for _, stmt := range []string{qDelChunksBelow, qDelContentBelow, qDelNodesBelow} {
				if _, err := t.ExecContext(t.ctx, stmt, lo, hi); err != nil {
					return err
				}
			}
		}
	}
	if err := t.dropContent(n.cid); err != nil {
		return err
	}
	if _, err := t.ExecContext(t.ctx, qDelNode, name); err != nil {
		return err
	}
	if _, err := t.bump(); err != nil {
		return err
	}
	dir, _ := split(name)
	return t.touchDir(dir, -1)
}

// dropContent deletes a content and its chunks.
func (t *wtx) dropContent(cid sql.NullInt64) error {
	if !cid.Valid {
		return nil
	}
	if _, err := t.ExecContext(t.ctx, qDelChunks, cid.Int64); err != nil {
		return err
	}
	_, err := t.ExecContext(t.ctx, qDelContent, cid.Int64)
	return err
}

// Chmod sets the permission bits of the file or directory at name to
// mode&0o7777; its Rev moves, its mtime stays. Errors: ENOENT, ENOTDIR,
// ELOOP (name is a symbolic link, which is never followed), EINVAL,
// EBUSY, EIO.
func (f *FS) Chmod(ctx context.Context, name string, mode uint32) error {
	return f.write(ctx, name, func(t *wtx) error {
		if err := checkName(name); err != nil {
			return err
		}
		n, err := lookup(t.ctx, t, name)
		if err != nil {
			return err
		}
		if n.typ == dbSymlink {
			return errno.New(errno.ELOOP, toolspec.MsgReasonSymlink, name)
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		res, err := t.ExecContext(t.ctx, qChmod, mode&0o7777, rev, name)
		return t.changed(res, err, name, 0)
	})
}

var _ vfs.PathStatter = (*FS)(nil)

// LstatPath describes the node at name and those at name/elems[0],
// name/elems[0]/elems[1], ..., stopping after the first that is no
// directory and before the first that is missing (see vfs.PathStatter):
// one indexed statement for each 16 of them, every row checked as
// lookup checks it. Errors: EINVAL (a malformed name or element), EIO.
func (f *FS) LstatPath(ctx context.Context, name string, elems []string) ([]vfs.Info, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	for _, e := range elems {
		if strings.IndexByte(e, '/') >= 0 || checkName(e) != nil || e == "" {
			return nil, errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, name)
		}
	}
	done, err := f.fresh(ctx)
	defer done()
	var out []vfs.Info
	if err == nil {
		out, err = f.lstatPath(ctx, name, elems)
	}
	if err != nil {
		return nil, f.fail(ctx, name, err)
	}
	return out, nil
}

// lstatPath is LstatPath's work, through q: it returns the paths of the
// nodes it describes too, and the change counter's value they were read
// at (0 when they were read in statements of two snapshots, or when the
// counter is not kept).
func lstatPath(ctx context.Context, q source, name string, elems []string) (out []vfs.Info, paths []string, rev int64, err error) {
	out = make([]vfs.Info, 0, 1+len(elems))
	paths = make([]string, 0, 1+len(elems))
	cur := name
	for i := -1; i < len(elems); {
		// The next paths, up to pathSlots of them.
		first := len(paths)
		for ; i < len(elems) && len(paths)-first < pathSlots; i++ {
			if i >= 0 {
				cur = join(cur, elems[i])
			}
			paths = append(paths, cur)
		}
		nodes, at, err := nodesAt(ctx, q, paths[first:])
		if err != nil {
			return nil, nil, 0, err
		}
		if first > 0 && at != rev {
			at = 0
		}
		rev = at
		for j, n := range nodes {
			if n == nil {
				return out, paths[:len(out)], rev, nil
			}
			_, base := split(name)
			if k := first + j; k > 0 {
				base = elems[k-1]
			}
			out = append(out, n.info(base))
			if n.typ != dbDir {
				return out, paths[:len(out)], rev, nil
			}
		}
	}
	return out, paths, rev, nil
}

// join is dir/base in store names ("" the root).
func join(dir, base string) string {
	if dir == "" {
		return base
	}
	return dir + "/" + base
}

// nodesAt reads the nodes at paths (at most pathSlots) in one statement,
// each checked as getNode checks it: nil for a path with none. rev is the
// change counter's value they were read at (0 when none was found).
func nodesAt(ctx context.Context, q source, paths []string) (_ []*node, rev int64, err error) {
	var args [pathSlots]any
	for i, p := range paths {
		args[i] = p
	}
	rows, err := q.QueryContext(ctx, qPath, args[:]...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := make([]*node, len(paths))
	found := make([]node, len(paths))
	s := newRowScanner()
	defer s.free()
	var path string
	dest := append(append([]any{&path}, s.dest[:nodeCols]...), &rev)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, 0, err
		}
		i := slices.Index(paths, path)
		if i < 0 || out[i] != nil {
			return nil, 0, errNodeInvalid
		}
		dir, base := split(path)
		n, _, err := s.check(false, dir, base, path == "", q.unsummed())
		if err != nil {
			return nil, 0, err
		}
		found[i] = n
		out[i] = &found[i]
	}
	return out, rev, rows.Err()
}
