// Package sqlitefs is a vfs.Store (a vfs.Updater and a vfs.RevWriter too)
// kept in one SQLite file, the embedded default workspace: pure Go
// (modernc.org/sqlite), so it needs no C toolchain, and safe for many
// goroutines and several processes sharing one file.
//
// Every node is one row keyed by its store name; a file's content is a
// list of 64 KiB chunks under a content id that is never reused, so a
// reader can tell the content it opened from its replacement. Every
// change to the tree is one short BEGIN IMMEDIATE transaction; WriteFile
// streams its input into a new content id in small transactions of its
// own and only then, in one more, points the file at it, so a slow writer
// never holds the database's write lock for long and a failed or killed
// one leaves the old content. Update (an edit) reads a snapshot, runs its
// function outside any lock, stores the result the same way and switches
// the file over only if its revision did not move meanwhile (EAGAIN
// otherwise), so an edit never holds the write lock while it works. A
// counter in the database numbers the changes: every node a transaction
// changes (and a directory whose entries it changes) gets the counter's
// new value as its Rev.
//
// Speed: a new database has 16 KiB pages and readers map the file into
// memory (see pageSize and readMmap for the numbers): bulk content
// moves in a quarter of the system calls 4 KiB pages take, at the price
// of small changes, one transaction each, writing 16 KiB pages to the
// WAL (removing 1000 files one by one takes 1.8 times as long). A
// database made with 4 KiB pages keeps them. The WAL is copied into the
// database by checkpoints in the background (see checkpointSoon), not in
// the commit of the change that makes it long.
//
// The file's layout is versioned with PRAGMA user_version (see
// SchemaVersion). Open initializes a new or empty file and refuses,
// without changing a byte or creating a file beside it, a file that is
// not an SQLite database, a corrupt one, one of another program, and one
// of a newer layout than this package knows.
//
// Damage to the file is reported, never served (SQLite keeps no
// checksums of its own):
//
//   - every connection runs with PRAGMA cell_size_check on, so a damaged
//     b-tree page fails with SQLITE_CORRUPT instead of silently yielding
//     fewer rows;
//   - every chunk of file content carries a CRC-32C, checked whenever it
//     is read;
//   - every node row carries a CRC-32C of all its columns (path, parent,
//     name, type, mode, mtime, size, link target, revision, content id,
//     count of entries), checked whenever it is read, by a lookup or as
//     an entry of a listing (for which its path is the listed directory's
//     and its name, so an index entry that puts a node in another
//     directory fails too), along with values no workspace writes (a
//     negative size, say); no statement changes a row that fails its
//     checksum, so damage is never sealed under a new one;
//   - every directory counts its entries, and a listing that reaches the
//     end of a directory must find exactly that many, so an entry missing
//     from the index is found;
//   - the counters only grow: a change that would reuse a revision (one
//     not above the revision of the node it changes, or of the directory
//     it adds to) or a content id in use is refused as damage.
//
// Listings of directories, and nodes looked up, are kept between calls,
// as they were read and checked, while the change counter does not move
// (see listings): a walk, a page or a lookup (Lstat, LstatPath) of an
// unchanged tree is served from memory, and damage done to the file
// since, without a change, is found by the next read of the rows, not by
// what is served so. Whether the counter moved is told, without a
// statement, by the header of SQLite's WAL index (the -shm file, mapped
// read-only), which every commit of any process rewrites (see seenRev);
// where it is not mapped (a read-only FS, a system other than Linux), the
// counter is read with a statement.
//
// An operation that meets damage fails with an error that says the
// database is damaged and why and names it (toolspec.MsgDatabaseDamaged,
// errors.Is ErrCorrupt), and the FS then refuses every change.
// agenttools check (Check) runs PRAGMA integrity_check and verifies
// every node, count, counter and chunk. Not found as it happens: damage
// that makes a chunk's index entry lead to another chunk of the same
// length (a chunk's checksum covers its bytes, not its place); damage to
// a column no read uses (a node's parent and name, which a lookup takes
// from its path); damage to the index of listings that leaves every
// listing whole; a change counter that went back but stays above the
// revisions of the nodes each change touches (revisions may then repeat
// across nodes, never at one path, which is what revision checks
// compare); and a content counter that went back but stays at least
// every content id in use (an id handed out and deleted since, a removed
// file's, may then be handed out again). Check finds all of these but the
// last (integrity_check compares every index with its table).
//
// A database this process cannot write (a read-only mount, another
// user's file, a directory where SQLite could not keep its -wal and -shm
// files), or one opened with ReadOnly, is opened read-only: reads work,
// changes fail with EROFS and a message naming the database and why (see
// Open for how it is read without creating a file beside it).
//
// sqlitefs imports vfs, errno, toolspec (the messages a model sees), the
// standard library, golang.org/x/sys/unix and the SQLite driver; it must
// not import core or any adapter.
package sqlitefs

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// SchemaVersion is the layout of the database this package reads and
// writes, kept in PRAGMA user_version. A database with a larger number is
// refused (ErrNewerSchema) and never modified.
//
// Open migrates a database of an older layout, opened writable, to this
// one in one transaction. Layout 1 lacked the chunks' checksums (the
// chunks written before keep none and are read unverified). Layout 2
// lacked the node rows' checksums and the directories' counts of
// entries, and kept the nodes in table node: the migration renames it
// tree, adds both columns and computes them for every row (from the rows
// as they are: damage already there is not found). The new name keeps a
// process of layout 2 that still has the database open from writing rows
// without checksums, which would read as damage: its statements fail
// instead. A read-only FS reads a database of layout 1 or 2 as it is,
// its node rows unverified.
const SchemaVersion = 3

const (
	// chunkSize is the length in bytes of every chunk of a file's
	// content but its last, which holds the rest (1 to chunkSize bytes).
	chunkSize = 64 << 10
	// batchChunks is how many full chunks WriteFile holds in memory, at
	// most, before it writes them in one transaction (1 MiB), which it
	// does once the chunk after them is full too.
	batchChunks = 16
	// flushEvery is how long WriteFile keeps full chunks in memory
	// before writing them, however few: a slow writer's data reaches the
	// database steadily.
	flushEvery = time.Second
	// touchEvery is how often a WriteFile still streaming marks its
	// content as alive, so that no Open collects it.
	touchEvery = time.Minute
	// defaultGCAge is how long content that no file refers to is kept
	// before Open collects it: longer than touchEvery by far, so the
	// content of a write still streaming, in any process, is never
	// collected.
	defaultGCAge = 15 * time.Minute
	// busyTimeout is how long a statement waits for a lock another
	// connection (of this process or another one) holds, in ms.
	busyTimeout = 10000
	// readConns bounds the pool of reading connections.
	readConns = 8
	// pageSize is the page size in bytes of a database Open creates (one
	// it finds keeps its own): SQLite reads and writes a page per system
	// call, and a chunk fills a chain of pages, so larger pages move
	// bulk content in fewer calls. Measured against 4 KiB pages
	// (storebench and the bench driver's rows, 2 CPUs, interleaved
	// runs): writing 64 MiB takes 0.7 times as long, writing 1 MiB 0.65,
	// an exec whose 5 MB of output is kept in a file 0.25 to 0.45, an
	// edit of 2 MB 0.65. The price is paid by small changes made one
	// transaction each, which write their few pages, each 16 KiB, to the
	// WAL: removing 1000 files one by one takes 1.8 times as long (about
	// twice hostfs's unlink(2) calls), creating them 1.9 times (still
	// half of hostfs's); one transaction for many changes (a recursive
	// delete of 1000 files) is not slower. 8 KiB pages sit between the
	// two.
	pageSize = 16 << 10
	// readMmap is how many bytes of the database file each reading
	// connection maps into memory (PRAGMA mmap_size): a page inside that
	// is read without a system call and a copy, which makes reading
	// 64 MiB 1.3 to 2 times as fast. 0 (off) where addresses are 32 bits:
	// eight connections' maps would not fit. Writes and the WAL are not
	// mapped (a page still in the WAL is read with a system call), and
	// the read-only FS, which may read a file other programs change,
	// does not map.
	readMmap = (strconv.IntSize / 64) << 30
)

// The kinds of node, as stored in node.type. They are the database's
// own numbers, independent of vfs.FileType's.
const (
	dbFile    = 1
	dbDir     = 2
	dbSymlink = 3
)

// schema creates the tables of an empty database; the caller sets
// user_version and inserts the root and the counters in the same
// transaction.
//
//   - meta holds two counters: 'rev', the change counter, and 'content',
//     the last content id handed out (ids are never reused). Both only
//     grow: every revision and content id in use is at most their value.
//   - tree holds the nodes: path is the store name ("" the root), parent
//     the path of the directory holding it (NULL for the root), name the
//     last element. Text compares with the BINARY collation, so listings
//     come in raw byte order of names and a subtree is the range of paths
//     [p+"/", p+"0"). mode is the permission bits, mtime ms since 1970,
//     size the file's length in bytes (a link's target length in UTF-16
//     code units), target a link's target, rev the counter's value when
//     the node last changed, cid the file's content (NULL when empty),
//     entries how many nodes a directory holds (0 for others), sum the
//     CRC-32C of all the row's other columns (see sumFunc), checked
//     whenever a row is read.
//   - content lists the contents: created is the wall-clock time in ms it
//     was created, touched the time its writer last stored chunks, or
//     NULL once a file refers to it. Content whose touched is old is what
//     a failed or killed write left: garbage.
//   - chunk holds the bytes: chunk idx of content cid is bytes
//     [idx*64 KiB, (idx+1)*64 KiB) of the file; sum is the CRC-32C
//     (Castagnoli) of data, checked on every read, NULL for a chunk a
//     layout-1 program wrote (not checked).
const schema = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE tree (
	path    TEXT PRIMARY KEY,
	parent  TEXT,
	name    TEXT NOT NULL,
	type    INTEGER NOT NULL,
	mode    INTEGER NOT NULL,
	mtime   INTEGER NOT NULL,
	size    INTEGER NOT NULL DEFAULT 0,
	target  TEXT NOT NULL DEFAULT '',
	rev     INTEGER NOT NULL,
	cid     INTEGER,
	entries INTEGER NOT NULL DEFAULT 0,
	sum     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE UNIQUE INDEX node_parent_name ON tree (parent, name);
CREATE TABLE content (
	id      INTEGER PRIMARY KEY,
	created INTEGER NOT NULL,
	touched INTEGER
);
CREATE INDEX content_pending ON content (touched) WHERE touched IS NOT NULL;
CREATE TABLE chunk (
	cid  INTEGER NOT NULL,
	idx  INTEGER NOT NULL,
	data BLOB NOT NULL,
	sum  INTEGER,
	PRIMARY KEY (cid, idx)
);
`

// migrate1 turns a layout-1 database into one of layout 2, migrate2 one
// of layout 2 into this layout; the caller sets user_version in the same
// transaction.
const (
	migrate1 = `ALTER TABLE chunk ADD COLUMN sum INTEGER`
	migrate2 = `
ALTER TABLE node RENAME TO tree;
ALTER TABLE tree ADD COLUMN entries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tree ADD COLUMN sum INTEGER NOT NULL DEFAULT 0;
UPDATE tree SET entries = (SELECT count(*) FROM tree AS e WHERE e.parent = tree.path) WHERE type = 2; -- dbDir
UPDATE tree SET sum = ` + sumOf + `;
`
)

// workspaceDir is the store name of the directory a new database is
// made with besides its root: toolspec.WorkspaceRoot, the directory the tools
// work in by default.
var workspaceDir = strings.TrimPrefix(toolspec.WorkspaceRoot, "/")

// castagnoli is the table of the chunks' checksums (CRC-32C).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// chunkSum is the checksum stored with a chunk of data.
func chunkSum(data []byte) int64 { return int64(crc32.Checksum(data, castagnoli)) }

// connParams are the parameters of every connection. cell_size_check
// makes SQLite check each b-tree page's cells as it reads the page, so a
// page damaged on disk fails with SQLITE_CORRUPT instead of yielding
// fewer rows.
var connParams = []string{"_pragma=cell_size_check(1)"}

// tables are the tables a database of this layout has, tables2 those of
// layouts 1 and 2.
var (
	tables  = []string{"chunk", "content", "meta", "tree"}
	tables2 = []string{"chunk", "content", "meta", "node"}
)

// Errors of Open, for errors.Is. The errors Open returns carry a message
// that names the file and says why. ErrCorrupt is also in the chain of
// every error of an FS that met damage (see FS).
var (
	// ErrNotDatabase: the file is not an SQLite database.
	ErrNotDatabase = errors.New("not an SQLite database")
	// ErrCorrupt: the file is an SQLite database SQLite cannot read.
	ErrCorrupt = errors.New("corrupt SQLite database")
	// ErrForeign: an SQLite database of another program.
	ErrForeign = errors.New("not a workspace database")
	// ErrNewerSchema: a workspace database of a later layout than
	// SchemaVersion.
	ErrNewerSchema = errors.New("newer workspace database schema")
)

// openError is a refusal of Open: its message, and the sentinel it is.
type openError struct {
	msg  string
	kind error
	err  error
}

func (e *openError) Error() string { return e.msg }

func (e *openError) Is(target error) bool { return target == e.kind }

func (e *openError) Unwrap() error { return e.err }

// FS is a workspace tree in an SQLite file. Close releases it.
//
// A read-only FS (see Open) answers every change with EROFS whose
// message is toolspec.MsgDatabaseReadOnly, naming the file and why it is
// read-only.
//
// An FS that meets damage (SQLite finds the file corrupt; a chunk of
// file content fails its checksum or is missing; a node's row fails its
// checksum or holds an impossible value; a listing does not match its
// directory's count of entries; a counter is behind the numbers it
// handed out) fails that operation with an EIO *errno.Error whose
// message is toolspec.MsgDatabaseDamaged and whose chain holds ErrCorrupt, and
// from then on refuses every change with that error, so nothing more is
// written into a database known to be damaged. agenttools check examines
// such a file.
type FS struct {
	path  string // as given to Open, for messages
	abs   string // absolute, for the model's messages
	w     *pool  // writes: one connection, transactions BEGIN IMMEDIATE; nil when read-only
	r     *pool  // reads
	now   func() time.Time
	gcAge time.Duration

	// readOnly is why the FS is read-only (a toolspec.MsgDatabase* reason),
	// "" when it is not; canWrite whether this process may write the file
	// and its directory.
	readOnly string
	canWrite bool
	// snap watches the file while the FS reads it immutable (read-only
	// FS only).
	snap *snapshot
	// file is the database file (abs with links resolved); use the lock
	// on it that tells Discard another FS has it open (nil where there
	// is none). created says this FS made the database (see Discard):
	// then version was PRAGMA data_version on conn, the driver's
	// connection of the writing pool, as it made it.
	file    string
	use     *useLock
	created *creation
	// opened records that this FS has file open, for the descriptors of it
	// that must outlive this FS's own (see closeFile).
	opened *openFile

	// damage is the first damage an operation met, nil while none was.
	damage atomic.Pointer[damage]

	// chunkReads counts the chunks readers fetched (for tests).
	chunkReads atomic.Int64

	// listings keeps directory listings and nodes (see listings).
	listings listings

	// wal is the WAL index's header mapped (nil when it is not: a
	// read-only FS, a system other than Linux), which tells whether a change
	// was committed since seen was read (see seenRev). ckpt holds a
	// reading connection open until Close, so that SQLite never removes
	// or starts that index over while it is mapped (it does only when no
	// connection has the database open), and runs checkpoints on it.
	wal  atomic.Pointer[walIndex]
	seen atomic.Pointer[seenRev]
	ckpt checkpointer
}

var (
	_ vfs.Store     = (*FS)(nil)
	_ vfs.Updater   = (*FS)(nil)
	_ vfs.RevWriter = (*FS)(nil)
)

// Option configures Open.
type Option func(*FS)

// WithClock sets the clock that stamps modification times (kept in ms,
// the sub-millisecond part dropped), as memfs.WithClock. It does not
// affect the age of garbage, which is measured with the wall clock.
func WithClock(now func() time.Time) Option {
	return func(f *FS) { f.now = now }
}

// ReadOnly opens the database read-only, as Open does on its own when
// this process cannot write the file or its directory (see Open): the FS
// reads and refuses every change. A database that does not exist is not
// created.
func ReadOnly() Option {
	return func(f *FS) { f.readOnly = toolspec.MsgDatabaseReadOnlyRequested }
}

// withGCAge sets how old unreferenced content must be before Open
// collects it (tests).
func withGCAge(d time.Duration) Option {
	return func(f *FS) { f.gcAge = d }
}

// Open opens the workspace database at path, creating and initializing
// it when the file does not exist or is empty: a root directory 0o755
// holding the directory /workspace (toolspec.WorkspaceRoot) 0o755, empty, the
// tools' default directory. A database that exists is left as it is,
// with or without /workspace. The directory holding path must exist.
//
// When this process cannot write the file or its directory (a read-only
// mount, or permissions: SQLite needs to create its -wal and -shm files
// beside the database), or with the ReadOnly option, Open opens it
// read-only (see ReadOnly and FS.ReadOnly): reads work, every change
// fails with EROFS and the message toolspec.MsgDatabaseReadOnly saying why,
// and nothing is collected or migrated. How it reads: while a writer has
// the database open (its -wal and -shm files beside it), through SQLite's
// shared memory, seeing every commit; otherwise the file alone, opened
// immutable, so that reading it creates no file beside it (a directory
// this process cannot write could not hold one). Immutable means SQLite
// takes no lock and trusts that nobody writes the file: every operation
// first checks that the file is as it was (its identity, size and
// modification time) and that no -wal file appeared, and when either
// changed, opens the database again in whichever way now fits, so a
// later writer's commits are seen; on Linux it also holds the shared lock
// SQLite's readers hold, so that a writer that closes leaves its -wal
// rather than rewriting the file under it. (A writer that checkpoints a
// long WAL, 1000 pages, while an operation reads the file alone can still
// fail that one operation, saying the database changed while it was
// read.) A database with a -wal but no -shm
// file in a directory this process cannot write cannot be read (SQLite
// would need to create the -shm): Open says so and how to fix it. A file
// that does not exist in a directory this process cannot write is not
// created: Open says why.
//
// Open refuses, and leaves byte-identical with no file created beside
// it: a file that does not start with the 16-byte SQLite header
// (ErrNotDatabase), a database SQLite finds corrupt (ErrCorrupt), an
// SQLite database of another program (ErrForeign), and a workspace
// database whose schema version is newer than SchemaVersion
// (ErrNewerSchema). Corruption deep inside a database SQLite has not read
// yet shows later, as the damaged error of the operations that meet it
// (see FS). A database of layout 1 is migrated (see SchemaVersion).
//
// Open also collects the content of writes that failed or were killed
// (unreferenced content untouched for 15 minutes).
//
// On Linux, the FS holds a lock on the file until Close (a read lock, on
// a byte SQLite never locks), which tells another FS's Discard that the
// database is in use; Open waits while a Discard removes the file, and
// then opens (and makes) the database at path anew.
func Open(path string, opts ...Option) (*FS, error) {
	f := &FS{path: path, now: time.Now, gcAge: defaultGCAge}
	for _, o := range opts {
		o(f)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f.abs = abs
	// Through a link, the database is the file it names: its -wal and
	// -shm files are beside that file, not beside the link.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if err := f.precheck(abs); err != nil {
		return nil, err
	}
	ctx := context.Background()
	why := notWritable(abs)
	if f.canWrite = why == ""; f.readOnly == "" {
		f.readOnly = why
	}
	// Held before SQLite opens the file, and until the FS is closed: a
	// Discard elsewhere removes no database this FS has open.
	if f.use, err = holdUse(abs, f.readOnly == ""); err != nil {
		return nil, err
	}
	f.opened = useFile(abs)
	f.file = abs
	if f.readOnly != "" {
		if err := f.openReadOnly(ctx, abs); err != nil {
			f.closeUse()
			return nil, err
		}
		return f, nil
	}
	// The writing pool has one connection: the writers of this process
	// queue for it (honouring their contexts) instead of polling SQLite's
	// lock, and every transaction on it begins IMMEDIATE, taking the
	// write lock at once, so a read-modify-write never has to be retried.
	wdb, err := sql.Open("sqlite", dsn(abs,
		"_pragma=busy_timeout("+fmt.Sprint(busyTimeout)+")",
		"_pragma=synchronous(NORMAL)",
		"_txlock=immediate"))
	if err != nil {
		return nil, err
	}
	wdb.SetMaxOpenConns(1)
	rdb, err := sql.Open("sqlite", dsn(abs,
		"_pragma=busy_timeout("+fmt.Sprint(busyTimeout)+")",
		"_pragma=query_only(1)",
		"_pragma=mmap_size("+fmt.Sprint(readMmap)+")"))
	if err != nil {
		wdb.Close()
		f.closeUse()
		return nil, err
	}
	rdb.SetMaxOpenConns(readConns)
	rdb.SetMaxIdleConns(readConns)
	err = f.initialize(ctx, wdb)
	if err == nil {
		f.w, err = newPool(ctx, wdb, true)
	}
	if err == nil {
		f.r, err = newPool(ctx, rdb, false)
	}
	if err != nil {
		rdb.Close()
		wdb.Close()
		f.closeUse()
		var oe *openError
		if !errors.As(err, &oe) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	// Collecting garbage is housekeeping: a database another process
	// keeps busy for longer than the busy timeout is still opened.
	_ = f.collect(ctx)
	f.mapWAL(ctx, rdb, abs)
	return f, nil
}

// mapWAL maps the WAL index of the database at abs (see FS.wal) once a
// connection of db that holds it open has read the database, and then
// leaves checkpoints to the background (see checkpointSoon); without
// it, the change counter is read with a statement every time, and the
// writing connection makes SQLite's checkpoints itself.
func (f *FS) mapWAL(ctx context.Context, db *sql.DB, abs string) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	var rev int64
	if err := conn.QueryRowContext(ctx, qRev).Scan(&rev); err == nil {
		if w := mapWALIndex(abs); w != nil {
			f.wal.Store(w)
			f.ckpt.conn = conn
			_, _ = f.w.db().ExecContext(ctx, fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, writerCkptFrames))
			return
		}
	}
	conn.Close()
}

// unpin releases the connection mapWAL holds, once a checkpoint running
// on it is done, and the WAL index, which no longer tells anything once
// this FS's connections are closed (it is unmapped once unreachable).
func (f *FS) unpin() error {
	f.wal.Store(nil)
	f.ckpt.mu.Lock()
	defer f.ckpt.mu.Unlock()
	conn := f.ckpt.conn
	f.ckpt.conn = nil
	if conn == nil {
		return nil
	}
	return conn.Close()
}

// dsn is the driver's name of the database file at the absolute path
// abs: a file: URI (so that SQLite's own parameters, such as immutable,
// apply) with params.
func dsn(abs string, params ...string) string {
	params = append(slices.Clip(connParams), params...)
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: strings.Join(params, "&")}
	return u.String()
}

// closeUse releases the FS's own lock on its file and then its record of
// having the file open, the connections closed already.
// A second call does nothing.
func (f *FS) closeUse() error {
	err := errors.Join(f.use.Close(), f.opened.release())
	f.opened = nil
	return err
}

// Close releases the database. Readers still open fail afterwards.
func (f *FS) Close() error {
	err := errors.Join(f.unpin(), f.r.Close(), f.w.Close())
	if f.snap != nil {
		f.snap.close()
	}
	// Last: closing a descriptor of the file releases the POSIX locks
	// SQLite's connections in this process hold on it.
	f.closeUse()
	return err
}

func (f *FS) refuse(kind error, err error, format string, args ...any) error {
	return &openError{msg: f.path + ": " + fmt.Sprintf(format, args...), kind: kind, err: err}
}

func (f *FS) corrupt(err error) error {
	return f.refuse(ErrCorrupt, err, "the workspace database is corrupt (%s); refusing to use it", sqliteReason(err))
}

// sqliteReason is SQLite's words for the failure err, such as "the
// database disk image is malformed", or err's text.
func sqliteReason(err error) string {
	reason := err.Error()
	var se *sqlite.Error
	if errors.As(err, &se) {
		reason = sqlite.ErrorCodeString[se.Code()&0xff]
		if i := strings.Index(reason, " ("); i > 0 {
			reason = reason[:i]
		}
	}
	return strings.ToLower(reason)
}

// damage is an operation's finding that the database is damaged: reason
// is what is given with toolspec.MsgDatabaseDamaged; err is SQLite's error,
// if any. Its chain holds ErrCorrupt.
type damage struct {
	reason string
	err    error
}

func (d *damage) Error() string { return d.reason }

func (d *damage) Is(target error) bool { return target == ErrCorrupt }

func (d *damage) Unwrap() error { return d.err }

// damaged records d as damage this FS met (the first one is kept, and
// refuses every later change) and returns the error of the operation on
// name that met it.
func (f *FS) damaged(name string, d *damage) error {
	f.damage.CompareAndSwap(nil, d)
	return &errno.Error{Code: errno.EIO, Message: toolspec.MsgDatabaseDamaged(f.abs, d.reason), Path: name, Err: d}
}

// refuseChange is the error of a change to name when none may be made:
// EROFS on a read-only FS, the damage met before, or nil.
func (f *FS) refuseChange(name string) error {
	if f.readOnly != "" {
		return &errno.Error{Code: errno.EROFS, Message: toolspec.MsgDatabaseReadOnly(f.abs, f.readOnly), Path: name}
	}
	if d := f.damage.Load(); d != nil {
		return f.damaged(name, d)
	}
	return nil
}

// isCorrupt reports whether err is SQLite's finding that a file is no
// database or a damaged one.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// isConstraint reports whether err is SQLite's SQLITE_CONSTRAINT.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// precheck refuses an existing, non-empty file that is no workspace
// database of a layout this package knows, without changing it: it reads
// the header itself, then asks SQLite through an immutable read-only
// connection, which takes no lock and creates no file beside the
// database.
//
// When a -wal or -journal file lies beside the database, a connection
// has it open (or a process died with one) and the main file alone may
// be stale or half written, so the checks are left to initialize, which
// reads through a normal connection.
func (f *FS) precheck(abs string) error {
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return f.refuse(ErrNotDatabase, nil, "a directory, not a workspace database file")
	}
	if !fi.Mode().IsRegular() {
		return f.refuse(ErrNotDatabase, nil, "not a regular file (a device, pipe or socket), not a workspace database file")
	}
	if fi.Size() == 0 {
		return nil
	}
	file, err := os.Open(abs)
	if err != nil {
		return err
	}
	head := make([]byte, 100)
	n, err := io.ReadFull(file, head)
	closeFile(file)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if !bytes.HasPrefix(head[:n], []byte(sqliteHeader)) {
		return f.refuse(ErrNotDatabase, nil, "not an SQLite database (it does not start with the SQLite header); refusing to use it as a workspace")
	}
	if n < len(head) {
		return f.refuse(ErrCorrupt, nil, "the workspace database is corrupt (shorter than the SQLite header); refusing to use it")
	}
	if inUse(abs) {
		return nil
	}
	db, err := sql.Open("sqlite", dsn(abs, "mode=ro", "immutable=1"))
	if err != nil {
		return err
	}
	defer db.Close()
	err = f.checkVersion(context.Background(), db)
	var oe *openError
	switch {
	case err != nil && (inUse(abs) || changedSince(abs, fi)):
		// Another process wrote the file while it was read (one creating
		// it, say): what was read may be half of its change. The checks
		// are left to initialize, which reads through SQLite's locks.
		return nil
	case err != nil && !errors.As(err, &oe):
		return fmt.Errorf("%s: %w", f.path, err)
	}
	return err
}

// changedSince reports whether the file at abs is no longer as before
// described it: another inode, another size, or modified since.
func changedSince(abs string, before fs.FileInfo) bool {
	now, err := os.Stat(abs)
	return err != nil || !os.SameFile(now, before) || now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime())
}

// inUse reports whether a WAL or a rollback journal lies beside the
// database.
func inUse(abs string) bool {
	for _, suffix := range []string{"-wal", "-journal"} {
		if _, err := os.Lstat(abs + suffix); err == nil {
			return true
		}
	}
	return false
}

// checkVersion reads the schema version and the tables through q and
// refuses what is no workspace database of a layout this package knows.
// It returns nil for a workspace database of a layout from 1 to
// SchemaVersion and for an empty one (version 0, no tables).
func (f *FS) checkVersion(ctx context.Context, q querier) error {
	version, names, err := readVersion(ctx, q)
	if isCorrupt(err) {
		return f.corrupt(err)
	}
	if err != nil {
		return err
	}
	switch {
	case version > SchemaVersion:
		return f.refuse(ErrNewerSchema, nil, "workspace database schema version %d is newer than this program's (%d)", version, SchemaVersion)
	case version == 0 && len(names) == 0:
		return nil
	case version >= 1 && slices.Equal(names, tablesOf(version)):
		// This layout, or one Open migrates.
		return nil
	case version >= 1:
		return f.corrupt(fmt.Errorf("it has the tables %q, want %q", names, tablesOf(version)))
	}
	return f.refuse(ErrForeign, nil, "an SQLite database that is not an agenttools workspace (schema version %d, tables %q); refusing to use it", version, names)
}

// tablesOf are the tables of a database of layout version.
func tablesOf(version int) []string {
	if version < 3 {
		return tables2
	}
	return tables
}

// readVersion reads the schema version and the names of the tables in
// one statement, so both come from one snapshot of the database: two
// statements could straddle another process's creation of the schema
// and see its tables without its version.
func readVersion(ctx context.Context, q querier) (version int, names []string, err error) {
	var list sql.NullString
	err = q.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version),
		(SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name))`).Scan(&version, &list)
	if err != nil {
		return 0, nil, err
	}
	if list.String != "" {
		names = strings.Split(list.String, ",")
	}
	return version, names, nil
}

// initialize checks the database through the writing connection, which
// reads the WAL too, and creates the schema in an empty one, or migrates
// one of an older layout, in one transaction, so that of processes
// initializing one file at once exactly one does it. It then turns WAL on
// (a no-op when it is already).
func (f *FS) initialize(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := f.checkVersion(ctx, conn); err != nil {
		return err
	}
	version, made := 0, false
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version < SchemaVersion {
		if version == 0 {
			// Takes effect only on a database with no page yet.
			if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA page_size = %d`, pageSize)); err != nil {
				return err
			}
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := f.checkVersion(ctx, tx); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		if err := f.upgrade(ctx, tx, version); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		made = version == 0
	}
	if err := f.turnWALOn(ctx, conn); err != nil {
		return err
	}
	if made {
		// After WAL is on: turning it on resets what data_version reads.
		f.created, err = creationOf(ctx, conn)
	}
	return err
}

// turnWALOn switches the database to WAL. Of processes opening a new
// database at once, one switches it; the others may find the database
// locked meanwhile (SQLite does not wait for that lock), and try again
// until it is done or the busy timeout has passed.
func (f *FS) turnWALOn(ctx context.Context, conn *sql.Conn) error {
	deadline := time.Now().Add(busyTimeout * time.Millisecond)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("%s: journal mode is %q, want wal", f.path, mode)
		case !isBusy(err) || time.Now().After(deadline):
			return fmt.Errorf("%s: turning WAL on: %w", f.path, err)
		}
		if err := vfs.Wait(ctx, wait); err != nil {
			return err
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// upgrade brings a database of layout version (0: an empty file) to
// SchemaVersion in tx.
func (f *FS) upgrade(ctx context.Context, tx *sql.Tx, version int) error {
	switch version {
	case SchemaVersion:
		return nil
	case 0:
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('rev', 1), ('content', 0)`); err != nil {
			return err
		}
		// The root, holding the workspace directory (/workspace, where the
		// tools work by default), both of revision 1.
		now := f.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO tree (path, parent, name, type, mode, mtime, rev, entries, sum)
			VALUES ('', NULL, '', ?1, ?2, ?3, 1, 1, `+sumFunc+`('', NULL, '', ?1, ?2, ?3, 0, '', 1, NULL, 1))`,
			dbDir, 0o755, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tree (path, parent, name, type, mode, mtime, rev, sum)
			VALUES (?1, '', ?1, ?2, ?3, ?4, 1, `+sumFunc+`(?1, '', ?1, ?2, ?3, ?4, 0, '', 1, NULL, 0))`,
			workspaceDir, dbDir, 0o755, now); err != nil {
			return err
		}
	case 1, 2:
		steps := []string{migrate2}
		if version == 1 {
			steps = []string{migrate1, migrate2}
		}
		for _, stmt := range steps {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion))
	return err
}

// collect deletes content no file refers to whose writer has not
// touched it for gcAge: what failed or killed writes left behind.
func (f *FS) collect(ctx context.Context) error {
	before := time.Now().Add(-f.gcAge).UnixMilli()
	return f.write(ctx, "", func(t *wtx) error {
		if _, err := t.ExecContext(ctx, qDelGarbageChunks, before); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, qDelGarbageContent, before)
		return err
	})
}

func (f *FS) stamp() int64 { return f.now().UnixMilli() }

// wtx is a write transaction (BEGIN IMMEDIATE).
type wtx struct {
	*tx
	ctx context.Context
	now int64 // the mtime of what the transaction changes
	rev int64 // the counter's new value, 0 until bump
}

// bump increments the change counter once per transaction and returns
// its new value, the Rev of every node the transaction changes.
func (t *wtx) bump() (int64, error) {
	if t.rev == 0 {
		err := t.QueryRowContext(t.ctx, qBump).Scan(&t.rev)
		if err == sql.ErrNoRows {
			// The counter is gone.
			err = errCounter
		}
		if err != nil {
			return 0, err
		}
	}
	return t.rev, nil
}

// write runs fn, about name, in one write transaction and commits it when fn returns
// nil. fn's error is returned as is; a database failure as an
// *errno.Error; a done context as ctx.Err(). Once the FS met damage, it
// refuses, running nothing.
func (f *FS) write(ctx context.Context, name string, fn func(t *wtx) error) error {
	if err := f.refuseChange(name); err != nil {
		return err
	}
	tx, err := f.w.begin(ctx)
	if err != nil {
		return f.fail(ctx, name, err)
	}
	// Rolls back when fn fails or panics; a no-op after Commit.
	defer tx.Rollback()
	t := &wtx{tx: tx, ctx: ctx, now: f.stamp()}
	if err := fn(t); err != nil {
		return f.fail(ctx, name, err)
	}
	if err := tx.Commit(); err != nil {
		return f.fail(ctx, name, err)
	}
	f.checkpointSoon()
	return nil
}

// passErr carries an error of Update's fn or of WriteFile's reader
// through fail unchanged.
type passErr struct{ err error }

func (e passErr) Error() string { return e.err.Error() }

// fail turns a failure into the store's error: *errno.Error values and
// passErr pass unchanged; a done context is ctx.Err(); damage (a
// *damage, SQLite's SQLITE_CORRUPT or SQLITE_NOTADB) is the damaged
// error, and refuses every later change; SQLite's other failures get a
// code (EBUSY when the database stayed locked for the busy timeout,
// ENOSPC, EROFS, EIO otherwise).
func (f *FS) fail(ctx context.Context, name string, err error) error {
	if err == nil {
		return nil
	}
	var pe passErr
	if errors.As(err, &pe) {
		return pe.err
	}
	var ee *errno.Error
	if errors.As(err, &ee) {
		if ee.Path == "" {
			ee.Path = name
		}
		return ee
	}
	var d *damage
	if errors.As(err, &d) {
		return f.damaged(name, d)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isCorrupt(err) {
		if f.snap != nil && f.snap.changed() {
			// Read immutable while another process wrote it: no damage.
			return &errno.Error{Code: errno.EIO, Message: toolspec.MsgReasonDatabaseChanged, Path: name, Err: err}
		}
		return f.damaged(name, &damage{reason: sqliteReason(err), err: err})
	}
	code, msg := errno.EIO, err.Error()
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			code, msg = errno.EBUSY, toolspec.MsgReasonDatabaseLocked
		case sqlite3.SQLITE_FULL:
			code, msg = errno.ENOSPC, toolspec.MsgReasonNoSpace
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			code, msg = errno.EROFS, toolspec.MsgReasonDatabaseReadOnly
		}
	}
	return &errno.Error{Code: code, Message: msg, Path: name, Err: err}
}
