package sqlitefs

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Checkpoints (copying the WAL's frames into the database file) are
// made in the background, off the path of the change whose commit makes
// the WAL long: a checkpoint syncs the WAL and the database file to
// disk, milliseconds each, which SQLite's automatic checkpoint spends in
// the commit of every change that crosses its length (1000 frames; a
// small change writes about 6), so every 170th removal of a file took
// that long.
const (
	// ckptFrames is how many frames the WAL holds, not copied yet, when
	// a change's commit starts a checkpoint in the background.
	ckptFrames = 1000
	// writerCkptFrames is the writing connection's own automatic
	// checkpoint (PRAGMA wal_autocheckpoint): the WAL reaches it only
	// when the checkpoints in the background fall behind, or cannot run
	// (a system where the WAL index is not mapped).
	writerCkptFrames = 4 * ckptFrames
)

// checkpointer runs checkpoints in the background, one at a time, on
// the connection mapWAL holds (see FS.pin).
type checkpointer struct {
	running atomic.Bool
	// left is how many frames the last checkpoint left not copied (a
	// reader still needs them): the next one starts once the WAL holds
	// ckptFrames/4 more, not after every commit.
	left atomic.Uint32
	mu   sync.Mutex // held while a checkpoint runs, and by unpin
	conn *sql.Conn  // nil once unpinned
	// done counts the checkpoints run, wg the goroutines running them
	// (tests).
	done atomic.Int64
	wg   sync.WaitGroup
}

// checkpointSoon starts a checkpoint in the background when the WAL
// holds ckptFrames frames not copied yet and none runs. It is called
// after every commit; a PASSIVE checkpoint waits for no lock, and copies
// what no reader still needs.
func (f *FS) checkpointSoon() {
	w := f.wal.Load()
	n, left := w.unchecked(), f.ckpt.left.Load()
	if n < left {
		// The WAL started over.
		f.ckpt.left.Store(0)
		left = 0
	}
	if n < max(ckptFrames, left+ckptFrames/4) || !f.ckpt.running.CompareAndSwap(false, true) {
		return
	}
	f.ckpt.wg.Add(1)
	go func() {
		defer f.ckpt.wg.Done()
		defer f.ckpt.running.Store(false)
		f.ckpt.mu.Lock()
		defer f.ckpt.mu.Unlock()
		if f.ckpt.conn == nil {
			return
		}
		// A failure (another connection checkpoints, say) leaves the
		// frames to the next one, or to the writer's own.
		if _, err := f.ckpt.conn.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`); err == nil {
			f.ckpt.done.Add(1)
		}
		f.ckpt.left.Store(w.unchecked())
	}()
}
