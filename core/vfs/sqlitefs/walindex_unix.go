//go:build unix

package sqlitefs

import (
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// walIndex is the start of the database's -shm file (SQLite's WAL
// index) mapped read-only into this process: the two copies of its
// header, which every commit rewrites.
type walIndex struct {
	mem []byte
}

// mapWALIndex maps the header of the -shm file beside the database at
// abs; nil when it cannot (no such file yet, say).
func mapWALIndex(abs string) *walIndex {
	file, err := os.Open(abs + "-shm")
	if err != nil {
		return nil
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || fi.Size() < 2*walHdrSize {
		return nil
	}
	mem, err := unix.Mmap(int(file.Fd()), 0, 2*walHdrSize, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	w := &walIndex{mem: mem}
	// Unmapped once no operation can read it, never under one still
	// running (an FS closed under a call fails the call, never crashes).
	runtime.AddCleanup(w, func(mem []byte) { unix.Munmap(mem) }, mem)
	return w
}

// header reads the WAL index's header as SQLite's readers do: the first
// copy, then the second, which a commit writes first; ok is false when
// they differ (a commit is under way) or the index is not initialized.
func (w *walIndex) header() (h walHdr, ok bool) {
	if w == nil {
		return h, false
	}
	words := (*[2 * walHdrSize / 4]uint32)(unsafe.Pointer(&w.mem[0]))
	var second walHdr
	for i := range h {
		h[i] = atomic.LoadUint32(&words[i])
	}
	for i := range second {
		second[i] = atomic.LoadUint32(&words[len(h)+i])
	}
	// iVersion, the first word, is 0 until SQLite initializes the index.
	return h, h == second && h[0] != 0
}
