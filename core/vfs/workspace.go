package vfs

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// MaxSymlinkFollows is how many symbolic links one path lookup follows
// before it fails with ELOOP, as Linux's SYMLOOP_MAX and the reference.
const MaxSymlinkFollows = 40

// Workspace is the tree the tools see: stores mounted at paths, "/"
// always among them. Paths are workspace paths; a symbolic link's target
// is read in workspace path space (an absolute target is a workspace
// path, and ".." stops at "/"), so no lookup ever leaves the workspace.
//
// Every method that takes a path canonicalizes it first and fails with
// EINVAL on an empty, relative or NUL-holding path, or one whose ".."
// climbs above "/". A Workspace is safe for concurrent use.
type Workspace struct {
	mu     sync.RWMutex
	mounts []*mount // longest root first; the last one is "/"
	locks  pathLocks
}

type mount struct {
	root     string
	store    Store
	readOnly bool
}

// New returns a workspace whose root directory is the root of store.
func New(root Store) *Workspace {
	return &Workspace{mounts: []*mount{{root: "/", store: root}}}
}

// MountOptions configure a mount.
type MountOptions struct {
	// ReadOnly refuses every change at or below the mount (EROFS).
	ReadOnly bool
}

// Mount attaches store s at path at, which must not be "/" or already be
// a mount point. The mount point is created as a directory (0755) in the
// store that holds it if it is missing; listing its parent shows it with
// the mounted root's attributes.
func (w *Workspace) Mount(ctx context.Context, at string, s Store, opts MountOptions) error {
	canon, parts, err := Canonical(at)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errno.New(errno.EBUSY, toolspec.MsgMountPoint(canon), canon)
	}
	if err := w.Mkdir(ctx, canon, MkdirOptions{Recursive: true}); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.mounts {
		if m.root == canon {
			return errno.New(errno.EBUSY, toolspec.MsgMountPoint(canon), canon)
		}
	}
	w.mounts = append(w.mounts, &mount{root: canon, store: s, readOnly: opts.ReadOnly})
	slices.SortStableFunc(w.mounts, func(a, b *mount) int { return len(b.root) - len(a.root) })
	return nil
}

// locate returns the mount holding a link-free path and the path's name
// inside that mount's store.
func (w *Workspace) locate(real string) (*mount, string) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, m := range w.mounts {
		switch {
		case m.root == "/":
			return m, strings.TrimPrefix(real, "/")
		case real == m.root:
			return m, ""
		case strings.HasPrefix(real, m.root+"/"):
			return m, real[len(m.root)+1:]
		}
	}
	panic("vfs: no root mount")
}

// linkTarget reads an absolute link target that names a place inside a
// mounted host directory (see HostDirStore) as that place in the
// workspace; every other target is returned as it is.
func (w *Workspace) linkTarget(target string) string {
	if !strings.HasPrefix(target, "/") {
		return target
	}
	clean := Clean(target)
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, m := range w.mounts {
		host, ok := m.store.(HostDirStore)
		if !ok {
			continue
		}
		for _, dir := range host.HostDirs() {
			if rest, ok := strings.CutPrefix(clean, dir); ok && (rest == "" || rest[0] == '/') {
				return m.root + rest
			}
		}
	}
	return target
}

// HostPath is the host directory behind the workspace directory at path
// (links followed): the directory a host process must run in to see the
// workspace there. Errors: ENOENT "no such path", ENOTDIR "not a
// directory", EINVAL "not in a host directory" when no host directory is
// mounted at or above it.
func (w *Workspace) HostPath(ctx context.Context, path string) (string, error) {
	loc, err := w.Resolve(ctx, path)
	if err != nil {
		return "", err
	}
	if !loc.Info.IsDir() {
		return "", errno.New(errno.ENOTDIR, toolspec.MsgNotDirectory(loc.Path), loc.Path)
	}
	m, name := w.locate(loc.Real)
	host, ok := m.store.(HostDirStore)
	if !ok {
		return "", errno.New(errno.EINVAL, toolspec.MsgNotHostDirectory(loc.Path), loc.Path)
	}
	dir := host.HostDirs()[0]
	if name != "" {
		dir += "/" + name
	}
	return dir, nil
}

// mountAt returns the mount whose root is exactly real, if any.
func (w *Workspace) mountAt(real string) *mount {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, m := range w.mounts {
		if m.root == real && m.root != "/" {
			return m
		}
	}
	return nil
}

// readOnlyRoot returns the root of a read-only mount that path is at or
// below, or, when overlap is set, that lies below path (a recursive
// removal of an ancestor would reach it); "" when there is none.
func (w *Workspace) readOnlyRoot(p string, overlap bool) string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, m := range w.mounts {
		if !m.readOnly {
			continue
		}
		if IsWithin(p, m.root) || overlap && IsWithin(m.root, p) {
			return m.root
		}
	}
	return ""
}

func (w *Workspace) checkWritable(p string, overlap bool) error {
	if root := w.readOnlyRoot(p, overlap); root != "" {
		return errno.New(errno.EROFS, toolspec.MsgReadOnlyMount(root, p), p)
	}
	return nil
}

// hostError words a store failure for the model.
func hostError(op, p string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var e *errno.Error
	if errors.As(err, &e) {
		return &errno.Error{Code: e.Code, Message: toolspec.MsgHostIO(op, p, e.Message), Path: p, Err: err}
	}
	return &errno.Error{Code: errno.EIO, Message: toolspec.MsgHostIO(op, p, err.Error()), Path: p, Err: err}
}

func isNotExist(err error) bool { return errno.CodeOf(err) == errno.ENOENT }

// lstatReal describes the node at a link-free path.
func (w *Workspace) lstatReal(ctx context.Context, real string) (Info, error) {
	m, name := w.locate(real)
	info, err := m.store.Lstat(ctx, name)
	if err != nil {
		return Info{}, err
	}
	info.Name = Base(real)
	normalize(&info)
	return info, nil
}

func normalize(info *Info) {
	info.Mode &= 0o7777
	switch info.Type {
	case TypeDir:
		info.Size = 0
	case TypeSymlink:
		info.Mode = 0o777
		info.Size = UTF16Len(info.Target)
	}
}

// node is a resolved location: a link-free path and what is there.
type node struct {
	path string
	info Info
}

// walk resolves canonical components, following every symbolic link on
// the way and the last one too when followFinal is set. found is false
// when a component is missing, or when a component other than the last
// is not a directory.
func (w *Workspace) walk(ctx context.Context, parts []string, followFinal bool) (node, bool, error) {
	root, err := w.lstatReal(ctx, "/")
	if err != nil {
		return node{}, false, err
	}
	stack := []node{{"/", root}}
	pending := slices.Clone(parts)
	follows := 0
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return node{}, false, err
		}
		name := pending[0]
		pending = pending[1:]
		cur := stack[len(stack)-1]
		if cur.info.Type != TypeDir {
			return node{}, false, nil
		}
		switch name {
		case "", ".":
			continue
		case "..":
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		p := Join(cur.path, name)
		info, err := w.lstatReal(ctx, p)
		if isNotExist(err) {
			return node{}, false, nil
		}
		if err != nil {
			return node{}, false, hostError("stat", p, err)
		}
		if info.Type == TypeSymlink && (len(pending) > 0 || followFinal) {
			follows++
			if follows > MaxSymlinkFollows {
				return node{}, false, errno.New(errno.ELOOP, toolspec.MsgTooManySymlinks, "")
			}
			target := w.linkTarget(info.Target)
			if strings.HasPrefix(target, "/") {
				stack = stack[:1]
			}
			pending = append(strings.Split(target, "/"), pending...)
			continue
		}
		stack = append(stack, node{p, info})
	}
	return stack[len(stack)-1], true, nil
}

// Stat describes the node at path, following symbolic links. Info.Name is
// the last component of the path as asked. A missing path is ENOENT
// "no such path: <path as given>"; too many links is ELOOP.
func (w *Workspace) Stat(ctx context.Context, path string) (Info, error) {
	return w.stat(ctx, path, true)
}

// Lstat is Stat without following a symbolic link in the last component.
func (w *Workspace) Lstat(ctx context.Context, path string) (Info, error) {
	return w.stat(ctx, path, false)
}

func (w *Workspace) stat(ctx context.Context, p string, follow bool) (Info, error) {
	canon, n, err := w.lookup(ctx, p, follow)
	if isNotExist(err) {
		return Info{}, errno.New(errno.ENOENT, toolspec.MsgNoSuchPath(p), p)
	}
	if err != nil {
		return Info{}, err
	}
	n.info.Name = Base(canon)
	return n.info, nil
}

// lookup canonicalizes p and walks to its node. A missing node is a bare
// errno.ENOENT, which each caller words as the reference does.
func (w *Workspace) lookup(ctx context.Context, p string, follow bool) (string, node, error) {
	canon, parts, err := Canonical(p)
	if err != nil {
		return "", node{}, err
	}
	n, ok, err := w.walk(ctx, parts, follow)
	if err == nil && !ok {
		err = errno.ENOENT
	}
	return canon, n, err
}

// Location is a path resolved to the node it names.
type Location struct {
	// Path is the canonical form of the path asked for.
	Path string
	// Real is the node's link-free path, for ReadDirResolved and OpenResolved.
	Real string
	Info Info
}

// Resolve follows path to its node. A missing path is ENOENT
// "no such path: <canonical path>".
func (w *Workspace) Resolve(ctx context.Context, path string) (Location, error) {
	canon, n, err := w.lookup(ctx, path, true)
	if isNotExist(err) {
		return Location{}, errno.New(errno.ENOENT, toolspec.MsgNoSuchPath(canon), canon)
	}
	if err != nil {
		return Location{}, err
	}
	return Location{Path: canon, Real: n.path, Info: n.info}, nil
}

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
		return nil, hostError("list", real, err)
	}
	for i := range entries {
		normalize(&entries[i])
		child := Join(real, entries[i].Name)
		if w.mountAt(child) != nil {
			if info, err := w.lstatReal(ctx, child); err == nil {
				entries[i] = info
			}
		}
	}
	return entries, nil
}

// Open reads the regular file at path (following links) from byte
// offset. Errors: ENOENT "no such file: <path>", EISDIR
// "path is a directory: <path>", with the path as given.
func (w *Workspace) Open(ctx context.Context, path string, offset int64) (io.ReadCloser, Info, error) {
	_, n, err := w.lookup(ctx, path, true)
	if isNotExist(err) {
		return nil, Info{}, errno.New(errno.ENOENT, toolspec.MsgNoSuchFile(path), path)
	}
	if err != nil {
		return nil, Info{}, err
	}
	switch n.info.Type {
	case TypeDir:
		return nil, Info{}, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(path), path)
	case TypeOther:
		return nil, Info{}, errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(path), path)
	}
	r, err := w.OpenResolved(ctx, n.path, offset)
	return r, n.info, err
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
		return nil, hostError("read", real, err)
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
		err = hostError("read", r.path, err)
	}
	return n, err
}

// WriteOptions configure WriteFile.
type WriteOptions struct {
	// Mode sets the file's permission bits. When nil, an existing file
	// keeps its bits and a new file gets 0o644, whatever the umask.
	Mode *uint32
	// CreateParents creates missing parent directories (0o755), as the
	// write tool does.
	CreateParents bool
}

// WriteFile creates or replaces the file at path with data. A symbolic
// link at path is followed, a dangling one creates its target. The
// replacement is atomic, and a write that fails changes nothing (no
// directory it would have created is left behind).
//
// Errors, worded as the reference words them: EISDIR for "/" or a
// directory; EEXIST when a parent is a file; ENOTDIR when a parent's
// parent is a file; ENOENT when a parent is missing and CreateParents is
// off, or a link on the way dangles; ELOOP; EROFS.
func (w *Workspace) WriteFile(ctx context.Context, path string, data []byte, opts WriteOptions) error {
	return w.WriteFrom(ctx, path, bytes.NewReader(data), opts)
}

// WriteFrom is WriteFile with the content read from r, so a large file
// never has to be held in memory (by a store that does not keep it there).
// When r fails, nothing changes and its error is returned.
func (w *Workspace) WriteFrom(ctx context.Context, path string, r io.Reader, opts WriteOptions) error {
	plan, err := w.planWrite(ctx, path, opts)
	if err != nil {
		return err
	}
	undo, err := w.createDirs(ctx, plan.dir, plan.create, 0o755)
	if err != nil {
		return err
	}
	m, name := w.locate(plan.target)
	if err := m.store.WriteFile(ctx, name, r, plan.mode); err != nil {
		undo()
		return hostError("write", plan.target, err)
	}
	return nil
}

// CheckWrite returns the error WriteFile of path with opts would fail
// with before writing anything (the path, its parents, its target), or
// nil; it changes nothing.
func (w *Workspace) CheckWrite(ctx context.Context, path string, opts WriteOptions) error {
	_, err := w.planWrite(ctx, path, opts)
	return err
}

// writePlan is where a write lands: the directories to create (create,
// each in the one before, under dir), the link-free target and its mode.
type writePlan struct {
	dir    string
	create []string
	target string
	mode   uint32
}

func (w *Workspace) planWrite(ctx context.Context, path string, opts WriteOptions) (writePlan, error) {
	canon, parts, err := Canonical(path)
	if err != nil {
		return writePlan{}, err
	}
	if len(parts) == 0 {
		return writePlan{}, errno.New(errno.EISDIR, toolspec.MsgWriteRoot(canon), canon)
	}
	if NamesDirectory(path) {
		if opts.CreateParents {
			// As the reference, the parent made first is the path up to
			// its last "/", spelled as given: "f.txt/" asks for a
			// directory f.txt, which fails when f.txt is a file.
			if err := w.checkMkdirAll(ctx, path[:strings.LastIndexByte(path, '/')]); err != nil {
				return writePlan{}, err
			}
		}
		return writePlan{}, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(canon), canon)
	}
	if err := w.checkWritable(canon, false); err != nil {
		return writePlan{}, err
	}
	parent := "/" + strings.Join(parts[:len(parts)-1], "/")
	errPath := parent
	if !opts.CreateParents {
		errPath = canon
	}
	dir, create, err := w.planDir(ctx, parts[:len(parts)-1], opts.CreateParents, errPath)
	if err != nil {
		return writePlan{}, err
	}
	plan := writePlan{dir: dir, create: create, mode: 0o644}
	if len(create) > 0 {
		plan.target = Join(Join(dir, strings.Join(create, "/")), parts[len(parts)-1])
	} else {
		t, existing, err := w.writeTarget(ctx, dir, parts[len(parts)-1], canon)
		if err != nil {
			return writePlan{}, err
		}
		plan.target = t
		if existing != nil {
			plan.mode = existing.Mode
		}
	}
	if opts.Mode != nil {
		plan.mode = *opts.Mode & 0o7777
	}
	if err := w.checkWritable(plan.target, false); err != nil {
		return writePlan{}, err
	}
	return plan, nil
}

// checkMkdirAll returns the error a recursive Mkdir of dir would fail
// with, without creating anything.
func (w *Workspace) checkMkdirAll(ctx context.Context, dir string) error {
	canon, parts, err := Canonical(cmp.Or(dir, "/"))
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return nil
	}
	_, _, err = w.planDir(ctx, parts, true, canon)
	return err
}

// NamesDirectory reports whether a path's spelling names a directory:
// it ends in "/", "/." or "/..".
func NamesDirectory(p string) bool {
	last := p[strings.LastIndexByte(p, '/')+1:]
	return last == "" || last == "." || last == ".."
}

// writeTarget finds where a write of name in the existing directory dir
// lands: following a symbolic link there (a dangling one names the file
// to create). It returns the link-free path and the existing file, if any.
func (w *Workspace) writeTarget(ctx context.Context, dir, name, canon string) (string, *Info, error) {
	targetCanon := canon
	for follows := 0; ; {
		p := Join(dir, name)
		info, err := w.lstatReal(ctx, p)
		switch {
		case isNotExist(err):
			return p, nil, nil
		case err != nil:
			return "", nil, hostError("stat", p, err)
		case info.Type == TypeDir:
			return "", nil, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(targetCanon), targetCanon)
		case info.Type == TypeFile:
			return p, &info, nil
		case info.Type == TypeOther:
			return "", nil, errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(targetCanon), targetCanon)
		}
		follows++
		if follows > MaxSymlinkFollows {
			return "", nil, errno.New(errno.ELOOP, toolspec.MsgTooManySymlinksAt(canon), canon)
		}
		next := w.linkTarget(info.Target)
		if !strings.HasPrefix(next, "/") {
			next = Join(dir, next)
		}
		targetCanon = Clean(next)
		if err := w.checkWritable(targetCanon, false); err != nil {
			return "", nil, err
		}
		if NamesDirectory(next) {
			return "", nil, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(targetCanon), targetCanon)
		}
		_, tparts, _ := Canonical(targetCanon)
		d, create, err := w.planDir(ctx, tparts[:len(tparts)-1], false, targetCanon)
		if err != nil {
			return "", nil, err
		}
		_ = create // planDir without creation never asks for directories
		dir, name = d, tparts[len(tparts)-1]
	}
}

type segment struct {
	name     string
	fromLink bool
}

// planDir resolves the directory named by canonical components, following
// links. With create set, components that do not exist are returned in
// create (to be made under dir) instead of failing; a dangling link still
// fails. Failures name errPath, as the reference's mkdir names its path:
// ENOENT "parent directory missing", ENOTDIR "parent path segment is not a
// directory" for a file on the way, EEXIST "path exists" when the
// directory itself is a file, ELOOP.
func (w *Workspace) planDir(ctx context.Context, parts []string, create bool, errPath string) (dir string, missing []string, err error) {
	stack := []string{}
	pending := make([]segment, len(parts))
	for i, p := range parts {
		pending[i] = segment{name: p}
	}
	follows := 0
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		seg := pending[0]
		pending = pending[1:]
		switch seg.name {
		case "", ".":
			continue
		case "..":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if len(missing) > 0 {
			missing = append(missing, seg.name)
			continue
		}
		p := "/" + strings.Join(append(slices.Clone(stack), seg.name), "/")
		info, err := w.lstatReal(ctx, p)
		switch {
		case isNotExist(err):
			if !create || seg.fromLink {
				return "", nil, errno.New(errno.ENOENT, toolspec.MsgParentMissing(errPath), errPath)
			}
			missing = append(missing, seg.name)
			continue
		case err != nil:
			return "", nil, hostError("stat", p, err)
		case info.Type == TypeSymlink:
			follows++
			if follows > MaxSymlinkFollows {
				return "", nil, errno.New(errno.ELOOP, toolspec.MsgTooManySymlinksAt(errPath), errPath)
			}
			target := w.linkTarget(info.Target)
			if strings.HasPrefix(target, "/") {
				stack = stack[:0]
			}
			var next []segment
			for _, t := range strings.Split(target, "/") {
				next = append(next, segment{name: t, fromLink: true})
			}
			pending = append(next, pending...)
			continue
		case info.Type != TypeDir:
			if len(pending) == 0 {
				return "", nil, errno.New(errno.EEXIST, toolspec.MsgPathExists(errPath), errPath)
			}
			return "", nil, errno.New(errno.ENOTDIR, toolspec.MsgParentNotDirectory(errPath), errPath)
		}
		stack = append(stack, seg.name)
	}
	return "/" + strings.Join(stack, "/"), missing, nil
}

// createDirs makes the directories names (each inside the one before)
// under dir, and returns a function that removes what it made.
func (w *Workspace) createDirs(ctx context.Context, dir string, names []string, mode uint32) (undo func(), err error) {
	var made []string
	undo = func() {
		for i := len(made) - 1; i >= 0; i-- {
			m, name := w.locate(made[i])
			_ = m.store.Remove(context.WithoutCancel(ctx), name)
		}
	}
	p := dir
	for _, n := range names {
		p = Join(p, n)
		if err := w.checkWritable(p, false); err != nil {
			undo()
			return nil, err
		}
		m, name := w.locate(p)
		if err := m.store.Mkdir(ctx, name, mode); err != nil {
			// Another change may have made it meanwhile; that is as good.
			if info, statErr := w.lstatReal(ctx, p); errno.CodeOf(err) == errno.EEXIST && statErr == nil && info.Type == TypeDir {
				continue
			}
			undo()
			return nil, hostError("mkdir", p, err)
		}
		made = append(made, p)
	}
	return undo, nil
}

// LockKey is the key under which a change at path is serialized (see
// Lock): the path where the change lands, so that two spellings of one
// place (through a link, say) share a lock. That is the node's link-free path (the last link followed when
// followFinal is set), or for a path that does not exist yet, the
// link-free path of its nearest existing directory and the rest of the
// path. A path that cannot be resolved locks its canonical form.
func (w *Workspace) LockKey(ctx context.Context, path string, followFinal bool) string {
	canon, parts, err := Canonical(path)
	if err != nil {
		return path
	}
	if n, ok, err := w.walk(ctx, parts, followFinal); err == nil && ok {
		return n.path
	}
	if len(parts) == 0 {
		return canon
	}
	dir, missing, err := w.planDir(ctx, parts[:len(parts)-1], true, canon)
	if err != nil {
		return canon
	}
	for _, m := range missing {
		dir = Join(dir, m)
	}
	return Join(dir, parts[len(parts)-1])
}

// MkdirOptions configure Mkdir.
type MkdirOptions struct {
	// Recursive creates missing parents and accepts an existing directory.
	Recursive bool
	// Mode sets the new directory's permission bits; nil means 0o755.
	// Parents made by Recursive are always 0o755.
	Mode *uint32
}

// Mkdir creates a directory. Errors as the reference's mkdir: EEXIST
// "path exists" (also for "/", and for an existing directory unless
// Recursive), ENOENT "parent directory missing", ENOTDIR "parent path
// segment is not a directory", ELOOP, EROFS. Symbolic links on the way are
// followed, the last one too when Recursive.
func (w *Workspace) Mkdir(ctx context.Context, path string, opts MkdirOptions) error {
	canon, parts, err := Canonical(path)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	}
	if err := w.checkWritable(canon, false); err != nil {
		return err
	}
	dir, create, err := w.planDir(ctx, parts[:len(parts)-1], opts.Recursive, canon)
	if err != nil {
		return err
	}
	leaf := parts[len(parts)-1]
	if len(create) == 0 {
		p := Join(dir, leaf)
		info, err := w.lstatReal(ctx, p)
		switch {
		case err == nil && info.Type == TypeDir && opts.Recursive:
			return nil
		case err == nil && info.Type == TypeSymlink && opts.Recursive:
			if n, ok, err := w.walk(ctx, strings.Split(strings.TrimPrefix(p, "/"), "/"), true); err == nil && ok && n.info.Type == TypeDir {
				return nil
			}
			return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
		case err == nil:
			return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
		case !isNotExist(err):
			return hostError("stat", p, err)
		}
	}
	mode := uint32(0o755)
	if opts.Mode != nil {
		mode = *opts.Mode & 0o7777
	}
	undo, err := w.createDirs(ctx, dir, create, 0o755)
	if err != nil {
		return err
	}
	p := Join(dir, leaf)
	if len(create) > 0 {
		p = Join(Join(dir, strings.Join(create, "/")), leaf)
	}
	if err := w.checkWritable(p, false); err != nil {
		undo()
		return err
	}
	m, name := w.locate(p)
	if err := m.store.Mkdir(ctx, name, mode); err != nil {
		// Another process may have made it meanwhile: a recursive Mkdir
		// is content with a directory there.
		if info, statErr := w.lstatReal(ctx, p); opts.Recursive && errno.CodeOf(err) == errno.EEXIST && statErr == nil && info.Type == TypeDir {
			return nil
		}
		undo()
		return hostError("mkdir", p, err)
	}
	return nil
}

// RemoveOptions configure Remove.
type RemoveOptions struct {
	// Recursive removes a directory with everything below it.
	Recursive bool
	// Force makes a missing path a success.
	Force bool
}

// Remove removes the file, symbolic link (not its target) or directory at
// path; links in the parent path are followed. Errors as the reference's
// rm: EPERM "cannot remove the root directory", ENOENT "no such path"
// (unless Force), ENOTEMPTY "directory not empty" (unless Recursive),
// EROFS; and ours: EBUSY when a mount point would be removed.
func (w *Workspace) Remove(ctx context.Context, path string, opts RemoveOptions) error {
	canon, parts, err := Canonical(path)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errno.New(errno.EPERM, toolspec.MsgRemoveRoot(canon), canon)
	}
	if err := w.checkWritable(canon, true); err != nil {
		return err
	}
	n, ok, err := w.walk(ctx, parts, false)
	if err != nil {
		return err
	}
	if !ok {
		if opts.Force {
			return nil
		}
		return errno.New(errno.ENOENT, toolspec.MsgNoSuchPath(canon), canon)
	}
	isDir := n.info.Type == TypeDir
	if isDir && !opts.Recursive {
		entries, err := w.ReadDirResolved(ctx, n.path, 0, 1)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return errno.New(errno.ENOTEMPTY, toolspec.MsgNotEmpty(canon), canon)
		}
	}
	if err := w.checkWritable(n.path, true); err != nil {
		return err
	}
	if root := w.mountWithin(n.path); root != "" {
		return errno.New(errno.EBUSY, toolspec.MsgMountPoint(root), root)
	}
	m, name := w.locate(n.path)
	if isDir && opts.Recursive {
		err = m.store.RemoveAll(ctx, name)
	} else {
		err = m.store.Remove(ctx, name)
	}
	if err != nil {
		return hostError("remove", n.path, err)
	}
	return nil
}

// mountWithin returns the root of a mount at or below p, other than "/".
func (w *Workspace) mountWithin(p string) string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, m := range w.mounts {
		if m.root != "/" && IsWithin(m.root, p) {
			return m.root
		}
	}
	return ""
}

// Symlink creates a symbolic link at path holding target verbatim (it may
// dangle). Links in the parent path are followed; the parent must exist.
// Errors: EEXIST "path exists", ENOENT "parent directory missing",
// ENOTDIR, EROFS.
func (w *Workspace) Symlink(ctx context.Context, target, path string) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.lstatReal(ctx, p); err == nil {
		return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	} else if !isNotExist(err) {
		return hostError("stat", p, err)
	}
	if err := w.checkWritable(p, false); err != nil {
		return err
	}
	m, name := w.locate(p)
	if err := m.store.Symlink(ctx, target, name); err != nil {
		return hostError("symlink", p, err)
	}
	return nil
}

// TooLargeError is Update's error for a file longer than its limit.
type TooLargeError struct {
	Size int64 // the file's size in bytes, as far as it was read
}

func (e *TooLargeError) Error() string {
	return "file too large: " + strconv.FormatInt(e.Size, 10) + " bytes"
}

// fnError carries the error of Update's fn through a store unchanged.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }
func (e fnError) Unwrap() error { return e.err }

// UpdateAttempts is how many times Update reads, transforms and tries to
// write a file that another writer keeps changing before it gives up.
const UpdateAttempts = 8

// Update replaces the content of the file at path (links followed) with
// what fn makes of it, and never loses a change made meanwhile. On a
// store that can (a vfs.Updater: memfs, hostfs, sqlitefs), fn's result
// is written only if the file is still the version fn was given, even
// against other processes; when it is not, fn runs again on the new
// content, up to UpdateAttempts times, then Update fails with EAGAIN
// (toolspec.MsgUpdateConflict) and nothing is written. fn may therefore run
// more than once and must depend on its arguments only. On other stores
// the read and the write are two steps, which callers serialize with
// Lock. The file keeps its mode. A file longer than limit bytes is not
// handed to fn: Update returns a *TooLargeError. fn's error is returned
// as is, and then nothing is written.
//
// Errors: ENOENT "no such path"; EINVAL "not a regular file" when path is
// not a file; EROFS; EAGAIN; a store's failure as a host I/O error.
func (w *Workspace) Update(ctx context.Context, path string, limit int64, fn func(old []byte, info Info) ([]byte, error)) error {
	loc, err := w.Resolve(ctx, path)
	if err != nil {
		return err
	}
	if loc.Info.Type != TypeFile {
		return errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(loc.Path), loc.Path)
	}
	if loc.Info.Size > limit {
		return &TooLargeError{Size: loc.Info.Size}
	}
	if err := w.checkWritable(loc.Real, false); err != nil {
		return err
	}
	m, name := w.locate(loc.Real)
	u, ok := m.store.(Updater)
	if !ok {
		return w.updateInSteps(ctx, m, name, loc, limit, fn)
	}
	wrapped := func(old []byte, info Info) ([]byte, error) {
		out, err := fn(old, info)
		if err != nil {
			return nil, fnError{err}
		}
		return out, nil
	}
	for attempt := 1; ; attempt++ {
		err := u.Update(ctx, name, limit, wrapped)
		var fe fnError
		var tooLarge *TooLargeError
		switch {
		case errors.As(err, &fe):
			return fe.err
		case errors.As(err, &tooLarge):
			return tooLarge
		case err == nil:
			return nil
		case errno.CodeOf(err) != errno.EAGAIN:
			return hostError("update", loc.Real, err)
		case attempt == UpdateAttempts:
			return &errno.Error{Code: errno.EAGAIN, Message: toolspec.MsgUpdateConflict(UpdateAttempts, loc.Path), Path: loc.Path, Err: err}
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// backoff waits before attempt+1 of a change that lost a race: a random
// time up to 2^attempt ms (at most 256 ms), so that writers racing for
// one file spread out. It returns the context's error if it ends first.
func backoff(ctx context.Context, attempt int) error {
	return Wait(ctx, time.Duration(rand.Int64N(int64(time.Millisecond)<<min(attempt, 8)))+time.Millisecond)
}

// Wait waits for d, or until ctx ends: then it returns ctx's error. It is
// how the stores wait before trying again for a lock another process
// holds.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// updateInSteps is Update on a store that is no Updater: a read, then an
// atomic write, serialized by the caller's Lock.
func (w *Workspace) updateInSteps(ctx context.Context, m *mount, name string, loc Location, limit int64, fn func(old []byte, info Info) ([]byte, error)) error {
	r, err := m.store.Open(ctx, name, 0)
	if err != nil {
		return hostError("open", loc.Real, err)
	}
	old, err := io.ReadAll(io.LimitReader(r, limit+1))
	r.Close()
	if err != nil {
		return hostError("read", loc.Real, err)
	}
	if int64(len(old)) > limit {
		return &TooLargeError{Size: int64(len(old))}
	}
	out, err := fn(old, loc.Info)
	if err != nil {
		return err
	}
	if err := m.store.WriteFile(ctx, name, bytes.NewReader(out), loc.Info.Mode); err != nil {
		return hostError("write", loc.Real, err)
	}
	return nil
}

// WriteFromIf creates or replaces the regular file at path with what r
// holds and permission bits mode, only while the node at path is still
// at revision rev (Info.Rev; 0 means nothing may be there): a copy of
// what was seen at rev never overwrites a newer change. A link in the
// last component is not followed; links on the way are. On a store that
// is a RevWriter (sqlitefs, memfs) the check and the write are one
// atomic step; on others they are two.
//
// Errors: EAGAIN when the node moved on (nothing is written); those of
// WriteFrom otherwise.
func (w *Workspace) WriteFromIf(ctx context.Context, path string, rev int64, r io.Reader, mode uint32) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	m, name := w.locate(p)
	if rw, ok := m.store.(RevWriter); ok {
		err = rw.WriteFileIf(ctx, name, rev, r, mode&0o7777)
	} else if err = w.checkRev(ctx, p, rev); err == nil {
		err = m.store.WriteFile(ctx, name, r, mode&0o7777)
	}
	return revError("write", canon, p, err)
}

// RemoveIf removes the file, symbolic link or empty directory at path (a
// link in the last component is not followed) only while it is still at
// revision rev, as WriteFromIf writes. Errors: EAGAIN when it moved on
// (nothing is removed); ENOENT, ENOTEMPTY, EROFS as for Remove.
func (w *Workspace) RemoveIf(ctx context.Context, path string, rev int64) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	if root := w.mountWithin(p); root != "" {
		return errno.New(errno.EBUSY, toolspec.MsgMountPoint(root), root)
	}
	m, name := w.locate(p)
	if rw, ok := m.store.(RevWriter); ok {
		err = rw.RemoveIf(ctx, name, rev)
	} else if err = w.checkRev(ctx, p, rev); err == nil {
		err = m.store.Remove(ctx, name)
	}
	return revError("remove", canon, p, err)
}

// checkRev fails with EAGAIN unless the node at the link-free path p is
// at revision rev (0: nothing is there).
func (w *Workspace) checkRev(ctx context.Context, p string, rev int64) error {
	info, err := w.lstatReal(ctx, p)
	switch {
	case isNotExist(err) && rev == 0:
		return nil
	case err == nil && rev != 0 && info.Rev == rev:
		return nil
	case err != nil && !isNotExist(err):
		return err
	}
	return errno.EAGAIN
}

// revError words a failure of a conditional change.
func revError(op, canon, p string, err error) error {
	switch {
	case err == nil:
		return nil
	case errno.CodeOf(err) == errno.EAGAIN:
		return &errno.Error{Code: errno.EAGAIN, Message: toolspec.MsgUpdateConflict(1, canon), Path: canon, Err: err}
	}
	return hostError(op, p, err)
}

// newEntry resolves where a new entry at path goes: its canonical
// spelling and the link-free path in the existing parent directory
// (the last element is not followed). "/" exists already (EEXIST).
func (w *Workspace) newEntry(ctx context.Context, path string) (canon, real string, err error) {
	canon, parts, err := Canonical(path)
	if err != nil {
		return "", "", err
	}
	if len(parts) == 0 {
		return "", "", errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	}
	if err := w.checkWritable(canon, false); err != nil {
		return "", "", err
	}
	dir, _, err := w.planDir(ctx, parts[:len(parts)-1], false, canon)
	if err != nil {
		return "", "", err
	}
	return canon, Join(dir, parts[len(parts)-1]), nil
}

// Create creates an empty file at path (0644, whatever the umask), only
// if nothing is there: a link at path is not followed. Of concurrent
// creates of one path, exactly one succeeds (across processes, for a
// store they share), so a caller can claim a name before it writes.
//
// Errors: EEXIST "path exists" when something is at path; ENOENT when the
// parent is missing; ENOTDIR, ELOOP, EROFS as for WriteFile.
func (w *Workspace) Create(ctx context.Context, path string) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	if err := w.checkWritable(p, false); err != nil {
		return err
	}
	m, name := w.locate(p)
	if err := m.store.Create(ctx, name, 0o644); err != nil {
		if errno.CodeOf(err) == errno.EEXIST {
			return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
		}
		return hostError("create", p, err)
	}
	return nil
}

// Chmod sets the permission bits (mode & 0o7777) of the file or directory
// at path, following links. Errors: ENOENT "no such path", EROFS.
func (w *Workspace) Chmod(ctx context.Context, path string, mode uint32) error {
	loc, err := w.Resolve(ctx, path)
	if err != nil {
		return err
	}
	if err := w.checkWritable(loc.Real, false); err != nil {
		return err
	}
	m, name := w.locate(loc.Real)
	if err := m.store.Chmod(ctx, name, mode&0o7777); err != nil {
		return hostError("chmod", loc.Real, err)
	}
	return nil
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

// Lock takes the workspace's lock for path, waiting for every earlier
// holder or waiter whose lock conflicts: the same path, or, when either
// lock is a subtree lock, an ancestor or descendant. write, edit and
// delete hold it for their whole read-check-change sequence. It returns
// the function that releases the lock, or the context's error.
func (w *Workspace) Lock(ctx context.Context, path string, subtree bool) (func(), error) {
	return w.locks.Lock(ctx, path, subtree)
}
