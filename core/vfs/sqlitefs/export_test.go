package sqlitefs

import (
	"context"
	"io"
	"testing"
	"time"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// ChunkReads is how many chunks the readers of f fetched.
func (f *FS) ChunkReads() int64 { return f.chunkReads.Load() }

// WithGCAge sets how old unreferenced content must be before Open
// collects it.
func WithGCAge(d time.Duration) Option { return withGCAge(d) }

// ChunkSize is the length of a content chunk in bytes.
const ChunkSize = chunkSize

// Unprepared is how many statements f ran unprepared: 0 unless a
// statement is missing from queries.
func (f *FS) Unprepared() int64 {
	n := f.r.unprepared.Load()
	if f.w != nil {
		n += f.w.unprepared.Load()
	}
	return n
}

// Statements is how many of the store's statements f ran, and how many
// transactions it began (each a BEGIN and a COMMIT or ROLLBACK more).
func (f *FS) Statements() (stmts, txs int64) {
	stmts, txs = f.r.statements.Load(), f.r.txs.Load()
	if f.w != nil {
		stmts += f.w.statements.Load()
		txs += f.w.txs.Load()
	}
	return stmts, txs
}

// NoSharedLock makes read-only FSs opened until the test ends read the
// immutable file without holding SQLite's shared lock.
func NoSharedLock(t *testing.T) {
	old := holdSharedLock
	holdSharedLock = func(string) io.Closer { return nil }
	t.Cleanup(func() { holdSharedLock = old })
}

// ReadPragma is PRAGMA name as a connection of f's reading pool answers
// it.
func (f *FS) ReadPragma(ctx context.Context, name string) (int64, error) {
	var v int64
	err := f.r.cur.Load().db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}

// HoldCheckpoints keeps the checkpoints f starts in the background from
// running until release is called.
func (f *FS) HoldCheckpoints() (release func()) {
	f.ckpt.mu.Lock()
	return f.ckpt.mu.Unlock
}

// Checkpoints waits for the checkpoints f started in the background to
// end and returns how many ran.
func (f *FS) Checkpoints() int64 {
	f.ckpt.wg.Wait()
	return f.ckpt.done.Load()
}
