package vfs_test

import (
	"context"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

// otherKey is a context key of the test's own.
type otherKey struct{}

func TestCallScope(t *testing.T) {
	ctx := t.Context()
	made := 0
	mk := func() any { made++; return new(int) }
	if v := vfs.ScopeValue(ctx, "k", mk); v != nil || made != 0 {
		t.Fatalf("without a scope: %v (made %d), want nil and nothing made", v, made)
	}
	scoped := vfs.WithCallScope(ctx)
	a := vfs.ScopeValue(scoped, "k", mk)
	b := vfs.ScopeValue(scoped, "k", mk)
	if a == nil || a != b || made != 1 {
		t.Fatalf("one key in one scope: %v, %v (made %d), want one value made once", a, b, made)
	}
	if vfs.ScopeValue(scoped, "other", mk) == nil || made != 2 {
		t.Errorf("another key: made %d, want a value of its own", made)
	}
	// A scope inside a scope is the same one; a new scope starts empty.
	inner := vfs.WithCallScope(context.WithValue(scoped, otherKey{}, 1))
	if vfs.ScopeValue(inner, "k", mk) != a {
		t.Error("a call inside a call has a scope of its own")
	}
	if vfs.ScopeValue(vfs.WithCallScope(ctx), "k", mk) == a {
		t.Error("a new scope shares the values of another")
	}
}
