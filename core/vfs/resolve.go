// Path resolution: following symbolic links in workspace path space to
// the node a path names (walk, Stat, Resolve) or to the directory a new
// entry goes in (planDir).

package vfs

import (
	"context"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// MaxSymlinkFollows is how many symbolic links one path lookup follows
// before it fails with ELOOP, as Linux's SYMLOOP_MAX and the reference.
const MaxSymlinkFollows = 40

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

// lstatReal describes the node at a link-free path.
func (w *Workspace) lstatReal(ctx context.Context, real string) (Info, error) {
	m, name := w.locate(real)
	return lstatIn(ctx, m, name, real)
}

// lstatIn describes the node at name in m, whose workspace path is real.
func lstatIn(ctx context.Context, m *mount, name, real string) (Info, error) {
	info, err := m.store.Lstat(ctx, name)
	if err != nil {
		return Info{}, err
	}
	info.Name = Base(real)
	normalize(&info)
	return info, nil
}

// lookahead describes the nodes one lookup meets. Of a store that is a
// PathStatter it asks, with the first node it needs, for those of the
// elements the lookup will go through next, so a path costs the store
// one call however deep it is (and one more after each link or mount
// point on the way); of any other store, one Lstat per node.
type lookahead struct {
	w *Workspace
	// The nodes the last LstatPath described, by link-free path, and the
	// path it found nothing at ("" when none).
	paths  []string
	infos  []Info
	absent string
}

// plainElem reports whether elem names an entry (not "", "." or "..").
func plainElem(elem string) bool { return elem != "" && elem != "." && elem != ".." }

// lstat describes the node at the link-free path p as lstatReal does
// (a missing node is errno.ENOENT). next are the elements the lookup
// goes through below p if p is a directory, the rest of its path.
func (a *lookahead) lstat(ctx context.Context, p string, next []string) (Info, error) {
	for i, q := range a.paths {
		if q == p {
			return a.infos[i], nil
		}
	}
	if p == a.absent {
		return Info{}, errno.ENOENT
	}
	m, name := a.w.locate(p)
	ps, ok := m.store.(PathStatter)
	if !ok {
		return lstatIn(ctx, m, name, p)
	}
	// The elements ahead that lie in this store: up to a link's "." or
	// "..", or a mount point.
	run, q := 0, p
	for run < len(next) && plainElem(next[run]) {
		q = Join(q, next[run])
		if a.w.mountAt(q) != nil {
			break
		}
		run++
	}
	infos, err := ps.LstatPath(ctx, name, next[:run])
	if err != nil {
		return Info{}, err
	}
	a.paths, a.infos, a.absent = a.paths[:0], a.infos[:0], ""
	q = p
	for i, info := range infos {
		if i > 0 {
			q = Join(q, next[i-1])
		}
		info.Name = Base(q)
		normalize(&info)
		a.paths = append(a.paths, q)
		a.infos = append(a.infos, info)
	}
	switch {
	case len(infos) == 0:
		return Info{}, errno.ENOENT
	case len(infos) <= run && infos[len(infos)-1].Type == TypeDir:
		a.absent = Join(q, next[len(infos)-1])
	}
	return a.infos[0], nil
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
	a := lookahead{w: w}
	root, err := a.lstat(ctx, "/", parts)
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
		info, err := a.lstat(ctx, p, pending)
		if isNotExist(err) {
			return node{}, false, nil
		}
		if err != nil {
			return node{}, false, hostError(toolspec.MsgOpStat, p, err)
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
	a := lookahead{w: w}
	var next []string
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
		next = next[:0]
		for _, s := range pending {
			next = append(next, s.name)
		}
		info, err := a.lstat(ctx, p, next)
		switch {
		case isNotExist(err):
			if !create || seg.fromLink {
				return "", nil, errno.New(errno.ENOENT, toolspec.MsgParentMissing(errPath), errPath)
			}
			missing = append(missing, seg.name)
			continue
		case err != nil:
			return "", nil, hostError(toolspec.MsgOpStat, p, err)
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
