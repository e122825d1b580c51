package sqlitefs

import (
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// walIndex is the start of the database's -shm file (SQLite's WAL
// index) mapped read-only into this process: the two copies of its
// header, which every commit rewrites, and the checkpoint's record.
type walIndex struct {
	mem []byte
}

// mapWALIndex maps the start of the -shm file beside the database at
// abs through the descriptor SQLite has it open with in this process
// (found in /proc/self/fd); nil when there is none. The file is never
// opened, nor a descriptor of it closed, here: closing any descriptor of
// a file releases every POSIX lock this process holds on it, SQLite's
// locks of the WAL index included.
func mapWALIndex(abs string) *walIndex {
	want := abs + "-shm"
	var file unix.Stat_t
	if unix.Stat(want, &file) != nil {
		return nil
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	// isFile: the descriptor's file is the -shm (a descriptor number
	// another goroutine closed and reused since it was listed is not).
	isFile := func(fd int) bool {
		var st unix.Stat_t
		return unix.Fstat(fd, &st) == nil && st.Dev == file.Dev && st.Ino == file.Ino && st.Size >= walMapped
	}
	for _, e := range fds {
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || link != want {
			continue
		}
		fd, err := strconv.Atoi(e.Name())
		if err != nil || !isFile(fd) {
			continue
		}
		mem, err := unix.Mmap(fd, 0, walMapped, unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			continue
		}
		if !isFile(fd) {
			// Reused between the checks and the mapping: what is mapped
			// may be another file.
			unix.Munmap(mem)
			continue
		}
		w := &walIndex{mem: mem}
		// Unmapped once no operation can read it, never under one still
		// running (an FS closed under a call fails the call, never
		// crashes).
		runtime.AddCleanup(w, func(mem []byte) { unix.Munmap(mem) }, mem)
		return w
	}
	return nil
}

// header reads the WAL index's header as SQLite's readers do: the first
// copy, then the second, which a commit writes first; ok is false when
// they differ (a commit is under way) or the index is not initialized.
func (w *walIndex) header() (h walHdr, ok bool) {
	if w == nil {
		return h, false
	}
	words := (*[walMapped / 4]uint32)(unsafe.Pointer(&w.mem[0]))
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

// unchecked is how many frames the WAL holds that no checkpoint copied
// into the database yet: its count of frames (mxFrame, the header's
// fifth word) less the checkpoint's (nBackfill, the first word after
// the two headers), read unlocked (a hint).
func (w *walIndex) unchecked() uint32 {
	if w == nil {
		return 0
	}
	words := (*[walMapped / 4]uint32)(unsafe.Pointer(&w.mem[0]))
	frames, copied := atomic.LoadUint32(&words[4]), atomic.LoadUint32(&words[2*walHdrSize/4])
	if copied > frames {
		return 0
	}
	return frames - copied
}
