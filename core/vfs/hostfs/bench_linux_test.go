package hostfs_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// syscallsPage lists dir with bare system calls and stats n names: the
// work `ls -f` does, plus the stats of a page.
func syscallsPage(b *testing.B, dir string, buf []byte, n int) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fd)
	var names []string
	for {
		k, err := unix.Getdents(fd, buf)
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:k], len(names)+1<<20, names)
	}
	var st unix.Stat_t
	for _, name := range names[:n] {
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			b.Fatal(err)
		}
	}
}
