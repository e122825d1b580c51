package exec

import (
	"io/fs"
	"syscall"
)

// changeTime is a host file's status change time in nanoseconds: it
// moves with every change to the file, even one that puts its
// modification time back (touch -d); 0 when unknown.
func changeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
