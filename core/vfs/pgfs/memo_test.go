package pgfs_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// TestScopeMemo: within a call scope the FS answers a lookup it made
// before from memory (no round trip), forgets what it knows when it
// changes anything, and a change another writer made meanwhile is still
// met by the statement of the call's own change, which checks the nodes
// as they are then: the memory never lets a change skip its checks.
func TestScopeMemo(t *testing.T) {
	db := pgtest.Database(t)
	f := open(t, db, "memo")
	other := open(t, db, "memo") // another node: a pool of its own
	ctx := vfs.WithCallScope(t.Context())
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.Mkdir(t.Context(), "workspace/d", 0o755))
	must(f.WriteFile(t.Context(), "workspace/d/f", bytes.NewReader([]byte("one")), 0o644))

	// A second lookup of the same nodes is no round trip.
	if _, err := f.LstatPath(ctx, "", []string{"workspace", "d", "f"}); err != nil {
		t.Fatal(err)
	}
	before := f.RoundTrips()
	if _, err := f.Lstat(ctx, "workspace/d/f"); err != nil {
		t.Fatal(err)
	}
	if n := f.RoundTrips() - before; n != 0 {
		t.Errorf("a lookup made before in the scope: %d round trips, want 0", n)
	}
	// Outside the scope every lookup asks the server.
	before = f.RoundTrips()
	if _, err := f.Lstat(t.Context(), "workspace/d/f"); err != nil {
		t.Fatal(err)
	}
	if n := f.RoundTrips() - before; n != 1 {
		t.Errorf("a lookup outside a scope: %d round trips, want 1", n)
	}

	// Its own change makes it forget: a file it found missing, then
	// created, is found.
	if _, err := f.Lstat(ctx, "workspace/new"); errno.CodeOf(err) != errno.ENOENT {
		t.Fatalf("Lstat of a missing file: %v, want ENOENT", err)
	}
	must(f.Create(ctx, "workspace/new", 0o644))
	if _, err := f.Lstat(ctx, "workspace/new"); err != nil {
		t.Errorf("Lstat in the scope after Create: %v", err)
	}

	// Another writer removes d meanwhile: the memory still says d/f is
	// there, but a write into d is refused by its own statement, and
	// nothing is written.
	if _, err := f.Lstat(ctx, "workspace/d/f"); err != nil {
		t.Fatal(err)
	}
	must(other.RemoveAll(t.Context(), "workspace/d"))
	err := f.WriteFile(ctx, "workspace/d/g", bytes.NewReader([]byte("lost?")), 0o644)
	if c := errno.CodeOf(err); c != errno.ENOENT {
		t.Errorf("a write into a directory another writer removed: %v, want ENOENT", err)
	}
	if _, err := other.Lstat(t.Context(), "workspace/d"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("the write made its directory again: %v", err)
	}
	// The failed change made it forget too.
	if _, err := f.Lstat(ctx, "workspace/d/f"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("Lstat in the scope after the refused write: %v, want ENOENT", err)
	}

	// An edit in a scope whose memory is behind another writer's change
	// loses neither: its write is refused (EAGAIN) and the other's stays.
	must(f.WriteFile(t.Context(), "workspace/e", bytes.NewReader([]byte("v1")), 0o644))
	ctx = vfs.WithCallScope(t.Context())
	if _, err := f.Lstat(ctx, "workspace/e"); err != nil {
		t.Fatal(err)
	}
	err = f.Update(ctx, "workspace/e", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) {
		must(other.WriteFile(t.Context(), "workspace/e", bytes.NewReader([]byte("v2 from the other node")), 0o644))
		return append(old, " edited"...), nil
	})
	if errno.CodeOf(err) != errno.EAGAIN {
		t.Errorf("an edit over another node's change: %v, want EAGAIN", err)
	}
	r, err := other.Open(t.Context(), "workspace/e", 0)
	must(err)
	got, err := io.ReadAll(r)
	r.Close()
	must(err)
	if string(got) != "v2 from the other node" {
		t.Errorf("the file holds %q, want the other node's change", got)
	}
}
