package pgfs

import (
	"context"
	"sync"

	"github.com/agenttools/agenttools/core/vfs"
)

// memo is what an FS remembers of its nodes within one call scope (see
// vfs.WithCallScope): the nodes it read, by path, and the paths it found
// nothing at. A tool call looks its path up several times (its lock key,
// the tool's checks, the operation's own lookup); with the memo only the
// first is a round trip. Every change the FS makes clears it, failed or
// not (see FS.mutate); a change by another writer meanwhile is met by
// the statement of the call's own change, which checks the nodes it
// depends on as they are then.
type memo struct {
	mu     sync.Mutex
	known  map[string]node
	absent map[string]bool
}

// memo is f's memo in ctx's call scope, nil outside one.
func (f *FS) memo(ctx context.Context) *memo {
	v := vfs.ScopeValue(ctx, f, func() any { return &memo{known: map[string]node{}, absent: map[string]bool{}} })
	if v == nil {
		return nil
	}
	return v.(*memo)
}

// recall answers a lookup of paths from the memo: ok is false unless it
// knows every one of them (as a node or as nothing).
func (m *memo) recall(paths []string) (found map[string]node, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	found = make(map[string]node, len(paths))
	for _, p := range paths {
		if n, ok := m.known[p]; ok {
			found[p] = n
		} else if !m.absent[p] {
			return nil, false
		}
	}
	return found, true
}

// note keeps what a lookup of paths found.
func (m *memo) note(paths []string, found map[string]node) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range paths {
		if n, ok := found[p]; ok {
			m.known[p] = n
			delete(m.absent, p)
		} else {
			m.absent[p] = true
			delete(m.known, p)
		}
	}
}

// forget drops everything: the FS changed something.
func (m *memo) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.known)
	clear(m.absent)
}
