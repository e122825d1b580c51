package vfs

import (
	"context"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// DirEntry is one entry of a directory: its name and kind, without the
// rest of what Lstat tells.
type DirEntry struct {
	Name string
	Type FileType
}

// DirOpener is a Store that opens a directory as a handle through which
// the entries in it are listed, entered and read without the store
// resolving the directory's name from its root again: a walk of the
// tree through handles costs the store work in proportion to the
// entries walked, however deep they lie, and a listing holds no more
// entries than it returns. memfs, hostfs and sqlitefs are DirOpeners;
// the Workspace serves any other store through its Store methods.
type DirOpener interface {
	// OpenDir opens the directory at name (never following a link).
	// Errors: ENOENT, ENOTDIR (name is no directory, a link included),
	// the store's own.
	OpenDir(ctx context.Context, name string) (DirHandle, error)
}

// DirHandle is an open directory of a store (see DirOpener). Names given
// to its methods are single entries of the directory: no "/", ".", ".."
// or NUL. A handle keeps naming the directory it opened (a host handle
// follows it if it is moved) and is not safe for concurrent use.
type DirHandle interface {
	// Entries returns, in raw byte order of the names, at most n of the
	// directory's entries (all when n < 0) whose names sort after after
	// ("" for the first). A store holds O(n) entries to answer, whatever
	// the directory's size, and stats none of them.
	Entries(ctx context.Context, after string, n int) ([]DirEntry, error)
	// OpenDir opens the directory name in this one, as DirOpener.OpenDir.
	OpenDir(ctx context.Context, name string) (DirHandle, error)
	// Open reads the regular file name in this directory from byte
	// offset, as Store.Open.
	Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error)
	// Close releases the handle.
	Close() error
}

// LaterOpener is a DirHandle that can open a file of its directory
// later, from another goroutine (see Dir.OpenLater).
type LaterOpener interface {
	// OpenLater returns a function that opens the regular file name
	// from offset as Open does; it is called exactly once, from any
	// goroutine, possibly after the handle is closed.
	OpenLater(ctx context.Context, name string, offset int64) func() (io.ReadCloser, error)
}

// Smallest keeps, of the entries offered to it, the n whose names sort
// first (raw byte order) after a bound: a store answers
// DirHandle.Entries with it over a directory it reads in any order,
// holding n entries at most.
type Smallest struct {
	after string
	n     int
	// The entries kept: in the order offered until there are n of them,
	// a max-heap by name from then on (h[0] is the last name kept).
	h    []DirEntry
	heap bool
}

// NewSmallest keeps the first n entries after after (all of them when
// n < 0); entry names are never empty, so after "" keeps from the first.
func NewSmallest(after string, n int) *Smallest {
	return &Smallest{after: after, n: n}
}

// Offer considers an entry; one at or before the bound is dropped.
func (s *Smallest) Offer(e DirEntry) {
	if s.Wants(e.Name) {
		s.add(e)
	}
}

// Wants reports whether Offer would keep an entry of this name now, so
// that a store can leave a name it reads into a buffer unallocated
// unless it is kept.
func (s *Smallest) Wants(name string) bool {
	switch {
	case name <= s.after, s.n == 0:
		return false
	case s.n < 0 || len(s.h) < s.n:
		return true
	}
	s.heapify()
	return name < s.h[0].Name
}

// heapify makes the n entries kept a heap, once.
func (s *Smallest) heapify() {
	if !s.heap {
		for i := len(s.h)/2 - 1; i >= 0; i-- {
			s.down(i, s.h[i])
		}
		s.heap = true
	}
}

// add keeps e, dropping the last entry kept when there are n already:
// entries are gathered as they come until there are n, which then
// become a heap (in linear time), so a directory of n entries or fewer
// costs one sort and no heap.
func (s *Smallest) add(e DirEntry) {
	if s.n < 0 || len(s.h) < s.n {
		s.h = append(s.h, e)
		return
	}
	s.heapify()
	// Replace the top (the last name kept) and sift it down.
	s.down(0, e)
}

// down puts e at i in the heap and sifts it down.
func (s *Smallest) down(i int, e DirEntry) {
	h := s.h
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].Name > h[c].Name {
			c++
		}
		if h[c].Name <= e.Name {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}

// Sorted returns the entries kept, in raw byte order of their names.
func (s *Smallest) Sorted() []DirEntry {
	out := s.h
	if out == nil {
		out = []DirEntry{}
	}
	slices.SortFunc(out, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	s.h, s.heap = nil, false
	return out
}

// PageEnd is how many entries from the first a page of limit entries
// at offset needs (offset+limit), or -1 (all) when limit < 0 or the sum
// overflows.
func PageEnd(offset, limit int) int {
	offset = max(offset, 0)
	if limit < 0 || offset > math.MaxInt-limit {
		return -1
	}
	return offset + limit
}

// Dir is an open directory of the workspace, from Workspace.OpenDirReal
// or Dir.OpenDir: a walk lists, enters and reads through it without
// resolving paths again, so it costs work in proportion to the entries
// it walks. A Dir is not safe for concurrent use; Close releases it.
type Dir struct {
	w    *Workspace
	real string
	h    DirHandle
}

// OpenDirReal opens the directory at a link-free path obtained from
// Resolve or from an earlier listing. Errors as ReadDirResolved's.
func (w *Workspace) OpenDirReal(ctx context.Context, real string) (*Dir, error) {
	m, name := w.locate(real)
	h, err := openHandle(ctx, m.store, name)
	if err != nil {
		return nil, hostError(toolspec.MsgOpList, real, err)
	}
	return &Dir{w: w, real: real, h: h}, nil
}

func openHandle(ctx context.Context, s Store, name string) (DirHandle, error) {
	if o, ok := s.(DirOpener); ok {
		return o.OpenDir(ctx, name)
	}
	info, err := s.Lstat(ctx, name)
	if err != nil {
		return nil, err
	}
	if info.Type != TypeDir {
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return storeDir{s, name}, nil
}

// Real is the directory's link-free path.
func (d *Dir) Real() string { return d.real }

// Entries returns at most n entries (all when n < 0) whose names sort
// after after, in raw byte order of the names, as ReadDirResolved lists them
// but with names and kinds only. A mount point is listed as the
// directory it is. Errors as ReadDirResolved's.
func (d *Dir) Entries(ctx context.Context, after string, n int) ([]DirEntry, error) {
	entries, err := d.h.Entries(ctx, after, n)
	if err != nil {
		return nil, hostError(toolspec.MsgOpList, d.real, err)
	}
	for _, root := range d.w.mountsIn(d.real) {
		name := Base(root)
		if i, ok := slices.BinarySearchFunc(entries, name, func(e DirEntry, name string) int { return strings.Compare(e.Name, name) }); ok {
			entries[i].Type = TypeDir
		}
	}
	return entries, nil
}

// OpenDir opens the directory name in d (a link is not followed), or the
// root of the store mounted there. Errors as OpenDirReal's.
func (d *Dir) OpenDir(ctx context.Context, name string) (*Dir, error) {
	real := Join(d.real, name)
	if d.w.mountAt(real) != nil {
		return d.w.OpenDirReal(ctx, real)
	}
	h, err := d.h.OpenDir(ctx, name)
	if err != nil {
		return nil, hostError(toolspec.MsgOpList, real, err)
	}
	return &Dir{w: d.w, real: real, h: h}, nil
}

// Open reads the regular file name in d from byte offset, as OpenResolved
// reads it and words its failures.
func (d *Dir) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	real := Join(d.real, name)
	r, err := d.h.Open(ctx, name, offset)
	if err != nil {
		return nil, hostError(toolspec.MsgOpRead, real, err)
	}
	return wordedReader{r, real}, nil
}

// OpenLater prepares to read the regular file name in d from byte
// offset: the function it returns opens it, as Open does, from any
// goroutine, even after d is closed or has moved on, so that a walk can
// hand the opening to the goroutine that reads the file. The function
// must be called exactly once: until then it may hold the directory
// open. A store whose handle cannot open later (no LaterOpener) opens
// the file now.
func (d *Dir) OpenLater(ctx context.Context, name string, offset int64) func() (io.ReadCloser, error) {
	real := Join(d.real, name)
	word := func(r io.ReadCloser, err error) (io.ReadCloser, error) {
		if err != nil {
			return nil, hostError(toolspec.MsgOpRead, real, err)
		}
		return wordedReader{r, real}, nil
	}
	if l, ok := d.h.(LaterOpener); ok {
		open := l.OpenLater(ctx, name, offset)
		return func() (io.ReadCloser, error) { return word(open()) }
	}
	r, err := word(d.h.Open(ctx, name, offset))
	return func() (io.ReadCloser, error) { return r, err }
}

// Close releases the directory.
func (d *Dir) Close() error { return d.h.Close() }

// mountsIn returns the roots of the mounts directly in the directory
// real.
func (w *Workspace) mountsIn(real string) []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var roots []string
	for _, m := range w.mounts {
		if m.root != "/" && parentOf(m.root) == real {
			roots = append(roots, m.root)
		}
	}
	return roots
}

// storeDir is the handle of a directory of a store that is no
// DirOpener: each call names the entry from the store's root, and
// Entries lists the whole directory.
type storeDir struct {
	s    Store
	name string
}

func (d storeDir) join(name string) string {
	if d.name == "" {
		return name
	}
	return d.name + "/" + name
}

func (d storeDir) Entries(ctx context.Context, after string, n int) ([]DirEntry, error) {
	infos, err := d.s.ReadDir(ctx, d.name, 0, -1)
	if err != nil {
		return nil, err
	}
	keep := NewSmallest(after, n)
	for _, i := range infos {
		keep.Offer(DirEntry{Name: i.Name, Type: i.Type})
	}
	return keep.Sorted(), nil
}

func (d storeDir) OpenDir(ctx context.Context, name string) (DirHandle, error) {
	return openHandle(ctx, d.s, d.join(name))
}

func (d storeDir) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	return d.s.Open(ctx, d.join(name), offset)
}

func (storeDir) Close() error { return nil }

// parentOf is the directory holding the canonical path p ("/" for "/").
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
