//go:build linux || darwin

package hostfs

import (
	"bytes"
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// tempMark is the extended attribute that marks a temporary file as a
// write of this package in progress; its value is the token in the
// file's name.
const tempMark = "user.agenttools.tmp"

// mark marks f as the temporary file named with token. A filesystem
// without user extended attributes leaves it unmarked: never hidden,
// never removed by a listing.
func mark(f *os.File, token string) {
	_ = fdControl(f, func(fd int) error { return unix.Fsetxattr(fd, tempMark, []byte(token), 0) })
}

// unmark takes the mark off f, the file a temporary file became.
func unmark(f *os.File) {
	_ = fdControl(f, func(fd int) error { return unix.Fremovexattr(fd, tempMark) })
}

// marked reports whether f carries the mark of the temporary file named
// with token.
func marked(f *os.File, token string) bool {
	buf := make([]byte, len(token)+1)
	n := 0
	err := fdControl(f, func(fd int) error {
		var err error
		n, err = unix.Fgetxattr(fd, tempMark, buf)
		return err
	})
	return err == nil && bytes.Equal(buf[:n], []byte(token))
}

// copyXattrs gives to the extended attributes of from (a POSIX ACL is
// one), except the temporary file mark. It fails when one cannot be set
// (one the process may not set, such as a security label): the caller
// then rewrites the file in place instead of replacing it.
func copyXattrs(from, to *os.File) error {
	var names []byte
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n := 0
		err := fdControl(from, func(fd int) (err error) {
			n, err = unix.Flistxattr(fd, buf)
			return err
		})
		if errors.Is(err, unix.ERANGE) && size < 1<<20 {
			continue
		}
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		if err != nil {
			return err
		}
		names = buf[:n]
		break
	}
	for _, name := range strings.Split(strings.TrimRight(string(names), "\x00"), "\x00") {
		if name == "" || name == tempMark {
			continue
		}
		value, err := xattr(from, name)
		if err != nil {
			return err
		}
		if err := fdControl(to, func(fd int) error { return unix.Fsetxattr(fd, name, value, 0) }); err != nil {
			return err
		}
	}
	return nil
}

// xattr reads one extended attribute of f.
func xattr(f *os.File, name string) ([]byte, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n := 0
		err := fdControl(f, func(fd int) (err error) {
			n, err = unix.Fgetxattr(fd, name, buf)
			return err
		})
		if errors.Is(err, unix.ERANGE) && size < 1<<20 {
			continue
		}
		return buf[:n], err
	}
}
