package sqlitefs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/agenttools/agenttools/toolspec"
)

// ReadOnly reports whether the FS is read-only: opened with the ReadOnly
// option, or on a file this process cannot write (see Open).
func (f *FS) ReadOnly() bool { return f.readOnly != "" }

// layout2 are the statements a read-only FS runs on a database of
// layout 2, which it does not migrate, in place of the store's reading
// ones: its node rows are in table node and have neither checksums nor
// counts of entries (NULL in their place, read unsummed). layout1 are
// those of layout 1, whose chunks have no checksum either.
var (
	layout2 = map[string]string{
		qNode: `SELECT type, mode, mtime, size, target, rev, cid, NULL, NULL FROM node WHERE path = ?`,
		qDirPage: `SELECT 0, name, type, mode, mtime, size, target, rev, cid, NULL, NULL FROM node WHERE path = ?1 UNION ALL
			SELECT * FROM (SELECT 1, name, type, mode, mtime, size, target, rev, cid, NULL, NULL FROM node WHERE parent = ?1 ORDER BY name LIMIT ?2 OFFSET ?3)`,
		qDirAfter: `SELECT 0, name, type, mode, mtime, size, target, rev, cid, NULL, NULL FROM node WHERE path = ?1 UNION ALL
			SELECT * FROM (SELECT 1, name, type, mode, mtime, size, target, rev, cid, NULL, NULL FROM node WHERE parent = ?1 AND name > ?2 ORDER BY name LIMIT ?3)`,
		qNodeChunk: `SELECT t.type, t.mode, t.mtime, t.size, t.target, t.rev, t.cid, NULL, NULL, ` + chunkInto + `(?3, c.idx, c.data), c.sum FROM node AS t LEFT JOIN chunk AS c ON c.cid = t.cid AND c.idx = ?2 WHERE t.path = ?1`,
		qPath:      `SELECT path, type, mode, mtime, size, target, rev, cid, NULL, NULL, -1 FROM node WHERE path IN (` + slots(pathSlots) + `)`,
		// No listing is kept (see listings): its rows are unchecked.
		qRev:     `SELECT -1`,
		qNodeRev: `SELECT type, mode, mtime, size, target, rev, cid, NULL, NULL, -1 FROM node WHERE path = ?`,
	}
	layout1 = map[string]string{
		qNode:       layout2[qNode],
		qDirPage:    layout2[qDirPage],
		qDirAfter:   layout2[qDirAfter],
		qPath:       layout2[qPath],
		qRev:        layout2[qRev],
		qNodeRev:    layout2[qNodeRev],
		qNodeChunk:  `SELECT t.type, t.mode, t.mtime, t.size, t.target, t.rev, t.cid, NULL, NULL, ` + chunkInto + `(?3, c.idx, c.data), NULL FROM node AS t LEFT JOIN chunk AS c ON c.cid = t.cid AND c.idx = ?2 WHERE t.path = ?1`,
		qChunks:     `SELECT idx, ` + chunkInto + `(?2, idx, data), NULL FROM chunk WHERE cid = ?1 ORDER BY idx`,
		qChunkRange: `SELECT idx, ` + chunkInto + `(?4, idx, data), NULL FROM chunk WHERE cid = ?1 AND idx >= ?2 AND idx < ?3 ORDER BY idx`,
	}
)

// holdSharedLock is holdShared, or a stand-in (tests).
var holdSharedLock = holdShared

// openReadOnly opens the reading pool of a read-only FS on the database
// at abs; the FS has no writing pool.
func (f *FS) openReadOnly(ctx context.Context, abs string) error {
	fi, err := os.Stat(abs)
	switch dir := filepath.Dir(abs); {
	case errors.Is(err, fs.ErrNotExist) && f.readOnly == toolspec.MsgDatabaseReadOnlyRequested:
		return f.refuse(fs.ErrNotExist, err, "no such workspace database (opened read-only, it is not created)")
	case errors.Is(err, fs.ErrNotExist) && f.readOnly == toolspec.MsgDatabaseMountReadOnly:
		return f.refuse(fs.ErrNotExist, err, "no such workspace database, and it cannot be created: %s is on a read-only mount; choose a path on a writable file system", dir)
	case errors.Is(err, fs.ErrNotExist):
		return f.refuse(fs.ErrNotExist, err, "no such workspace database, and it cannot be created: this user may not create files in %s; choose a directory this user can write, or have the database created by a user who can", dir)
	case err != nil:
		return err
	case fi.Size() == 0:
		return fmt.Errorf("%s: an empty file, not a workspace database yet, and this process may not make it one (%s)", f.path, f.readOnly)
	}
	c, at, lock, err := f.openReader(ctx, abs)
	if err != nil {
		return err
	}
	f.r = &pool{}
	f.r.cur.Store(c)
	f.snap = &snapshot{abs: abs, lock: lock}
	f.snap.at.Store(at)
	return nil
}

// openReader opens and prepares the reading connections of a read-only
// FS on the database at abs. While a writer has the database open (a
// -wal file beside it), they read through SQLite's shared memory
// (mode=ro), which needs the -shm file or the right to create it.
// Otherwise they read the file alone, immutable: at is the stamp of the
// file they read, and lock the lock of holdShared (both nil in the first
// case).
func (f *FS) openReader(ctx context.Context, abs string) (c *conns, at *stamp, lock io.Closer, err error) {
	params := []string{"_pragma=busy_timeout(" + fmt.Sprint(busyTimeout) + ")", "_pragma=query_only(1)", "mode=ro"}
	if !exists(abs + "-wal") {
		// Locked first, so that a writer arriving now keeps its -wal.
		lock = holdSharedLock(abs)
		if exists(abs + "-wal") {
			closeLock(lock)
			lock = nil
		} else {
			st, err := stampOf(abs)
			if err != nil {
				closeLock(lock)
				return nil, nil, nil, err
			}
			at = &st
			params = append(params, "immutable=1")
		}
	}
	if at == nil && !exists(abs+"-shm") && !f.canWrite {
		return nil, nil, nil, f.logWithoutSharedMemory(abs, f.readOnly)
	}
	db, err := sql.Open("sqlite", dsn(abs, params...))
	if err != nil {
		closeLock(lock)
		return nil, nil, nil, err
	}
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	c, err = f.prepareReader(ctx, db)
	if err != nil {
		db.Close()
		closeLock(lock)
		var oe *openError
		if !errors.As(err, &oe) {
			err = fmt.Errorf("%s: cannot read the workspace database read-only (%s): %w", f.path, f.readOnly, err)
		}
		return nil, nil, nil, err
	}
	return c, at, lock, nil
}

func closeLock(lock io.Closer) {
	if lock != nil {
		lock.Close()
	}
}

// prepareReader checks the database db reads and prepares the store's
// reading statements on it, those of layout 1 or 2 for a database of
// that layout.
func (f *FS) prepareReader(ctx context.Context, db *sql.DB) (*conns, error) {
	if err := f.checkVersion(ctx, db); err != nil {
		return nil, err
	}
	version := 0
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return nil, err
	}
	var old map[string]string
	switch version {
	case 0:
		return nil, fmt.Errorf("an empty database, not a workspace database yet, and this process may not make it one (%s)", f.readOnly)
	case 1:
		old = layout1
	case 2:
		old = layout2
	}
	return prepare(ctx, db, false, old)
}

// snapshot watches the database file a read-only FS reads immutable.
type snapshot struct {
	abs string
	at  atomic.Pointer[stamp] // the file the reading pool reads; nil while it reads through shared memory
	// mu is held for reading by every operation (see FS.fresh), and for
	// writing while the pool is replaced, so that no operation still uses
	// connections that read a file since changed.
	mu   sync.RWMutex
	lock io.Closer // holdShared's, while the pool reads immutable
}

// close releases the snapshot's lock.
func (s *snapshot) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	closeLock(s.lock)
	s.lock = nil
}

// changed reports whether the file is no longer the one the reading
// pool reads immutable: written or replaced, or a -wal file beside it.
func (s *snapshot) changed() bool {
	at := s.at.Load()
	if at == nil {
		return false
	}
	st, err := stampOf(s.abs)
	return err != nil || !st.same(*at) || exists(s.abs+"-wal")
}

// fresh starts an operation that reads the database as it is, and done
// ends it. On a read-only FS whose pool reads the file immutable, when
// the file changed, fresh first opens the database again (through shared
// memory while a writer has it open, else immutable again) and replaces
// the pool's connections, once no operation uses them. Every operation
// calls it first; it costs two stats while the file stays unchanged, and
// nothing on an FS that can write. done is never nil.
func (f *FS) fresh(ctx context.Context) (done func(), err error) {
	s := f.snap
	if s == nil {
		return func() {}, nil
	}
	for {
		s.mu.RLock()
		if !s.changed() {
			return s.mu.RUnlock, nil
		}
		s.mu.RUnlock()
		if err := f.reopen(ctx); err != nil {
			return func() {}, err
		}
	}
}

// reopen replaces the connections of the reading pool when the file they
// read immutable changed.
func (f *FS) reopen(ctx context.Context) error {
	s := f.snap
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.changed() {
		return nil
	}
	c, at, lock, err := f.openReader(ctx, s.abs)
	if err != nil {
		return err
	}
	f.r.swap(c)
	s.at.Store(at)
	closeLock(s.lock)
	s.lock = lock
	return nil
}

// logWithoutSharedMemory is the refusal of a database a writer left a
// -wal beside but no -shm, which SQLite needs to read it and which this
// process cannot create (why says why), with how to fix it.
func (f *FS) logWithoutSharedMemory(abs, why string) error {
	return fmt.Errorf("%s: cannot read the workspace database: a writer left its write-ahead log %s-wal but no %s-shm, which SQLite needs to read it and cannot create here (%s); open it once as a user who can write %s, which folds the log into the database, or make that directory writable",
		f.path, filepath.Base(abs), filepath.Base(abs), why, filepath.Dir(abs))
}
