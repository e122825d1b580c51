package vfs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// failsafe only bounds a hang, so that a broken lock fails the test
// instead of stalling it; a passing test never waits for it.
const failsafe = 10 * time.Second

// holder is one Lock call made in its own goroutine.
type holder struct {
	name string
	got  chan func() // the release function, once the lock is held
	err  chan error  // Lock's error
	// released is set just before the lock is released.
	released atomic.Bool
	// early records that the lock was granted while a lock it must wait
	// for (one of after) was still held.
	early atomic.Bool
}

// start calls l.Lock in a goroutine. after are the locks that must have
// been released when this one is granted.
func start(ctx context.Context, l *pathLocks, path string, subtree bool, after ...*holder) *holder {
	h := &holder{name: fmt.Sprintf("%s(subtree=%v)", path, subtree), got: make(chan func(), 1), err: make(chan error, 1)}
	go func() {
		release, err := l.Lock(ctx, path, subtree)
		if err != nil {
			h.err <- err
			return
		}
		for _, a := range after {
			if !a.released.Load() {
				h.early.Store(true)
			}
		}
		h.got <- func() {
			h.released.Store(true)
			release()
		}
	}()
	return h
}

// acquire waits until h holds its lock and returns the release function.
func acquire(t *testing.T, h *holder) func() {
	t.Helper()
	select {
	case release := <-h.got:
		if h.early.Load() {
			t.Errorf("%s was granted while a conflicting earlier lock was held", h.name)
		}
		return release
	case err := <-h.err:
		t.Fatalf("%s: Lock: %v", h.name, err)
	case <-time.After(failsafe):
		t.Fatalf("%s: not granted", h.name)
	}
	return nil
}

// notHeld fails if h holds its lock now.
func notHeld(t *testing.T, h *holder) {
	t.Helper()
	select {
	case release := <-h.got:
		t.Errorf("%s was granted while it must wait", h.name)
		release()
	case err := <-h.err:
		t.Errorf("%s: Lock: %v", h.name, err)
	default:
	}
	if h.early.Load() {
		t.Errorf("%s was granted while a conflicting earlier lock was held", h.name)
	}
}

// queued is how many locks are held or waiting.
func queued(l *pathLocks) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// waitQueued waits until n locks are held or waiting: the Lock calls made
// so far have all registered and chosen what they wait for.
func waitQueued(t *testing.T, l *pathLocks, n int) {
	t.Helper()
	deadline := time.Now().Add(failsafe)
	for queued(l) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d locks queued, want %d", queued(l), n)
		}
		runtime.Gosched()
	}
}

func TestPathLocksConflicts(t *testing.T) {
	tests := []struct {
		held     string
		heldSub  bool
		next     string
		nextSub  bool
		conflict bool
	}{
		{"/a", false, "/a", false, true},
		{"/a", false, "/a/", false, true},
		{"/a//b/./", false, "/a/b", false, true},
		{"/a/b/..", false, "/a", false, true},
		{"/a", false, "/b", false, false},
		{"/a", false, "/a/b", false, false},
		{"/a/b", false, "/a", false, false},
		{"/a", true, "/a", true, true},
		{"/a", true, "/a", false, true},
		{"/a", true, "/a/b", false, true},
		{"/a", true, "/a/b/c", true, true},
		{"/a", true, "/ab", false, false},
		{"/a", true, "/ab", true, false},
		{"/a", true, "/b", true, false},
		{"/a/b", false, "/a", true, true},
		{"/a/b/c", false, "/a", true, true},
		{"/a", false, "/", true, true},
		{"/", true, "/x/y", false, true},
		// As documented, a subtree lock also waits for, and holds up, a
		// lock on an ancestor.
		{"/a/b", true, "/a", false, true},
		{"/a/b", true, "/a/c", false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s,%v then %s,%v", tt.held, tt.heldSub, tt.next, tt.nextSub), func(t *testing.T) {
			var l pathLocks
			ctx := t.Context()
			first := start(ctx, &l, tt.held, tt.heldSub)
			releaseFirst := acquire(t, first)
			if !tt.conflict {
				// Granted while the first lock is still held.
				second := start(ctx, &l, tt.next, tt.nextSub)
				acquire(t, second)()
				releaseFirst()
				return
			}
			second := start(ctx, &l, tt.next, tt.nextSub, first)
			waitQueued(t, &l, 2)
			notHeld(t, second)
			releaseFirst()
			acquire(t, second)()
			if n := queued(&l); n != 0 {
				t.Errorf("%d locks left after every release", n)
			}
		})
	}
}

// TestPathLocksDistinctPathsRunTogether holds many locks on distinct paths
// at once: each is granted while all the earlier ones are still held.
func TestPathLocksDistinctPathsRunTogether(t *testing.T) {
	var l pathLocks
	var releases []func()
	for i := range 16 {
		releases = append(releases, acquire(t, start(t.Context(), &l, fmt.Sprintf("/dir/f%d", i), false)))
	}
	if n := queued(&l); n != 16 {
		t.Errorf("%d locks held, want 16", n)
	}
	for _, r := range releases {
		r()
	}
}

func TestPathLocksArrivalOrder(t *testing.T) {
	var l pathLocks
	ctx := t.Context()
	h0 := start(ctx, &l, "/x", false)
	r0 := acquire(t, h0)
	var waiters []*holder
	prev := h0
	for i := 1; i <= 4; i++ {
		// Alternate plain and subtree locks: all conflict on /x.
		h := start(ctx, &l, "/x", i%2 == 0, prev)
		waitQueued(t, &l, i+1)
		waiters = append(waiters, h)
		prev = h
	}
	release := r0
	for i, h := range waiters {
		for _, later := range waiters[i:] {
			notHeld(t, later)
		}
		release()
		release = acquire(t, h)
	}
	release()
}

// TestPathLocksNoOvertaking checks that a waiter is not overtaken by a
// later lock that conflicts only with it: /a/c does not conflict with the
// held /a/b, but it arrived after the subtree lock on /a, which waits.
func TestPathLocksNoOvertaking(t *testing.T) {
	var l pathLocks
	ctx := t.Context()
	held := start(ctx, &l, "/a/b", false)
	rHeld := acquire(t, held)
	sub := start(ctx, &l, "/a", true, held)
	waitQueued(t, &l, 2)
	late := start(ctx, &l, "/a/c", false, sub)
	waitQueued(t, &l, 3)
	notHeld(t, sub)
	notHeld(t, late)
	rHeld()
	rSub := acquire(t, sub)
	notHeld(t, late)
	rSub()
	acquire(t, late)()
}

func TestPathLocksCancelledWaiter(t *testing.T) {
	var l pathLocks
	ctx := t.Context()
	held := start(ctx, &l, "/x", false)
	rHeld := acquire(t, held)

	cctx, cancel := context.WithCancel(ctx)
	cancelled := start(cctx, &l, "/x", true, held)
	waitQueued(t, &l, 2)
	later := start(ctx, &l, "/x", false, held)
	waitQueued(t, &l, 3)

	cancel()
	select {
	case err := <-cancelled.err:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiter: %v, want context.Canceled", err)
		}
	case <-cancelled.got:
		t.Fatal("a cancelled waiter was granted the lock")
	case <-time.After(failsafe):
		t.Fatal("a cancelled waiter did not return")
	}
	// The cancelled waiter left the queue; the later one still waits for
	// the holder, and is granted as soon as the holder releases.
	if n := queued(&l); n != 2 {
		t.Errorf("%d locks queued after the cancellation, want 2", n)
	}
	notHeld(t, later)
	rHeld()
	acquire(t, later)()
}

// TestPathLocksCancelledWaiterUnblocks checks that a lock waiting only for
// a waiter that gives up is granted at once, while the first holder still
// holds its (non-conflicting) lock.
func TestPathLocksCancelledWaiterUnblocks(t *testing.T) {
	var l pathLocks
	ctx := t.Context()
	held := start(ctx, &l, "/a/b", false)
	rHeld := acquire(t, held)
	cctx, cancel := context.WithCancel(ctx)
	sub := start(cctx, &l, "/a", true, held)
	waitQueued(t, &l, 2)
	late := start(ctx, &l, "/a/c", false)
	waitQueued(t, &l, 3)
	notHeld(t, late)
	cancel()
	acquire(t, late)()
	if err := <-sub.err; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled waiter: %v, want context.Canceled", err)
	}
	rHeld()
}

func TestPathLocksCancelledBeforeWaiting(t *testing.T) {
	var l pathLocks
	ctx := t.Context()
	rHeld := acquire(t, start(ctx, &l, "/x", false))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	release, err := l.Lock(cctx, "/x", false)
	if !errors.Is(err, context.Canceled) || release != nil {
		t.Errorf("Lock with a cancelled context on a held path = %v, %v; want nil, context.Canceled", release != nil, err)
	}
	if n := queued(&l); n != 1 {
		t.Errorf("%d locks queued, want 1", n)
	}
	rHeld()
}

func TestPathLocksReleaseIdempotent(t *testing.T) {
	var l pathLocks
	ctx := t.Context()
	first, err := l.Lock(ctx, "/x", true)
	if err != nil {
		t.Fatal(err)
	}
	first()
	first()
	second := start(ctx, &l, "/x", false)
	rSecond := acquire(t, second)
	// A stale release must not release the new holder.
	first()
	third := start(ctx, &l, "/x", false, second)
	waitQueued(t, &l, 2)
	notHeld(t, third)
	rSecond()
	rSecond()
	acquire(t, third)()
	if n := queued(&l); n != 0 {
		t.Errorf("%d locks left after every release", n)
	}
}

// TestWorkspaceLock checks that the Workspace hands out its pathLocks.
func TestWorkspaceLock(t *testing.T) {
	ws := &Workspace{}
	ctx := t.Context()
	release, err := ws.Lock(ctx, "/a", true)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ws.Lock(cctx, "/a/b", false); !errors.Is(err, context.Canceled) {
		t.Errorf("Lock(/a/b) under a held subtree lock = %v, want it to wait (context.Canceled)", err)
	}
	release()
	// Granted now that nothing conflicts (the failsafe only bounds a hang).
	fctx, stop := context.WithTimeout(ctx, failsafe)
	defer stop()
	again, err := ws.Lock(fctx, "/a/b", false)
	if err != nil {
		t.Errorf("Lock(/a/b) after the release: %v", err)
	} else {
		again()
	}
}
