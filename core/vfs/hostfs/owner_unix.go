//go:build unix

package hostfs

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives a replacement file the owner of the file it replaces,
// when the process is allowed to; otherwise the new file stays the
// process's own.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
