// Package pgfs is a vfs.Store (a vfs.Updater, vfs.PieceUpdater,
// vfs.RevWriter, vfs.PathStatter and vfs.DirOpener too) kept in a
// PostgreSQL database, through a github.com/jackc/pgx/v5 connection pool:
// a workspace that every machine able to reach the database can serve,
// many workspaces in one database.
//
// The model is sqlitefs's, in the schema agenttools: every node is one
// row of agenttools.node keyed by (workspace id, path), its path, parent
// and name bytea (any bytes, compared as bytes: a listing comes in raw
// byte order of the names, whatever the database's collation); a file's
// content is a list of 64 KiB chunks (agenttools.chunk) under a content
// id from a sequence, never reused; a counter per workspace
// (agenttools.workspace.rev) numbers the changes and gives every node a
// change touches, and the directory whose entries it changes, its new
// value as Rev.
//
// Guarantees, and how:
//
//   - Every change (Create, Mkdir, Symlink, Remove, RemoveAll, Chmod, a
//     write) is one call of a plpgsql function created with the tables,
//     so one statement, its own transaction, one round trip. The
//     function first locks the workspace's row (SELECT ... FOR UPDATE):
//     the changes of one workspace serialize on it, from any pool,
//     process or machine, for that one short statement only, and what
//     the function checks (under READ COMMITTED each of its statements
//     sees all that committed before) holds when it writes. Of
//     concurrent Creates of one name exactly one succeeds. A refused
//     change returns an errno code before writing anything.
//   - A write of up to 1 MiB passes its chunks as an argument of that
//     statement. A longer one runs in one transaction: COPY streams the
//     chunks from the reader under a new content id, then the statement
//     switches the file to it, then COMMIT (the database's
//     statement_timeout does not apply: the COPY takes as long as its
//     reader, a command's output saved as it comes). A reader that
//     fails, a done context, a killed process or a broken connection
//     rolls the whole transaction back: the old content stays, nothing
//     is left behind. A client that vanishes (a network cut) after the
//     switch, which holds the workspace's row, but before COMMIT holds
//     up the workspace's changes for 60 s at most: the server ends a
//     session of the store idle in a transaction that long
//     (idle_in_transaction_session_timeout).
//     Such a write runs on a connection of its own, opened for it with
//     the pool's settings and closed after: a pool connection held as
//     long as a command prints would leave none for the statements the
//     store makes meanwhile (a small pool, pool_max_conns in the URL, and
//     a few commands saving their stdout and stderr would hang them all).
//     The pool serves short statements only, and the server sees up to
//     one more session per write of over 1 MiB in progress.
//     A file's old content is deleted by the statement that replaces it.
//   - Update (edit) reads the node and its whole content in one
//     statement, runs fn holding no lock, and writes as above only while
//     the node is still at the revision read (EAGAIN otherwise, which
//     Workspace.Update retries): no change from anywhere is lost.
//     WriteFileIf and RemoveIf check their revision the same way.
//   - A reader reads the content id it opened, a window of chunks per
//     statement (128 KiB with the node, then twice as much each time,
//     up to 1 MiB): when the file was replaced or removed meanwhile,
//     the chunks are gone and it fails with EAGAIN, never mixing
//     versions.
//
// Round trips (RoundTrips counts them with a pgx tracer): Lstat,
// LstatPath (a whole path), ReadDir (the directory and a page of its
// entries), Create, Mkdir, Symlink, Remove, RemoveAll, Chmod and a write
// of up to 1 MiB are one each; Open is one (128 KiB from the offset),
// and reading on, one for the next 256 KiB, 512 KiB, then one per MiB;
// Update two (read, write); a write over 1 MiB seven (a
// connection of its own, BEGIN, a content id, the table's description
// for COPY, COPY, the switch, COMMIT). A walk through directory
// handles (find, grep) is not one per directory: OpenDir reads the
// listing of the whole subtree (up to 5000 nodes; beyond, a page per
// directory) in one statement, and a small file (of one chunk) opened
// through its handles that no earlier statement brought brings the
// content of the small files that follow it in walk order in one more
// (256 KiB of them for the walk's first such statement, twice as much
// for each after it, up to 8 MiB): a grep costs a round trip per 8 MiB
// of small files once past the first few, and one per larger file. A new connection of the pool costs
// its setup and the preparing of the store's statements, once.
//
// The layout is versioned (SchemaVersion, the meta row layout): Open
// creates the tables in a database without the schema agenttools, under
// an advisory lock so that concurrent first Opens make one, and refuses,
// changing nothing, a newer layout (ErrNewerSchema) and a schema
// agenttools of another program (ErrForeign).
//
// A node's name (its path in the store) is at most 2599 bytes (a path
// of the workspace 2600, where memfs and sqlitefs keep 4096): PostgreSQL
// refuses an index entry over 2704 bytes. A longer one is refused before
// anything is written (*vfs.NameTooLongError, which the Workspace words
// as its own refusal of a path too long); looking it up finds nothing.
//
// Other servers of PostgreSQL's protocol need what this uses: plpgsql
// functions, SELECT ... FOR UPDATE inside them, READ COMMITTED, a
// sequence, COPY FROM STDIN, pg_advisory_xact_lock and ALTER TABLE ...
// SET STORAGE. Not tried here: CockroachDB (plpgsql from v23.2 on,
// READ COMMITTED only when enabled, no SET STORAGE or advisory locks as
// far as we know) and YugabyteDB would need changes to the schema.
//
// pgfs imports vfs, errno, toolspec (the messages a model sees), pgx and
// the standard library; it must not import core or any adapter.
package pgfs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// SchemaVersion is the layout of the tables this package reads and
// writes. A database of a larger number is refused (ErrNewerSchema) and
// never modified.
const SchemaVersion = 1

// DefaultWorkspace is the workspace a URL without a workspace parameter
// names.
const DefaultWorkspace = "default"

// maxWorkspaceName is the longest workspace name, in bytes.
const maxWorkspaceName = 200

// Errors of Open, for errors.Is. The errors Open returns carry a message
// that names the database and says why.
var (
	// ErrForeign: the database holds tables of another program under
	// this package's names.
	ErrForeign = errors.New("not a workspace database")
	// ErrNewerSchema: a workspace database of a later layout than
	// SchemaVersion.
	ErrNewerSchema = errors.New("newer workspace database schema")
	// ErrNoWorkspace: Open with Existing (or ReadOnly) found no such
	// workspace, or no workspace tables at all, and made none.
	ErrNoWorkspace = errors.New("no such workspace")
)

// FS is one workspace of a PostgreSQL database. It is safe for
// concurrent use; Close releases it.
type FS struct {
	now   func() time.Time
	pool  *pgxpool.Pool
	ws    int64  // the workspace's id
	name  string // and name
	trips atomic.Int64

	existing bool   // Open makes neither the tables nor the workspace
	readOnly string // why every change is refused (ReadOnly), "" when none is
	shown    string // the URL without its passwords, for readOnly's message
}

// Option configures Open.
type Option func(*FS)

// WithClock sets the clock that stamps modification times (kept in ms),
// as memfs.WithClock.
func WithClock(now func() time.Time) Option {
	return func(f *FS) { f.now = now }
}

// Existing makes Open open a workspace that exists and make nothing:
// when the database has no workspace tables, or none of that name, Open
// fails with ErrNoWorkspace.
func Existing() Option {
	return func(f *FS) { f.existing = true }
}

// ReadOnly opens the workspace read-only, as Existing does (nothing is
// made), on connections whose transactions are read-only
// (default_transaction_read_only): reads work, and every change (Create,
// Mkdir, Symlink, Remove, RemoveAll, RemoveIf, Chmod, WriteFile,
// WriteFileIf, Update, UpdatePieces) fails, sending nothing to the
// server, with EROFS whose message is toolspec.MsgDatabaseReadOnly,
// naming the URL (without its passwords) and saying it was opened
// read-only on request.
func ReadOnly() Option {
	return func(f *FS) { f.readOnly, f.existing = toolspec.MsgDatabaseReadOnlyRequested, true }
}

// refuseChange is the error of a change to name on a read-only FS, nil
// on another.
func (f *FS) refuseChange(name string) error {
	if f.readOnly == "" {
		return nil
	}
	return &errno.Error{Code: errno.EROFS, Message: toolspec.MsgDatabaseReadOnly(f.shown, f.readOnly), Path: name}
}

// IsURL reports whether s is a PostgreSQL connection URL (postgres:// or
// postgresql://), as the agenttools command tells a --db URL from a file.
func IsURL(s string) bool {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// SplitURL returns the connection URL u without its workspace parameter,
// for pgx (with its scheme in lower case, as pgx wants it), and the
// workspace it names (DefaultWorkspace without one).
// Errors: u is not a PostgreSQL URL, an empty workspace name, one longer
// than 200 bytes, not UTF-8 or holding a NUL, a workspace parameter
// given twice.
func SplitURL(u string) (conn, workspace string, err error) {
	if !IsURL(u) {
		return "", "", fmt.Errorf("pgfs: %q is not a postgres:// URL", redact(u))
	}
	p, err := url.Parse(u)
	if err != nil {
		// url.Parse's error quotes u, or the part it could not read,
		// which may be a piece of the password: not shown.
		return "", "", fmt.Errorf("pgfs: %q is not a URL net/url can read (a '%%', '/', '@', ':' or '[' in the user name or password must be percent-encoded)", redact(u))
	}
	q, err := url.ParseQuery(p.RawQuery)
	if err != nil {
		return "", "", fmt.Errorf("pgfs: %q: parameters: %w", redact(u), err)
	}
	names, ok := q["workspace"]
	if !ok {
		return urlString(p), DefaultWorkspace, nil
	}
	if len(names) != 1 {
		return "", "", fmt.Errorf("pgfs: %q names %d workspaces", redact(u), len(names))
	}
	if err := checkWorkspaceName(names[0]); err != nil {
		return "", "", err
	}
	q.Del("workspace")
	p.RawQuery = q.Encode()
	return urlString(p), names[0], nil
}

// urlString is p as a URL pgx reads. net/url writes an empty authority
// without its "//" ("postgres://?host=/run/postgresql" would become
// "postgres:?host=/run/postgresql", which pgx cannot read), so it is
// put back.
func urlString(p *url.URL) string {
	s := p.String()
	if rest, ok := strings.CutPrefix(s, p.Scheme+":"); ok && !strings.HasPrefix(rest, "//") {
		s = p.Scheme + "://" + rest
	}
	return s
}

// checkWorkspaceName refuses a name no workspace may have.
func checkWorkspaceName(name string) error {
	switch {
	case name == "":
		return errors.New("pgfs: empty workspace name")
	case len(name) > maxWorkspaceName:
		return fmt.Errorf("pgfs: workspace name of %d bytes, longer than %d", len(name), maxWorkspaceName)
	case !utf8.ValidString(name), strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("pgfs: workspace name %q is not UTF-8 text without NUL", name)
	}
	return nil
}

// passwordParam is a password parameter of a connection URL, which pgx
// reads as the password too, or the password of the client's TLS key.
var passwordParam = regexp.MustCompile(`(?i)([?&](?:ssl)?password=)[^&#]*`)

// redact is u with its passwords (of its user part, a password or an
// sslpassword parameter) replaced by xxxxx, for messages: also when u
// is no URL net/url can read, as a password with a stray '%', '/' or
// '@' makes it.
func redact(u string) string {
	if p, err := url.Parse(u); err == nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "xxxxx")
		}
		u = urlString(p)
	} else if scheme := strings.Index(u, "://"); scheme >= 0 {
		// The user part ends at the last '@' and its password starts
		// after its first ':' (net/url reads it so, when it can).
		rest := u[scheme+3:]
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
				u = u[:scheme+3] + rest[:colon+1] + "xxxxx" + rest[at:]
			}
		}
	}
	return passwordParam.ReplaceAllString(u, "${1}xxxxx")
}

// dbName names the database of a connection URL in messages.
func dbName(conn string) string { return redact(conn) }

// Open connects to the database of url (a PostgreSQL connection URL, as
// pgx reads it, with an optional workspace parameter: SplitURL) with a
// pool of its own, creates the tables when the database has none, and
// opens the workspace, creating it when it does not exist: a root
// directory 0o755 holding the directory /workspace (toolspec.WorkspaceRoot)
// 0o755, as sqlitefs makes a new database. With Existing or ReadOnly
// it makes nothing, and fails with ErrNoWorkspace instead.
//
// It looks for the tables and makes them (and the workspace) in one
// transaction under an advisory lock, so concurrent first Opens, in any
// process, make one schema. The first Open of a database needs a role
// allowed to create a schema there (the database's owner, say); later
// ones need only USAGE on schema agenttools, SELECT, INSERT, UPDATE and
// DELETE on its tables and USAGE on its sequences. Errors: SplitURL's,
// the connection's, a privilege the role lacks (the message says which
// it needs), ErrForeign and ErrNewerSchema (the database is left as it
// was), ErrNoWorkspace (with Existing or ReadOnly).
func Open(ctx context.Context, url string, opts ...Option) (*FS, error) {
	conn, name, err := SplitURL(url)
	if err != nil {
		return nil, err
	}
	f := &FS{now: time.Now, name: name, shown: redact(url)}
	for _, o := range opts {
		o(f)
	}
	cfg, err := poolConfig(conn, &f.trips)
	if err != nil {
		return nil, err
	}
	if f.readOnly != "" {
		// A change that got past refuseChange still changes nothing.
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	// The tables are looked for and made on a connection of its own,
	// before the pool's, which prepare the statements on them, exist.
	c, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("pgfs: %s: %w", dbName(conn), err)
	}
	err = f.init(ctx, c, dbName(conn))
	c.Close(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	if f.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("pgfs: %s: %w", dbName(conn), err)
	}
	return f, nil
}

// pingAfter is how long a connection may stay idle before the pool
// checks that it is alive before using it: long enough that a workspace
// in use pays no round trip for it, short enough that a connection a
// restart of the server broke long ago is found without a failed call.
const pingAfter = 30 * time.Second

// idleInTransaction is how long the server lets a session of the store
// sit in a transaction without sending a statement before it ends it:
// the store's transactions send their statements back to back (a slow
// writer's reader is read during COPY, which is not idle), so only a
// client that vanished between a large write's switch, which holds the
// workspace's row, and its COMMIT (a network cut the server's TCP has
// not noticed) is ended so, and the workspace freed after this long
// instead of after TCP's keepalive (hours by default).
var idleInTransaction = "60s"

// connectTimeout bounds the making of a connection (dial, TLS,
// authentication) when the URL sets no connect_timeout (nor the
// environment PGCONNECT_TIMEOUT): pgx would wait as long as ctx lets
// it, and a server behind a firewall that drops packets, or a port
// that accepts and never answers, would hang a caller without a
// deadline (a command) for minutes or for ever.
var connectTimeout = 10 * time.Second

// configure sets up the connections to conn that c makes: the
// timeout connectTimeout unless the connection URL conn or the
// environment sets one (connect_timeout=0, as for libpq, waits for
// ever), and the search path.
//
// The search path is the system's schema alone (pg_temp, last, is
// never searched for functions or operators): the statements and the
// functions of the store name its tables with their schema, and call
// the system's functions by bare name, which PostgreSQL would resolve,
// with the default path ("$user", public), to a function of another
// schema on the path that fits the arguments better (cardinality or
// unnest of bytea[], array_agg of bytea, nextval of text): whoever may
// create in public (anyone, before PostgreSQL 15) would run their code
// with the store's rights at its every write.
func configure(c *pgconn.Config, conn string) {
	c.RuntimeParams["search_path"] = "pg_catalog, pg_temp"
	if c.ConnectTimeout != 0 {
		return
	}
	if _, ok := os.LookupEnv("PGCONNECT_TIMEOUT"); ok {
		return
	}
	if p, err := url.Parse(conn); err == nil && p.Query().Has("connect_timeout") {
		return
	}
	c.ConnectTimeout = connectTimeout
}

// poolConfig is the configuration of a pool on conn whose connections
// count their round trips in trips and have the store's statements
// prepared.
func poolConfig(conn string, trips *atomic.Int64) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(conn)
	if err != nil {
		return nil, fmt.Errorf("pgfs: %s: %w", dbName(conn), err)
	}
	configure(&cfg.ConnConfig.Config, conn)
	cfg.ConnConfig.Tracer = tracer{trips}
	// The mutations rely on READ COMMITTED (see schemaSQL), whatever the
	// database's default.
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
	cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = idleInTransaction
	cfg.AfterConnect = prepare
	// The pool checks that a connection it hands out is alive when it
	// was idle for a while (pgxpool's default: a second; ours: pingAfter),
	// which is a round trip too, that no tracer sees: count it here.
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		if p.IdleDuration > pingAfter {
			trips.Add(1)
			return true
		}
		return false
	}
	return cfg, nil
}

// init makes the tables when there are none and finds or makes the
// workspace, in one transaction under the schema's advisory lock; with
// Existing, only finds the workspace.
func (f *FS) init(ctx context.Context, c *pgx.Conn, db string) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgfs: %s: %w", db, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if !f.existing {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return fmt.Errorf("pgfs: %s: %w", db, err)
		}
	}
	made, err := checkSchema(ctx, tx, db)
	if err != nil {
		return err
	}
	if !made && f.existing {
		return fmt.Errorf("pgfs: %s: workspace %q: %w (the database has no workspace tables)", db, f.name, ErrNoWorkspace)
	}
	if !made {
		if _, err := tx.Exec(ctx, schemaSQL); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == insufficientPrivilege {
				return fmt.Errorf("pgfs: %s: creating the tables: %w (the first use of a database makes them, which needs a role with CREATE on the database: its owner, say)", db, err)
			}
			return fmt.Errorf("pgfs: %s: creating the tables: %w", db, err)
		}
	}
	err = tx.QueryRow(ctx, `SELECT id FROM agenttools.workspace WHERE name = $1`, f.name).Scan(&f.ws)
	if errors.Is(err, pgx.ErrNoRows) && f.existing {
		return fmt.Errorf("pgfs: %s: workspace %q: %w", db, f.name, ErrNoWorkspace)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		now := f.now().UnixMilli()
		err = tx.QueryRow(ctx, `INSERT INTO agenttools.workspace (name, rev, created) VALUES ($1, 1, $2) RETURNING id`, f.name, now).Scan(&f.ws)
		if err == nil {
			_, err = tx.Exec(ctx, `INSERT INTO agenttools.node (ws, path, parent, name, type, mode, mtime, size, rev)
				VALUES ($1, ''::bytea, NULL, ''::bytea, 1, 493, $2, 0, 1), ($1, $3::bytea, ''::bytea, $3::bytea, 1, 493, $2, 0, 1)`,
				f.ws, now, []byte(strings.TrimPrefix(toolspec.WorkspaceRoot, "/")))
		}
	}
	if err != nil {
		return queryError(db, fmt.Errorf("workspace %q: %w", f.name, err))
	}
	if err := tx.Commit(ctx); err != nil {
		return queryError(db, err)
	}
	return nil
}

// Workspace is the name of the workspace f opened.
func (f *FS) Workspace() string { return f.name }

// RoundTrips is how many round trips to the server f has made since it
// was opened: a statement, a batch of statements or a COPY is one, and
// so are a connection's setup (and each statement it prepares, once per
// connection) and the pool's liveness check of an idle connection.
func (f *FS) RoundTrips() int64 { return f.trips.Load() }

// Close releases the pool. Readers still open fail afterwards.
func (f *FS) Close() error {
	f.pool.Close()
	return nil
}

// WorkspaceInfo describes one workspace of a database.
type WorkspaceInfo struct {
	Name string
	// Rev is the workspace's change counter.
	Rev int64
	// Nodes counts its files, directories and links (the root included);
	// Bytes is the total size of its files.
	Nodes, Bytes int64
}

// connect opens one connection to the database of url, for the
// functions that administer workspaces.
func connect(ctx context.Context, u string) (*pgx.Conn, string, error) {
	conn, _, err := SplitURL(u)
	if err != nil {
		return nil, "", err
	}
	cfg, err := pgx.ParseConfig(conn)
	if err != nil {
		return nil, "", fmt.Errorf("pgfs: %s: %w", dbName(conn), err)
	}
	configure(&cfg.Config, conn)
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("pgfs: %s: %w", dbName(conn), err)
	}
	return c, dbName(conn), nil
}

// Workspaces lists the workspaces of the database of url (its workspace
// parameter is ignored), in byte order of their names; none when the
// database has no workspace tables. Errors: the connection's, ErrForeign,
// ErrNewerSchema.
func Workspaces(ctx context.Context, url string) ([]WorkspaceInfo, error) {
	c, db, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	ok, err := checkSchema(ctx, c, db)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := c.Query(ctx, `SELECT w.name, w.rev, count(n.path), coalesce(sum(n.size) FILTER (WHERE n.type = 0), 0)::bigint
		FROM agenttools.workspace w LEFT JOIN agenttools.node n ON n.ws = w.id
		GROUP BY w.id ORDER BY w.name COLLATE "C"`)
	if err != nil {
		return nil, queryError(db, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WorkspaceInfo, error) {
		var w WorkspaceInfo
		err := r.Scan(&w.Name, &w.Rev, &w.Nodes, &w.Bytes)
		return w, err
	})
	if err != nil {
		return nil, queryError(db, err)
	}
	return out, nil
}

// RemoveWorkspace removes the workspace name of the database of url and
// everything in it, in one transaction (the workspace parameter of url is
// ignored). An FS that has it open, in any process, then finds nothing,
// not even its root (every call fails with ENOENT: "no such path: /"),
// and changes nothing; the next Open of that name makes it again, empty.
// Errors: ENOENT when there is no such workspace, the connection's.
func RemoveWorkspace(ctx context.Context, url, name string) error {
	c, db, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	ok, err := checkSchema(ctx, c, db)
	if err != nil {
		return err
	}
	if !ok {
		return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
	}
	err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		var id int64
		// The row lock waits for the workspace's mutations in progress.
		err := tx.QueryRow(ctx, `SELECT id FROM agenttools.workspace WHERE name = $1 FOR UPDATE`, name).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM agenttools.chunk WHERE cid IN
			(SELECT cid FROM agenttools.node WHERE ws = $1 AND cid IS NOT NULL)`, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM agenttools.workspace WHERE id = $1`, id)
		return err
	})
	var e *errno.Error
	if err != nil && !errors.As(err, &e) {
		return queryError(db, err)
	}
	return err
}
