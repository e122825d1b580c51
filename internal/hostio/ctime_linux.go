package hostio

import (
	"io/fs"
	"syscall"
)

// ChangeTime is a host file's status change time in nanoseconds: it
// moves with every change to the file, even one that puts its
// modification time back (touch -d); 0 when unknown. fi comes from
// os.Stat, os.Lstat or a File's Stat.
func ChangeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
