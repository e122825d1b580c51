package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// TestPgStore runs every row of the bench once on the pgfs store: each
// row gives the reference's answer (its expect keys) and counts its
// round trips, and every case's workspace is gone afterwards.
func TestPgStore(t *testing.T) {
	if testing.Short() {
		t.Skip("every row of the bench on pgfs: about 20 s")
	}
	db := pgtest.Database(t)
	cases, err := LoadCases(filepath.Join("..", "..", "golden", "testdata", "bench", "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	err = Run(context.Background(), cases, Options{Store: PgStore, Postgres: db, Once: true}, func(r Row) {
		rows++
		if r.Error != "" || !r.OK {
			t.Errorf("%s: error %q, expect: %s", r.Workload, r.Error, r.Why)
		}
		t.Logf("%s: %g round trips a call", r.Workload, r.RoundTrips)
		switch {
		case r.Tool != "exec" && r.RoundTrips == 0:
			t.Errorf("%s: no round trips counted", r.Workload)
		case r.Workload == "tree-2000/find-full-walk-no-match" && r.RoundTrips > 2:
			// The walk of 2000 files in 100 directories: the lookup and
			// the subtree's listing.
			t.Errorf("%s: %g round trips a call, want at most 2", r.Workload, r.RoundTrips)
		case r.Case == "tree-2000" && r.Tool == "grep" && r.Bytes != nil:
			// A grep that reads the whole tree of small files (its bytes
			// counted): the lookup, the listing, a statement per batch of
			// small files (256 KiB for the first, twice the one before
			// after it, up to the store's 8 MiB), and a few files that a
			// worker opened late, after the batch after their own was read.
			batches := int64(0)
			for left, budget := *r.Bytes, int64(256<<10); left > 0; left, budget = left-budget, min(2*budget, 8<<20) {
				batches++
			}
			if max := float64(2 + batches + 4); r.RoundTrips > max {
				t.Errorf("%s: %g round trips a call over %d bytes, want at most %g", r.Workload, r.RoundTrips, *r.Bytes, max)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows < 20 {
		t.Errorf("%d rows, want one per call of the bench's %d cases", rows, len(cases))
	}
	left, err := pgfs.Workspaces(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("workspaces left after the bench: %+v", left)
	}
}

// TestPgStoreNeedsURL: the pgfs store without a URL is refused before
// any case runs.
func TestPgStoreNeedsURL(t *testing.T) {
	err := Run(context.Background(), []Case{{Name: "c"}}, Options{Store: PgStore}, func(r Row) { t.Errorf("a row: %+v", r) })
	if err == nil {
		t.Fatal("Run on pgfs without a URL succeeded")
	}
}
