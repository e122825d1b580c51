package vfs

import (
	"context"
	"strings"
	"sync"
)

// Lock takes the workspace's lock for path, waiting for every earlier
// holder or waiter whose lock conflicts: the same path, or, when either
// lock is a subtree lock, an ancestor or descendant. write, edit and
// delete hold it for their whole read-check-change sequence. It returns
// the function that releases the lock, or the context's error.
func (w *Workspace) Lock(ctx context.Context, path string, subtree bool) (func(), error) {
	return w.locks.Lock(ctx, path, subtree)
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

// pathLocks serializes changes by path, as the reference's per-file locks
// do: a lock waits for every earlier lock (held or still waiting) on the
// same path, and a subtree lock also for earlier locks on its ancestors
// and descendants, and they for it. Waiters are served in arrival order.
// The zero value is ready to use.
type pathLocks struct {
	mu      sync.Mutex
	entries map[*lockEntry]struct{}
}

type lockEntry struct {
	path    string
	subtree bool
	done    chan struct{}
}

// Lock waits for the lock on path (lexically normalized) and returns its
// release function; it gives up with the context's error.
func (l *pathLocks) Lock(ctx context.Context, path string, subtree bool) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e := &lockEntry{path: normalizeLockPath(path), subtree: subtree, done: make(chan struct{})}
	l.mu.Lock()
	if l.entries == nil {
		l.entries = map[*lockEntry]struct{}{}
	}
	var before []chan struct{}
	for other := range l.entries {
		if conflicts(e, other) {
			before = append(before, other.done)
		}
	}
	l.entries[e] = struct{}{}
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		delete(l.entries, e)
		l.mu.Unlock()
		close(e.done)
	}
	for _, done := range before {
		select {
		case <-done:
		case <-ctx.Done():
			// Those queued behind us only needed us to run alone; we never
			// ran, so letting them go is safe.
			release()
			return nil, ctx.Err()
		}
	}
	var once sync.Once
	return func() { once.Do(release) }, nil
}

func conflicts(a, b *lockEntry) bool {
	if a.path == b.path {
		return true
	}
	if !a.subtree && !b.subtree {
		return false
	}
	return below(a.path, b.path) || below(b.path, a.path)
}

func below(p, ancestor string) bool {
	switch ancestor {
	case "/":
		return strings.HasPrefix(p, "/")
	case "":
		return !strings.HasPrefix(p, "/")
	}
	return p == ancestor || strings.HasPrefix(p, ancestor+"/")
}

// normalizeLockPath cleans a path lexically without validating it, so
// that "/a//b" and "/a/./b" share a lock.
func normalizeLockPath(p string) string {
	return Clean(p)
}
