// The Workspace, its mount table and the helpers every operation uses to
// route a path to its store, refuse changes under read-only mounts and
// word a store's failures.

package vfs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// Workspace is the tree the tools see: stores mounted at paths, "/"
// always among them. Paths are workspace paths; a symbolic link's target
// is read in workspace path space (an absolute target is a workspace
// path, and ".." stops at "/"), so no lookup ever leaves the workspace.
//
// Every method that takes a path canonicalizes it first and fails with
// EINVAL on an empty, relative or NUL-holding path, or one whose ".."
// climbs above "/". A Workspace is safe for concurrent use.
type Workspace struct {
	mu        sync.RWMutex
	mounts    []*mount // longest root first; the last one is "/"
	locks     pathLocks
	sessionID string
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

// SetSessionID names the agent session the workspace belongs to, as the
// reference's Workspace sessionId option: the publish tool then asks its
// publisher for the prefix "agent-<id>", so that links of different
// sessions do not collide. The empty id (the default) means none.
func (w *Workspace) SetSessionID(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sessionID = id
}

// SessionID is the id SetSessionID gave, or "".
func (w *Workspace) SessionID() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.sessionID
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
	var tl *NameTooLongError
	if errors.As(err, &tl) {
		// p ends with the store's name of Len bytes.
		return pathTooLong(int64(len(p)-tl.Len+tl.Max), p)
	}
	var e *errno.Error
	if errors.As(err, &e) {
		return &errno.Error{Code: e.Code, Message: toolspec.MsgHostIO(op, p, e.Message), Path: p, Err: err}
	}
	return &errno.Error{Code: errno.EIO, Message: toolspec.MsgHostIO(op, p, err.Error()), Path: p, Err: err}
}

func isNotExist(err error) bool { return errno.CodeOf(err) == errno.ENOENT }
