// Package pgfs is a vfs.Store (a vfs.Updater, vfs.RevWriter and
// vfs.PathStatter too) kept in a PostgreSQL database, through a
// github.com/jackc/pgx/v5 connection pool: a workspace that every machine
// able to reach the database can serve, many workspaces in one database.
//
// The model is sqlitefs's: every node is one row keyed by (workspace,
// path); a file's content is a list of chunks under a content id that is
// never reused; every change is one transaction; a counter per workspace
// numbers the changes and gives every node a change touches its new
// value as Rev.
//
// The layout is versioned (SchemaVersion): Open creates it in an empty
// database and refuses, changing nothing, a newer layout (ErrNewerSchema)
// and tables of another program under the same names (ErrForeign).
//
// pgfs imports vfs, errno, toolspec (the messages a model sees), pgx and
// the standard library; it must not import core or any adapter.
package pgfs

import (
	"context"
	"errors"
	"time"
)

// SchemaVersion is the layout of the tables this package reads and
// writes. A database of a larger number is refused (ErrNewerSchema) and
// never modified.
const SchemaVersion = 1

// DefaultWorkspace is the workspace a URL without a workspace parameter
// names.
const DefaultWorkspace = "default"

// Errors of Open, for errors.Is. The errors Open returns carry a message
// that names the database and says why.
var (
	// ErrForeign: the database holds tables of another program under
	// this package's names.
	ErrForeign = errors.New("not a workspace database")
	// ErrNewerSchema: a workspace database of a later layout than
	// SchemaVersion.
	ErrNewerSchema = errors.New("newer workspace database schema")
)

// FS is one workspace of a PostgreSQL database. It is safe for
// concurrent use; Close releases it.
type FS struct {
	now func() time.Time
}

// Option configures Open.
type Option func(*FS)

// WithClock sets the clock that stamps modification times (kept in ms),
// as memfs.WithClock.
func WithClock(now func() time.Time) Option {
	return func(f *FS) { f.now = now }
}

// IsURL reports whether s is a PostgreSQL connection URL (postgres:// or
// postgresql://), as the agenttools command tells a --db URL from a file.
func IsURL(s string) bool {
	panic("pgfs: not written yet")
}

// SplitURL returns the connection URL u without its workspace parameter,
// for pgx, and the workspace it names (DefaultWorkspace without one).
// Errors: u is not a PostgreSQL URL, an empty workspace name.
func SplitURL(u string) (conn, workspace string, err error) {
	panic("pgfs: not written yet")
}

// Open connects to the database of url (a PostgreSQL connection URL, as
// pgx reads it, with an optional workspace parameter: SplitURL) with a
// pool of its own, creates the tables when the database has none, and
// opens the workspace, creating it when it does not exist: a root
// directory 0o755 holding the directory /workspace (toolspec.WorkspaceRoot)
// 0o755, as sqlitefs makes a new database.
func Open(ctx context.Context, url string, opts ...Option) (*FS, error) {
	panic("pgfs: not written yet")
}

// Workspace is the name of the workspace f opened.
func (f *FS) Workspace() string { panic("pgfs: not written yet") }

// RoundTrips is how many round trips to the server f has made since it
// was opened: a statement, a batch of statements or a COPY is one.
func (f *FS) RoundTrips() int64 { panic("pgfs: not written yet") }

// Close releases the pool. Readers still open fail afterwards.
func (f *FS) Close() error { panic("pgfs: not written yet") }

// WorkspaceInfo describes one workspace of a database.
type WorkspaceInfo struct {
	Name string
	// Rev is the workspace's change counter.
	Rev int64
	// Nodes counts its files, directories and links (the root included);
	// Bytes is the total size of its files.
	Nodes, Bytes int64
}

// Workspaces lists the workspaces of the database of url (its workspace
// parameter is ignored), in byte order of their names; none when the
// database has no workspace tables. Errors: the connection's, ErrForeign,
// ErrNewerSchema.
func Workspaces(ctx context.Context, url string) ([]WorkspaceInfo, error) {
	panic("pgfs: not written yet")
}

// RemoveWorkspace removes the workspace name of the database of url and
// everything in it, in one transaction. Errors: ENOENT when there is no
// such workspace, the connection's.
func RemoveWorkspace(ctx context.Context, url, name string) error {
	panic("pgfs: not written yet")
}
