//go:build unix

package hostfs

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// flock applies flock(2) operation how to f.
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}

// lockFile waits for the exclusive flock(2) lock on f, the lock a writer
// of this package holds on a file while it replaces it and on its
// temporary file while it lives. It polls, so that ctx ends the wait.
func lockFile(ctx context.Context, f *os.File) error {
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// tryLock takes the exclusive lock on f if nobody holds it.
func tryLock(f *os.File) bool { return flock(f, unix.LOCK_EX|unix.LOCK_NB) == nil }

// owner is a host file's owner and group, and whether they are the
// process's own (effective ids).
func owner(f *os.File) (uid, gid int, own bool) {
	var st unix.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, 0, true
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return 0, 0, true
	}
	uid, gid = int(st.Uid), int(st.Gid)
	return uid, gid, uid == os.Geteuid() && gid == os.Getegid()
}

// textBusy reports whether err says the file is a program running.
func textBusy(err error) bool { return errors.Is(err, unix.ETXTBSY) }
