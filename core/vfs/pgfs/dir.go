package pgfs

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// A walk (find, grep) goes through directory handles. So that it costs
// a round trip per statement, not per directory, OpenDir of the store
// reads the listing of the whole subtree, names and kinds only, in one
// statement, and the handles below serve their entries from it: a walk
// sees the tree as it was when it began. A subtree of more than
// subtreeMax nodes is not read so: its directories are listed one page
// at a time (each of their subdirectories tries again). The first file
// a walk opens through a handle of a subtree read whole brings, in one
// more statement, the content of the subtree's files of at most one
// chunk, in path order, up to headBudget bytes: a grep of a tree of
// small files reads them all in one round trip.
var (
	subtreeMax = 5000
	headBudget = int64(8 << 20)
)

// tree is the listing of a subtree read in one statement, shared by the
// handles of its directories.
type tree struct {
	root    string                    // the subtree's directory
	entries map[string][]vfs.DirEntry // by directory, in byte order of names

	mu      sync.Mutex
	fetched bool              // heads was read
	heads   map[string][]byte // content of small files not opened yet, by path
}

// OpenDir opens the directory at name (never following a link), reading
// the listing of its whole subtree in the same statement when it has at
// most subtreeMax nodes. Errors: ENOENT, ENOTDIR (name is no directory,
// a link included), EINVAL, EIO.
func (f *FS) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	t, err := f.subtree(ctx, name)
	if err != nil {
		return nil, fail(ctx, name, err)
	}
	return &dirHandle{f: f, name: name, tree: t}, nil
}

// subtree reads the node name and the names and kinds of the nodes
// below it, in one statement: nil when there are more than subtreeMax.
func (f *FS) subtree(ctx context.Context, name string) (*tree, error) {
	stmt, args := "subtree_root", []any{f.ws, int64(subtreeMax + 1)}
	if name != "" {
		stmt, args = "subtree", []any{f.ws, []byte(name), []byte(name + "/"), []byte(name + "0"), int64(subtreeMax + 1)}
	}
	rows, err := f.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	t := &tree{root: name, entries: map[string][]vfs.DirEntry{}}
	found, nodes := false, 0
	for rows.Next() {
		var path []byte
		var typ int16
		if err := rows.Scan(&path, &typ); err != nil {
			return nil, err
		}
		p := string(path)
		if p == name {
			if typ != dbDir {
				return nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
			}
			found = true
			continue
		}
		nodes++
		if typ == dbDir {
			if _, ok := t.entries[p]; !ok {
				t.entries[p] = []vfs.DirEntry{}
			}
		}
		// Rows come in path order, so a directory's entries come in the
		// order of their names (sortEntries makes sure).
		dir, base := split(p)
		t.entries[dir] = append(t.entries[dir], vfs.DirEntry{Name: base, Type: vfs.FileType(typ)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, f.missing(ctx, name)
	}
	if nodes > subtreeMax {
		return nil, nil
	}
	for _, entries := range t.entries {
		sortEntries(entries)
	}
	if _, ok := t.entries[name]; !ok {
		t.entries[name] = []vfs.DirEntry{}
	}
	return t, nil
}

// dirHandle is an open directory: its path, and the listing of a
// subtree holding it (nil: listed a page at a time).
type dirHandle struct {
	f    *FS
	name string
	tree *tree
}

// Entries lists at most n entries after the name after: from the
// subtree's listing, or with the directory in one statement.
func (d *dirHandle) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	if d.tree != nil {
		all := d.tree.entries[d.name]
		i, _ := slices.BinarySearchFunc(all, after, func(e vfs.DirEntry, name string) int { return strings.Compare(e.Name, name) })
		for i < len(all) && all[i].Name <= after {
			i++
		}
		end := len(all)
		if n >= 0 {
			end = min(end, i+n)
		}
		return slices.Clone(all[i:end]), nil
	}
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
	sortEntries(out)
	return out, nil
}

// sortEntries sorts entries by name, which the statements return them
// in already, unless a plan that runs the branches of a UNION ALL in
// parallel mixed them.
func sortEntries(entries []vfs.DirEntry) {
	if !slices.IsSortedFunc(entries, compareEntries) {
		slices.SortFunc(entries, compareEntries)
	}
}

func compareEntries(a, b vfs.DirEntry) int { return strings.Compare(a.Name, b.Name) }

// OpenDir opens the directory name in this one: from the subtree's
// listing, or as the store's OpenDir.
func (d *dirHandle) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	path := join(d.name, name)
	if d.tree == nil {
		return d.f.OpenDir(ctx, path)
	}
	all := d.tree.entries[d.name]
	i, ok := slices.BinarySearchFunc(all, name, func(e vfs.DirEntry, name string) int { return strings.Compare(e.Name, name) })
	switch {
	case !ok:
		return nil, errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, path)
	case all[i].Type != vfs.TypeDir:
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, path)
	}
	return &dirHandle{f: d.f, name: path, tree: d.tree}, nil
}

// Open reads the file name in this directory from offset: from the
// subtree's small files' content when it holds it, else as the store's
// Open.
func (d *dirHandle) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	path := join(d.name, name)
	if d.tree != nil {
		data, ok, err := d.tree.head(ctx, d.f, path)
		if err != nil {
			return nil, fail(ctx, path, err)
		}
		if ok {
			return io.NopCloser(bytes.NewReader(data[min(max(offset, 0), int64(len(data))):])), nil
		}
	}
	return d.f.Open(ctx, path, offset)
}

// OpenLater opens the file name later, from any goroutine, as Open does.
func (d *dirHandle) OpenLater(ctx context.Context, name string, offset int64) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return d.Open(ctx, name, offset) }
}

func (d *dirHandle) Close() error { return nil }

// head returns the content of the small file at path and forgets it,
// reading the subtree's small files first when none were read: ok false
// when it was no small file of the subtree when they were read.
func (t *tree) head(ctx context.Context, f *FS, path string) (data []byte, ok bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.fetched {
		if t.heads, err = f.heads(ctx, t.root); err != nil {
			return nil, false, err
		}
		t.fetched = true
	}
	data, ok = t.heads[path]
	delete(t.heads, path)
	return data, ok, nil
}

// heads reads, in one statement, the content of the regular files of at
// most one chunk below the directory name, in path order, as long as
// their total stays within headBudget.
func (f *FS) heads(ctx context.Context, name string) (map[string][]byte, error) {
	stmt, args := "heads_root", []any{f.ws, headBudget}
	if name != "" {
		stmt, args = "heads", []any{f.ws, []byte(name + "/"), []byte(name + "0"), headBudget}
	}
	rows, err := f.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var path, data []byte
		var size int64
		if err := rows.Scan(&path, &size, &data); err != nil {
			return nil, err
		}
		if int64(len(data)) != size {
			// Content missing: leave the file to Open, which says so.
			continue
		}
		out[string(path)] = data
	}
	return out, rows.Err()
}
