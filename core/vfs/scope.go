package vfs

import (
	"context"
	"sync"
)

// A call scope is the span of one tool call (core starts one per call of
// read, ls, write, edit and delete). Within it a store whose every read
// is a round trip to a server may remember what it read and answer the
// same question again from memory (see ScopeValue): a tool call asks the
// Workspace about one path several times (its lock key, the tool's own
// checks, the operation's lookup), and each would otherwise be a round
// trip.
//
// What a store may remember is what its own changes in the scope could
// make stale, which it forgets as it makes them; a change made meanwhile
// by another writer is then seen by the call's changes, which every store
// checks against the current state in one atomic step (a file's parent,
// its kind, its revision), not by its later lookups. A call's lookups
// are already a moment apart from its change; the scope widens that gap,
// never lets a change skip its check.
type callScope struct {
	mu   sync.Mutex
	vals map[any]any
}

type scopeKey struct{}

// WithCallScope returns ctx carrying a new call scope; a ctx that already
// carries one is returned as it is (a call inside a call shares it).
func WithCallScope(ctx context.Context) context.Context {
	if _, ok := ctx.Value(scopeKey{}).(*callScope); ok {
		return ctx
	}
	return context.WithValue(ctx, scopeKey{}, &callScope{vals: map[any]any{}})
}

// ScopeValue returns the value under key in ctx's call scope, which make
// makes on first use; nil when ctx carries no call scope. A store keys
// its memory by a value of its own (its FS pointer, say), so that stores
// in one scope keep theirs apart. The value is shared by whatever runs
// under ctx: it must be safe for concurrent use.
func ScopeValue(ctx context.Context, key any, make func() any) any {
	s, ok := ctx.Value(scopeKey{}).(*callScope)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vals[key]
	if !ok {
		v = make()
		s.vals[key] = v
	}
	return v
}
