// Package memfs is an in-memory vfs.Store: the workspace of tests,
// goldens and `agenttools replay`, and the root of a workspace that
// mounts a host directory. Its clock is injectable, so mtimes are
// deterministic in tests.
package memfs

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// FS is an in-memory tree. File contents are never changed in place (a
// write replaces them), so an open reader keeps seeing what it opened.
// It numbers its changes as sqlitefs does (vfs.Info.Rev): every change
// gives the nodes it touches (and a directory whose entries it changes)
// the next number.
type FS struct {
	mu   sync.RWMutex
	root *node
	now  func() time.Time
	rev  int64 // the last number given
}

type node struct {
	typ      vfs.FileType
	mode     uint32
	mtime    int64
	data     []byte
	target   string
	rev      int64
	children map[string]*node
	// A directory's children in raw byte order of their names, once a
	// listing made them (see listing); nil again whenever an entry is
	// added or removed. reads counts the listings since.
	sorted atomic.Pointer[[]child]
	reads  atomic.Int32
}

// child is an entry of a directory: its name and node.
type child struct {
	name string
	n    *node
}

// setChild puts c at name in the directory n (nil removes name); f.mu
// is held for writing.
func (n *node) setChild(name string, c *node) {
	if c == nil {
		delete(n.children, name)
	} else {
		n.children[name] = c
	}
	n.sorted.Store(nil)
	n.reads.Store(0)
}

// listing returns the directory's children in raw byte order when it has
// them sorted, making them so at its second listing since the last
// change (a directory listed once after each change is never sorted
// whole); nil otherwise. f.mu is held (for reading at least).
func (n *node) listing() []child {
	if l := n.sorted.Load(); l != nil {
		return *l
	}
	if n.reads.Add(1) < 2 {
		return nil
	}
	l := make([]child, 0, len(n.children))
	for name, c := range n.children {
		l = append(l, child{name, c})
	}
	slices.SortFunc(l, func(a, b child) int { return strings.Compare(a.name, b.name) })
	n.sorted.Store(&l)
	return l
}

// Option configures New.
type Option func(*FS)

// WithClock sets the clock that stamps modification times.
func WithClock(now func() time.Time) Option {
	return func(f *FS) { f.now = now }
}

// New returns an empty tree: a root directory with mode 0o755.
func New(opts ...Option) *FS {
	f := &FS{now: time.Now}
	for _, o := range opts {
		o(f)
	}
	f.root = &node{typ: vfs.TypeDir, mode: 0o755, mtime: f.stamp(), rev: f.next(), children: map[string]*node{}}
	return f
}

var (
	_ vfs.Store     = (*FS)(nil)
	_ vfs.Updater   = (*FS)(nil)
	_ vfs.RevWriter = (*FS)(nil)
	_ vfs.DirOpener = (*FS)(nil)
)

// next returns the next change number; f.mu is held for writing.
func (f *FS) next() int64 {
	f.rev++
	return f.rev
}

func (f *FS) stamp() int64 { return f.now().UnixMilli() }

func notExist(name string) error { return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name) }

// lookup returns the node at name and its parent (nil for the root).
func (f *FS) lookup(name string) (n, parent *node, err error) {
	n = f.root
	if name == "" {
		return n, nil, nil
	}
	for _, part := range strings.Split(name, "/") {
		if n.typ != vfs.TypeDir {
			return nil, nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
		}
		child, ok := n.children[part]
		if !ok {
			return nil, nil, notExist(name)
		}
		parent, n = n, child
	}
	return n, parent, nil
}

// parentOf returns the directory that holds name and the last element.
func (f *FS) parentOf(name string) (*node, string, error) {
	dir, base := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i], name[i+1:]
	}
	p, _, err := f.lookup(dir)
	if err != nil {
		return nil, "", err
	}
	if p.typ != vfs.TypeDir {
		return nil, "", errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return p, base, nil
}

func info(name string, n *node) vfs.Info {
	i := vfs.Info{Name: name, Type: n.typ, Mode: n.mode, MTime: n.mtime, Target: n.target, Rev: n.rev}
	if n.typ == vfs.TypeFile {
		i.Size = int64(len(n.data))
	}
	return i
}

// Lstat describes the node at name.
func (f *FS) Lstat(_ context.Context, name string) (vfs.Info, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n, _, err := f.lookup(name)
	if err != nil {
		return vfs.Info{}, err
	}
	return info(name[strings.LastIndexByte(name, '/')+1:], n), nil
}

// ReadDir lists a directory in raw byte order of the names. A directory
// listed again since its last change keeps its children sorted, and a
// page is then a slice of them; before that, a listing holds the
// offset+limit first names at most, whatever the directory's size.
func (f *FS) ReadDir(_ context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n, err := f.dirAt(name)
	if err != nil {
		return nil, err
	}
	if l := n.listing(); l != nil {
		l = l[min(max(offset, 0), len(l)):]
		if limit >= 0 && limit < len(l) {
			l = l[:limit]
		}
		out := make([]vfs.Info, len(l))
		for i, c := range l {
			out[i] = info(c.name, c.n)
		}
		return out, nil
	}
	names := n.smallest("", vfs.PageEnd(offset, limit))
	names = names[min(max(offset, 0), len(names)):]
	out := make([]vfs.Info, len(names))
	for i, e := range names {
		out[i] = info(e.Name, n.children[e.Name])
	}
	return out, nil
}

// first returns the directory's first k entries after after (all when
// k < 0), in raw byte order: from its sorted children when it has them
// (see listing), else keeping k of them as they come. f.mu is held.
func (n *node) first(after string, k int) []vfs.DirEntry {
	if l := n.listing(); l != nil {
		i, found := slices.BinarySearchFunc(l, after, func(c child, name string) int { return strings.Compare(c.name, name) })
		if found {
			i++
		}
		l = l[i:]
		if k >= 0 && k < len(l) {
			l = l[:k]
		}
		out := make([]vfs.DirEntry, len(l))
		for i, c := range l {
			out[i] = vfs.DirEntry{Name: c.name, Type: c.n.typ}
		}
		return out
	}
	return n.smallest(after, k)
}

// smallest is first without sorted children: it keeps k entries of the
// directory as they come. f.mu is held.
func (n *node) smallest(after string, k int) []vfs.DirEntry {
	keep := vfs.NewSmallest(after, k)
	for name, c := range n.children {
		keep.Offer(vfs.DirEntry{Name: name, Type: c.typ})
	}
	return keep.Sorted()
}

// Open reads a file from offset; the reader holds the content as it was.
func (f *FS) Open(_ context.Context, name string, offset int64) (io.ReadCloser, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n, _, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	return n.open(name, offset)
}

// open reads the file n from offset; f.mu is held.
func (n *node) open(name string, offset int64) (io.ReadCloser, error) {
	if n.typ != vfs.TypeFile {
		return nil, errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	}
	data := n.data
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return io.NopCloser(bytes.NewReader(data[offset:])), nil
}

// OpenDir opens the directory at name as a handle that holds its node: a
// walk through it looks up one name per step, however deep. A handle
// keeps the directory it opened, even once it is removed.
func (f *FS) OpenDir(_ context.Context, name string) (vfs.DirHandle, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n, err := f.dirAt(name)
	if err != nil {
		return nil, err
	}
	return &dir{f: f, n: n}, nil
}

// dirAt returns the directory at name (ENOTDIR when it is something
// else); f.mu is held.
func (f *FS) dirAt(name string) (*node, error) {
	n, _, err := f.lookup(name)
	if err == nil && n.typ != vfs.TypeDir {
		err = errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return n, err
}

// dir is an open directory (see OpenDir).
type dir struct {
	f *FS
	n *node
}

func (d *dir) Entries(_ context.Context, after string, k int) ([]vfs.DirEntry, error) {
	d.f.mu.RLock()
	defer d.f.mu.RUnlock()
	return d.n.first(after, k), nil
}

func (d *dir) child(name string) (*node, error) {
	if c, ok := d.n.children[name]; ok {
		return c, nil
	}
	return nil, notExist(name)
}

func (d *dir) OpenDir(_ context.Context, name string) (vfs.DirHandle, error) {
	d.f.mu.RLock()
	defer d.f.mu.RUnlock()
	c, err := d.child(name)
	if err != nil {
		return nil, err
	}
	if c.typ != vfs.TypeDir {
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return &dir{f: d.f, n: c}, nil
}

func (d *dir) Open(_ context.Context, name string, offset int64) (io.ReadCloser, error) {
	d.f.mu.RLock()
	defer d.f.mu.RUnlock()
	c, err := d.child(name)
	if err != nil {
		return nil, err
	}
	return c.open(name, offset)
}

func (d *dir) Close() error { return nil }

// WriteFile creates or replaces a file.
func (f *FS) WriteFile(_ context.Context, name string, r io.Reader, mode uint32) error {
	content, err := readContent(r)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.write(name, content, mode, -1)
}

// WriteFileIf is WriteFile done only while the node at name is at
// revision rev (0: nothing is there); EAGAIN otherwise.
func (f *FS) WriteFileIf(_ context.Context, name string, rev int64, r io.Reader, mode uint32) error {
	content, err := readContent(r)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.write(name, content, mode, rev)
}

// readContent reads r to its end into a slice of exactly its length, or
// takes the bytes of a vfs.OwnedReader as they are, or the chunks of a
// vfs.ChunkReader (one as it is, more joined once).
// Unlike io.ReadAll, which doubles one slice and copies it as it grows,
// it reads into a list of buffers and joins them once: a stream of
// megabytes (exec's saved output) is copied twice in all.
func readContent(r io.Reader) ([]byte, error) {
	if o, ok := r.(*vfs.OwnedReader); ok {
		// Contents are never changed in place: the bytes handed over
		// can be the file's.
		if data, ok := o.Owned(); ok {
			return data[:len(data):len(data)], nil
		}
	}
	if c, ok := r.(vfs.ChunkReader); ok {
		return keepChunks(c)
	}
	var parts [][]byte
	total, size := 0, 32<<10
	if l, ok := r.(interface{ Len() int }); ok {
		size = l.Len() + 1 // a bytes.Reader or the like: one read, and EOF
	}
	for {
		buf := make([]byte, size)
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			parts = append(parts, buf[:n])
			total += n
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if len(parts) == 1 && cap(parts[0])-total <= total {
				return parts[0][:total:total], nil
			}
			return bytes.Join(parts, nil)[:total:total], nil
		case err != nil:
			return nil, err
		}
		size = min(size*2, 4<<20)
	}
}

// keepChunks reads c to its end and keeps its chunks' bytes, which
// nobody changes: a lone chunk is the content, more are joined into one
// slice of exactly their length, so the content is copied once at most.
func keepChunks(c vfs.ChunkReader) ([]byte, error) {
	var parts [][]byte
	for {
		b, err := c.NextChunk()
		switch {
		case err == io.EOF:
			if len(parts) == 1 {
				return parts[0][:len(parts[0]):len(parts[0])], nil
			}
			return bytes.Join(parts, nil), nil
		case err != nil:
			return nil, err
		}
		parts = append(parts, b)
	}
}

// write stores a file's content; with rev >= 0, only while the node at
// name is at that revision (0: absent). f.mu is held for writing.
func (f *FS) write(name string, content []byte, mode uint32, rev int64) error {
	p, base, err := f.parentOf(name)
	if err != nil {
		return err
	}
	now := f.stamp()
	n, ok := p.children[base]
	switch {
	case rev == 0 && ok, rev > 0 && (!ok || n.rev != rev):
		return errno.EAGAIN
	case ok && n.typ != vfs.TypeFile:
		return errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	case ok:
		n.data, n.mode, n.mtime, n.rev = content, mode&0o7777, now, f.next()
		return nil
	}
	p.setChild(base, &node{typ: vfs.TypeFile, mode: mode & 0o7777, mtime: now, data: content, rev: f.next()})
	p.mtime, p.rev = now, f.rev
	return nil
}

// Update replaces a file's content with what fn makes of it. fn runs
// without the tree's lock; the result is stored only if the file was not
// changed meanwhile, else Update fails with EAGAIN.
func (f *FS) Update(_ context.Context, name string, limit int64, fn func(old []byte, info vfs.Info) ([]byte, error)) error {
	f.mu.RLock()
	n, _, err := f.lookup(name)
	if err == nil && n.typ != vfs.TypeFile {
		err = errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	}
	var data []byte
	var seen vfs.Info
	if err == nil {
		data, seen = n.data, info(name[strings.LastIndexByte(name, '/')+1:], n)
	}
	f.mu.RUnlock()
	if err != nil {
		return err
	}
	if int64(len(data)) > limit {
		return &vfs.TooLargeError{Size: int64(len(data))}
	}
	out, err := fn(data, seen)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if now, _, err := f.lookup(name); err != nil || now != n || n.rev != seen.Rev {
		return errno.EAGAIN
	}
	n.data, n.mtime, n.rev = out, f.stamp(), f.next()
	return nil
}

func (f *FS) add(name string, n *node) error {
	p, base, err := f.parentOf(name)
	if err != nil {
		return err
	}
	if _, ok := p.children[base]; ok {
		return errno.New(errno.EEXIST, toolspec.MsgReasonExists, name)
	}
	n.rev = f.next()
	p.setChild(base, n)
	p.mtime, p.rev = n.mtime, n.rev
	return nil
}

// Create creates an empty file, only if nothing is at name.
func (f *FS) Create(_ context.Context, name string, mode uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(name, &node{typ: vfs.TypeFile, mode: mode & 0o7777, mtime: f.stamp()})
}

// Mkdir creates a directory.
func (f *FS) Mkdir(_ context.Context, name string, mode uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(name, &node{typ: vfs.TypeDir, mode: mode & 0o7777, mtime: f.stamp(), children: map[string]*node{}})
}

// Symlink creates a symbolic link.
func (f *FS) Symlink(_ context.Context, target, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(name, &node{typ: vfs.TypeSymlink, mode: 0o777, mtime: f.stamp(), target: target})
}

// Remove removes a file, a link or an empty directory.
func (f *FS) Remove(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.remove(name, false)
}

// RemoveAll removes name and everything below it.
func (f *FS) RemoveAll(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.remove(name, true)
}

// RemoveIf removes a file, a link or an empty directory only while it is
// at revision rev; EAGAIN otherwise.
func (f *FS) RemoveIf(_ context.Context, name string, rev int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, _, err := f.lookup(name)
	if err != nil {
		return err
	}
	if n.rev != rev {
		return errno.EAGAIN
	}
	return f.remove(name, false)
}

func (f *FS) remove(name string, all bool) error {
	if name == "" {
		return errno.New(errno.EPERM, toolspec.MsgReasonRemoveRoot, name)
	}
	p, base, err := f.parentOf(name)
	if err != nil {
		return err
	}
	n, ok := p.children[base]
	if !ok {
		return notExist(name)
	}
	if n.typ == vfs.TypeDir && len(n.children) > 0 && !all {
		return errno.New(errno.ENOTEMPTY, toolspec.MsgReasonNotEmpty, name)
	}
	p.setChild(base, nil)
	p.mtime, p.rev = f.stamp(), f.next()
	return nil
}

// Chmod sets permission bits.
func (f *FS) Chmod(_ context.Context, name string, mode uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, _, err := f.lookup(name)
	if err != nil {
		return err
	}
	n.mode, n.rev = mode&0o7777, f.next()
	return nil
}
