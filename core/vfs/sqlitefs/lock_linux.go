package sqlitefs

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// SQLite's lock bytes in a database file (os_unix.c): a connection that
// reads holds a read lock on the shared range, and one that would
// checkpoint the WAL into the file and delete it, when the last
// connection closes, needs a write lock on that range.
const (
	pendingByte = 0x40000000
	sharedFirst = pendingByte + 2
	sharedSize  = 510
)

// holdShared takes a read lock on the shared range of the database file
// at abs, as a reading connection does, and keeps it until the returned
// Closer is closed. It is an open file description lock, which closing
// another descriptor of the file in this process does not release, and
// which conflicts with the POSIX locks SQLite takes. While it is held, a
// writer that closes leaves its -wal file rather than checkpointing it
// into the file and deleting it, so a reader of the immutable file sees
// the -wal and opens the database again. Nil when the lock cannot be
// taken (the check of the file's stamp still applies).
func holdShared(abs string) io.Closer {
	f, err := os.Open(abs)
	if err != nil {
		return nil
	}
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: io.SeekStart, Start: sharedFirst, Len: sharedSize}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		closeFile(f)
		return nil
	}
	return sharedLock{f}
}

// sharedLock is holdShared's lock.
type sharedLock struct{ f *os.File }

// Close releases the lock and closes its descriptor as closeFile does.
func (l sharedLock) Close() error {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: io.SeekStart, Start: sharedFirst, Len: sharedSize}
	return errors.Join(unix.FcntlFlock(l.f.Fd(), unix.F_OFD_SETLK, &lk), closeFile(l.f))
}
