package pgfs

import (
	"bytes"
	"context"
	"io"
	"maps"
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
// at a time (each of their subdirectories tries again). A file of at
// most one chunk that a walk opens through a handle of a subtree read
// whole brings, in one more statement, the content of the subtree's
// files of at most one chunk that follow it in walk order (pre-order,
// siblings in byte order of names, as core walks), up to headBudget
// bytes: the batch the walk's next opens find. The first batch of a
// walk holds firstHeadBudget bytes at most, each later one twice the one
// before, up to headBudget: a grep that fills its page with the first
// files does not wait for 8 MiB of them, and a grep of a tree of small
// files costs a round trip per headBudget bytes of them once past the
// first few MiB, however many files they are. It holds twice headBudget
// at most: the batches it read last (two at least), which files opened
// out of order (grep opens them on several goroutines) may still need.
var (
	subtreeMax      = 5000
	headBudget      = int64(8 << 20)
	firstHeadBudget = int64(256 << 10)
)

// tree is the listing of a subtree read in one statement, shared by the
// handles of its directories.
type tree struct {
	root    string                    // the subtree's directory
	entries map[string][]vfs.DirEntry // by directory, in byte order of names
	sizes   map[string]int64          // files of one chunk at most, by path

	mu      sync.Mutex
	order   []string          // the files of sizes in walk order; nil until a file is opened
	index   map[string]int    // position in order, by path
	next    int               // order[:next] were offered to a batch already
	heads   map[string][]byte // content of the batches' files not opened yet, by path
	batches []batch           // the batches still held, the oldest first
	budget  int64             // the bytes the last batch could hold, 0 before the first
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
	t := &tree{root: name, entries: map[string][]vfs.DirEntry{}, sizes: map[string]int64{}}
	found, nodes := false, 0
	for rows.Next() {
		var path []byte
		var typ int16
		var size int64
		if err := rows.Scan(&path, &typ, &size); err != nil {
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
		if typ == dbFile && size <= chunkSize {
			t.sizes[p] = size
		}
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
// reading the next batch first when path is the first file of the walk
// not offered to one yet: ok false when it was no small file of the
// subtree when it was listed, or was offered to a batch already (opened
// before, or dropped with an old batch), or is alone larger than
// headBudget.
func (t *tree) head(ctx context.Context, f *FS, path string) (data []byte, ok bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if data, ok = t.heads[path]; ok {
		delete(t.heads, path)
		return data, true, nil
	}
	if t.order == nil {
		t.walkOrder()
	}
	i, ok := t.index[path]
	if !ok || i < t.next {
		return nil, false, nil
	}
	budget := min(max(2*t.budget, firstHeadBudget), headBudget)
	paths, total := []string{}, int64(0)
	for _, p := range t.order[i:] {
		if total += t.sizes[p]; total > budget {
			break
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		t.next = i + 1
		return nil, false, nil
	}
	got, err := f.heads(ctx, paths, budget)
	if err != nil {
		return nil, false, err
	}
	t.next, t.budget = i+len(paths), budget
	// The older batches go once those held could hold more than
	// 2*headBudget: the last two at least stay.
	t.batches = append(t.batches, batch{paths, budget})
	held := int64(0)
	for _, b := range t.batches {
		held += b.budget
	}
	for len(t.batches) > 2 && held > 2*headBudget {
		for _, p := range t.batches[0].paths {
			delete(t.heads, p)
		}
		held -= t.batches[0].budget
		t.batches = t.batches[1:]
	}
	if t.heads == nil {
		t.heads = map[string][]byte{}
	}
	maps.Copy(t.heads, got)
	data, ok = t.heads[path]
	delete(t.heads, path)
	return data, ok, nil
}

// batch is the paths a statement of heads asked for, and the bytes it
// could bring.
type batch struct {
	paths  []string
	budget int64
}

// walkOrder puts the files of sizes in the order a walk of the subtree
// meets them.
func (t *tree) walkOrder() {
	t.order, t.index = make([]string, 0, len(t.sizes)), make(map[string]int, len(t.sizes))
	var visit func(dir string)
	visit = func(dir string) {
		for _, e := range t.entries[dir] {
			p := join(dir, e.Name)
			if e.Type == vfs.TypeDir {
				visit(p)
			} else if _, ok := t.sizes[p]; ok {
				t.index[p] = len(t.order)
				t.order = append(t.order, p)
			}
		}
	}
	visit(t.root)
}

// heads reads, in one statement, the content of those of paths that are
// regular files of at most one chunk, as long as their total in the
// order of paths stays within budget bytes.
func (f *FS) heads(ctx context.Context, paths []string, budget int64) (map[string][]byte, error) {
	bs := make([][]byte, len(paths))
	for i, p := range paths {
		bs[i] = []byte(p)
	}
	rows, err := f.pool.Query(ctx, "heads", f.ws, bs, budget)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string][]byte, len(paths))
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
