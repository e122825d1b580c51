package pgfs_test

import (
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// withWorkspace is the URL u naming the workspace name.
func withWorkspace(t testing.TB, u, name string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Set("workspace", name)
	p.RawQuery = q.Encode()
	return p.String()
}

// open opens the workspace name of the database db, closed when t ends.
func open(t testing.TB, db, name string, opts ...pgfs.Option) *pgfs.FS {
	t.Helper()
	f, err := pgfs.Open(t.Context(), withWorkspace(t, db, name), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// emptied is f with its /workspace directory removed: a root and
// nothing else, as storetest wants.
func emptied(t testing.TB, f *pgfs.FS) *pgfs.FS {
	t.Helper()
	if err := f.RemoveAll(t.Context(), "workspace"); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestStore runs the conformance suite with a new workspace for each
// subtest, all in one database.
func TestStore(t *testing.T) {
	db := pgtest.Database(t)
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) vfs.Store {
		return emptied(t, open(t, db, fmt.Sprintf("ws%03d", n.Add(1))))
	})
}
