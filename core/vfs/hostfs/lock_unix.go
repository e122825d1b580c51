//go:build unix

package hostfs

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/vfs"
)

// flock applies flock(2) operation how to f.
func flock(f *os.File, how int) error {
	return fdControl(f, func(fd int) error { return unix.Flock(fd, how) })
}

// lockWait is how long lockFile waits for a lock another process holds
// (a writer of this package replacing the file, or another program that
// locked it) before it gives up.
var lockWait = 10 * time.Second

// lockFile waits for the exclusive flock(2) lock on f, the lock a writer
// of this package holds on a file while it replaces it and on its
// temporary file while it lives. It polls, so that ctx ends the wait,
// and gives up after lockWait with EBUSY.
func lockFile(ctx context.Context, f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			return err
		}
		if time.Now().After(deadline) {
			return errLocked
		}
		if err := vfs.Wait(ctx, wait); err != nil {
			return err
		}
	}
}

// tryLock takes the exclusive lock on f if nobody holds it.
func tryLock(f *os.File) bool { return flock(f, unix.LOCK_EX|unix.LOCK_NB) == nil }

// owner is a host file's owner and group, and whether they are the
// process's own (effective ids).
func owner(f *os.File) (uid, gid int, own bool) {
	var st unix.Stat_t
	if err := fdControl(f, func(fd int) error { return unix.Fstat(fd, &st) }); err != nil {
		return 0, 0, true
	}
	uid, gid = int(st.Uid), int(st.Gid)
	return uid, gid, uid == os.Geteuid() && gid == os.Getegid()
}

// textBusy reports whether err says the file is a program running.
func textBusy(err error) bool { return errors.Is(err, unix.ETXTBSY) }

// fileFlags are the flags f was opened with (O_RDONLY, O_WRONLY, ...).
func fileFlags(f *os.File) (int, error) {
	var fl int
	err := fdControl(f, func(fd int) (err error) {
		fl, err = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		return err
	})
	return fl, err
}

// fdControl runs op on f's descriptor.
func fdControl(f *os.File, op func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = op(int(fd)) }); err != nil {
		return err
	}
	return opErr
}
