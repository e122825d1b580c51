package hostfs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/storebench"
)

func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) vfs.Store {
		s, err := hostfs.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkReadDirPage is a first page of 201 entries (ls's 200 and one
// to tell whether more follow) of a directory of 2000 and of 200,000
// empty files: through the store, and as the bare system calls `ls -f`
// plus a stat of the page's entries make (open, getdents(2) to the end,
// fstatat(2) of 201 names, close), which is the floor.
func BenchmarkReadDirPage(b *testing.B) {
	for _, n := range []int{2000, 200_000} {
		dir := b.TempDir()
		for i := range n {
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("entry-%d.txt", i)))
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		s, err := hostfs.Open(filepath.Dir(dir))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		b.Run(fmt.Sprintf("store/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				page, err := s.ReadDir(b.Context(), filepath.Base(dir), 0, 201)
				if err != nil || len(page) != 201 {
					b.Fatal(len(page), err)
				}
			}
		})
		b.Run(fmt.Sprintf("syscalls/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 32<<10)
			for b.Loop() {
				syscallsPage(b, dir, buf, 201)
			}
		})
	}
}
