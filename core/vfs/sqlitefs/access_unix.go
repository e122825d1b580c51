//go:build unix

package sqlitefs

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/toolspec"
)

// notWritable says why this process cannot write the database at abs, or
// create the files SQLite keeps beside it: toolspec.MsgDatabaseMountReadOnly
// or toolspec.MsgDatabaseNotWritable; "" when it can (or cannot tell, and
// leaves it to SQLite). It asks the kernel (faccessat with the effective
// ids), so it knows what the process may do, not only the mode bits.
func notWritable(abs string) string {
	for _, p := range []string{abs, filepath.Dir(abs)} {
		err := unix.Faccessat(unix.AT_FDCWD, p, unix.W_OK, unix.AT_EACCESS)
		switch {
		case errors.Is(err, unix.EROFS):
			return toolspec.MsgDatabaseMountReadOnly
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
			return toolspec.MsgDatabaseNotWritable
		}
	}
	return ""
}
