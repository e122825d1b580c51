package sqlitefs_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// TestWriteBatches checks how a write stores its chunks: a file of up to
// a batch (16 chunks, 1 MiB) in the one transaction that points the file
// at them, with no statement more than its chunks' own, a longer one in a
// transaction a batch more; and that files of lengths around the batches
// read back as written.
func TestWriteBatches(t *testing.T) {
	const batch = 16
	s, _ := openStore(t)
	ctx := t.Context()
	write := func(name string, size int) (stmts, txs int64) {
		t.Helper()
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i/sqlitefs.ChunkSize)
		}
		s0, t0 := s.Statements()
		if err := s.WriteFile(ctx, name, bytes.NewReader(data), 0o644); err != nil {
			t.Fatal(err)
		}
		s1, t1 := s.Statements()
		r, err := s.Open(ctx, name, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s (%d bytes): read back %d bytes, %v, not as written", name, size, len(got), err)
		}
		return s1 - s0, t1 - t0
	}
	// A small file, for the statements a write needs besides its chunks.
	small, smallTxs := write("small", 10)
	for _, size := range []int{
		batch * sqlitefs.ChunkSize,
		batch*sqlitefs.ChunkSize - 1,
		(batch - 1) * sqlitefs.ChunkSize,
		batch*sqlitefs.ChunkSize + 1,
		2 * batch * sqlitefs.ChunkSize,
		2*batch*sqlitefs.ChunkSize + 5*sqlitefs.ChunkSize + 3,
	} {
		stmts, txs := write(fmt.Sprint("f", size), size)
		// A batch is stored on its own once the chunk after it is full
		// (the last chunk may be short): a file of a batch or less in
		// one transaction, as a small file.
		full := size / sqlitefs.ChunkSize
		if want := smallTxs + int64((full-1)/batch); txs != want {
			t.Errorf("a write of %d bytes: %d transactions, want %d", size, txs, want)
		}
		if size > batch*sqlitefs.ChunkSize {
			continue
		}
		// Each file is new: each chunk is one statement more than a
		// small file's one.
		want := small + int64((size+sqlitefs.ChunkSize-1)/sqlitefs.ChunkSize-1)
		if stmts != want {
			t.Errorf("a write of %d bytes: %d statements, want %d", size, stmts, want)
		}
	}
}
