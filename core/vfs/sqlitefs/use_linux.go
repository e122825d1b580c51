package sqlitefs

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// useByte is the byte of the database file on which every FS holds a
// read lock while it is open, and Discard a write lock while it removes
// the file: the byte after SQLite's lock bytes, which SQLite never locks,
// so these locks and SQLite's never meet.
const useByte = sharedFirst + sharedSize

// useAttempts bounds how many times holdUse finds the file it locked
// removed and tries again.
const useAttempts = 100

// useLock is an FS's read lock on useByte of its database file. It is an
// open file description lock: it conflicts with the lock of every other
// descriptor of the file, in this process too, and closing another
// descriptor of the file does not release it.
type useLock struct{ f *os.File }

// holdUse opens the database file at abs (for writing too, and creating
// it, empty, when create: for an FS that can write) and takes a read lock on its useByte, waiting while a Discard
// holds the write lock. A Discard removes the file while it holds the
// lock, so holdUse then checks that abs still names the file it locked,
// and else tries again (on the file made there since, if any). Nil, with
// no error, when the file cannot be opened (SQLite then says why) or
// locked (a file system without these locks).
func holdUse(abs string, create bool) (*useLock, error) {
	flags := os.O_RDONLY
	if create {
		// Written to never, but a write lock needs a descriptor open
		// for writing.
		flags = os.O_RDWR | os.O_CREATE
	}
	for range useAttempts {
		f, err := os.OpenFile(abs, flags, 0o644)
		if err != nil {
			return nil, nil
		}
		if err := lockUse(f, unix.F_RDLCK, unix.F_OFD_SETLKW); err != nil {
			// A file system without these locks: Discard keeps the
			// database of every FS on it, none holding the lock.
			closeFile(f)
			return nil, nil
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(abs)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &useLock{f: f}, nil
		}
		(&useLock{f: f}).Close()
		if !create && errors.Is(err2, os.ErrNotExist) {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("%s: removed and made again %d times while it was opened", abs, useAttempts)
}

// lockUse sets a lock of type typ on useByte of f with cmd (F_OFD_SETLK
// or F_OFD_SETLKW), again when a signal interrupts it.
func lockUse(f *os.File, typ int16, cmd int) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: useByte, Len: 1}
	for {
		err := unix.FcntlFlock(f.Fd(), cmd, &lk)
		if err != unix.EINTR {
			return err
		}
	}
}

// exclusive turns the read lock into the write lock if no other
// descriptor of the file holds a lock on useByte (no other FS has the
// file open, nor is opening it), without waiting, and reports whether it
// did. When it did not, the read lock stays.
func (u *useLock) exclusive() bool {
	return u != nil && lockUse(u.f, unix.F_WRLCK, unix.F_OFD_SETLK) == nil
}

// Close releases the lock, and closes its descriptor as closeFile does.
// Nil for no lock; a second call does nothing.
func (u *useLock) Close() error {
	if u == nil || u.f == nil {
		return nil
	}
	err := errors.Join(lockUse(u.f, unix.F_UNLCK, unix.F_OFD_SETLK), closeFile(u.f))
	u.f = nil
	return err
}
