package vfs

import (
	"context"
	"strings"
	"sync"
)

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
