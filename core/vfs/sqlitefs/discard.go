package sqlitefs

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
)

// ErrInUse: Discard kept the database because another FS or connection
// used it, or made it (see Discard).
var ErrInUse = errors.New("workspace database used by another")

// creation is what an FS that made its database knows of it: version is
// PRAGMA data_version on conn, the driver's connection of the writing
// pool, in the transaction that made it. Other connections' commits
// change what that connection reads of data_version; its own do not.
type creation struct {
	version int64
	conn    any
}

// creationOf reads the creation of the database this FS just made,
// through conn: nil when another connection changed the tree meanwhile
// (the change counter moved on from the new database's 1, or content was
// stored).
func creationOf(ctx context.Context, conn *sql.Conn) (*creation, error) {
	c := &creation{}
	if err := conn.Raw(func(dc any) error { c.conn = dc; return nil }); err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var rev, content int64
	err = tx.QueryRowContext(ctx, `SELECT (SELECT data_version FROM pragma_data_version), (SELECT value FROM meta WHERE key = 'rev'), (SELECT value FROM meta WHERE key = 'content')`).Scan(&c.version, &rev, &content)
	if err != nil || rev != 1 || content != 0 {
		return nil, err
	}
	return c, nil
}

// changedByOthers reports whether another connection (of this process
// or another one) committed a change to the database since this FS made
// it, or whether that cannot be told (the writing pool's connection is
// no longer the one that made it).
func (f *FS) changedByOthers(ctx context.Context) bool {
	conn, err := f.w.db().Conn(ctx)
	if err != nil {
		return true
	}
	defer conn.Close()
	same := false
	if err := conn.Raw(func(dc any) error { same = dc == f.created.conn; return nil }); err != nil || !same {
		return true
	}
	var version int64
	err = conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version)
	return err != nil || version != f.created.version
}

// Discard closes the FS and removes the database it made, for a caller
// that created it for work that failed: the database file and the -wal,
// -shm and -journal files beside it. removed is whether it did.
//
// It removes the database only if nobody else used it, so that no change
// another user made (and was told was made) is lost: this FS made it
// (Open found no file, or an empty one, and initialized it); no other FS,
// in this process or another, has it open; and no other connection
// committed a change to it since it was made, though it may have closed
// since. Whether another FS has it open is told by a lock every FS holds
// on the file while open, and Discard holds that lock exclusive while it
// removes the file, so that an FS opening it meanwhile waits, then finds
// the file gone and makes a new one. The lock is Linux's (open file
// description locks): elsewhere, Discard never removes a database.
// Connections to the file other than an FS's (the sqlite3 shell, say)
// take no such lock, and one that is open but has not written is not
// seen.
//
// When it keeps the database, the error says why: ErrInUse when another
// used it, errors.ErrUnsupported where the lock is missing. Errors of
// closing and removing are returned too (removed is then false when the
// database file itself could not be removed).
func (f *FS) Discard() (removed bool, err error) {
	ctx := context.Background()
	var kept error
	switch {
	case f.created == nil:
		kept = f.refuse(ErrInUse, nil, "kept: this program did not make it (it was there, or another process made it)")
	case f.use == nil:
		kept = f.refuse(errors.ErrUnsupported, nil, "kept: whether another process uses it cannot be told on this system")
	case !f.use.exclusive():
		kept = f.refuse(ErrInUse, nil, "kept: another process (or connection) has it open")
	case f.changedByOthers(ctx):
		kept = f.refuse(ErrInUse, nil, "kept: another process (or connection) changed it")
	}
	if kept != nil {
		return false, errors.Join(kept, f.Close())
	}
	// The connections first (the last one folds the -wal into the file
	// and removes it, and the -shm), the lock after the files.
	closed := errors.Join(f.unpin(), f.r.Close(), f.w.Close())
	var errs []error
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(f.file + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	removed = !exists(f.file)
	return removed, errors.Join(closed, errors.Join(errs...), f.closeUse())
}
