//go:build linux || darwin

package hostfs

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// tempMark is the extended attribute that marks a temporary file as a
// write of this package in progress; its value is the token in the
// file's name.
const tempMark = "user.agenttools.tmp"

func fdOp(f *os.File, op func(fd int) error) error {
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

// mark marks f as the temporary file named with token. A filesystem
// without user extended attributes leaves it unmarked: never hidden,
// never removed by a listing.
func mark(f *os.File, token string) {
	_ = fdOp(f, func(fd int) error { return unix.Fsetxattr(fd, tempMark, []byte(token), 0) })
}

// unmark takes the mark off f, the file a temporary file became.
func unmark(f *os.File) {
	_ = fdOp(f, func(fd int) error { return unix.Fremovexattr(fd, tempMark) })
}

// marked reports whether f carries the mark of the temporary file named
// with token.
func marked(f *os.File, token string) bool {
	buf := make([]byte, len(token)+1)
	n := 0
	err := fdOp(f, func(fd int) error {
		var err error
		n, err = unix.Fgetxattr(fd, tempMark, buf)
		return err
	})
	return err == nil && bytes.Equal(buf[:n], []byte(token))
}
