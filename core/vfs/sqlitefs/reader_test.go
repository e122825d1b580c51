package sqlitefs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// TestReaderBatches reads files of many sizes from many offsets, with
// buffers of many lengths, by Read and by WriteTo: a reader fetches
// several chunks in one query once it reads on (see reader.fetch), and
// must return exactly the file's bytes, fetching every chunk it returns
// once.
func TestReaderBatches(t *testing.T) {
	const c = sqlitefs.ChunkSize
	s, _ := openStore(t)
	sizes := []int{1, c - 1, c, c + 1, 3*c + 7, 17 * c, 40*c + 3}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, size := range sizes {
		name := fmt.Sprintf("f%d", i)
		data := pattern(uint64(i+1), size)
		write(t, s, name, data)
		offsets := []int{0, 1, c - 1, c, size - 1, size, rng.IntN(size)}
		bufs := []int{1, 100, 4096, c - 1, c, c + 1, 3 * c, 20 * c, -1} // -1: WriteTo
		for _, off := range offsets {
			if off > size || off < 0 {
				continue
			}
			for _, n := range bufs {
				t.Run(fmt.Sprintf("size %d offset %d buf %d", size, off, n), func(t *testing.T) {
					before := s.ChunkReads()
					r, err := s.Open(t.Context(), name, int64(off))
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					var got bytes.Buffer
					if n < 0 {
						_, err = r.(io.WriterTo).WriteTo(&got)
					} else {
						_, err = io.CopyBuffer(&got, struct{ io.Reader }{r}, make([]byte, n))
					}
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), data[off:]) {
						t.Fatalf("read %d bytes, want %d (equal prefix %d)", got.Len(), size-off, commonPrefix(got.Bytes(), data[off:]))
					}
					// Every chunk from the one holding off, once.
					want := int64(0)
					if off < size {
						want = int64((size-1)/c - off/c + 1)
					}
					if got := s.ChunkReads() - before; got != want {
						t.Errorf("fetched %d chunks, want %d", got, want)
					}
				})
			}
		}
	}
}

// TestReaderBatchDamage: a chunk that is missing or damaged in the middle
// of what a reader fetches in one query ends the read there with the
// damaged error, after every byte before it, as fetching chunk by chunk
// does; the first chunk, which Open reads with the node, fails Open.
func TestReaderBatchDamage(t *testing.T) {
	const c = sqlitefs.ChunkSize
	const chunks = 40
	data := pattern(9, chunks*c+10)
	for _, bad := range []int{0, 1, 2, 3, 5, 8, 12, 20, 31, chunks} {
		for _, how := range []string{"missing", "changed"} {
			t.Run(fmt.Sprintf("chunk %d %s", bad, how), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "ws.db")
				s := reopen(t, path)
				write(t, s, "f", data)
				s.Close()
				if how == "missing" {
					db := rawDB(t, path)
					if _, err := db.Exec(`DELETE FROM chunk WHERE cid = (SELECT cid FROM tree WHERE path = 'f') AND idx = ?`, bad); err != nil {
						t.Fatal(err)
					}
					db.Close()
				} else {
					editChunk(t, path, "f", bad, func(b []byte) []byte { b[0] ^= 1; return b })
				}
				reason := toolspec.MsgDatabaseChunkMissing
				if how == "changed" {
					reason = toolspec.MsgDatabaseChecksum
				}
				s = reopen(t, path)
				// Open reads the first chunk with the node.
				r, err := s.Open(t.Context(), "f", 0)
				var got []byte
				if bad == 0 && err == nil {
					t.Fatal("Open of a file whose first chunk is damaged succeeded")
				}
				if err == nil {
					defer r.Close()
					got, err = io.ReadAll(r)
				}
				if !errors.Is(err, sqlitefs.ErrCorrupt) || err.Error() != toolspec.MsgDatabaseDamaged(path, reason) {
					t.Errorf("read: %v, want the damaged error (%s)", err, reason)
				}
				if !bytes.Equal(got, data[:bad*c]) {
					t.Errorf("read %d bytes before the damage, want the %d before chunk %d", len(got), bad*c, bad)
				}
			})
		}
	}
}

// TestWriteBuffers: writers and readers running at once, of files from
// 1 byte to many chunks, each write what they were given and read it
// back, though the buffers of chunks pass from one writer to the next
// (see chunkBufs), and readers' windows from one reader to the next (see
// windows).
func TestWriteBuffers(t *testing.T) {
	const c = sqlitefs.ChunkSize
	s, _ := openStore(t)
	sizes := []int{1, 100, c - 1, c, c + 1, 2*c + 3, 17*c + 5, 33 * c}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for round := range 3 {
				for i, size := range sizes {
					name := fmt.Sprintf("w%d-%d", w, i)
					data := pattern(uint64(w*1000+round*100+i+1), size)
					if err := s.WriteFile(t.Context(), name, bytes.NewReader(data), 0o644); err != nil {
						t.Error(err)
						return
					}
					if got := read(t, s, name, 0); !bytes.Equal(got, data) {
						t.Errorf("%s (%d bytes, round %d) reads back %d bytes, equal prefix %d", name, size, round, len(got), commonPrefix(got, data))
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestReadsCancelled: the store's statements run without watching their
// context (see quiet), so each read checks it first: with a context that
// ended, every read fails with its error, a reader reading on included.
func TestReadsCancelled(t *testing.T) {
	const c = sqlitefs.ChunkSize
	s, _ := openStore(t)
	write(t, s, "f", pattern(5, 3*c))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r, err := s.Open(ctx, "f", 0)
	if err == nil {
		r.Close()
	}
	_, lerr := s.Lstat(ctx, "f")
	_, derr := s.ReadDir(ctx, "", 0, -1)
	for name, err := range map[string]error{"Open": err, "Lstat": lerr, "ReadDir": derr} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", name, err)
		}
	}
	ctx2, cancel2 := context.WithCancel(t.Context())
	r4, err := s.Open(ctx2, "f", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r4.Close()
	if _, err := io.ReadFull(r4, make([]byte, c)); err != nil {
		t.Fatal(err)
	}
	cancel2()
	if _, err := io.ReadAll(r4); !errors.Is(err, context.Canceled) {
		t.Errorf("reading on after the context ended: %v, want context.Canceled", err)
	}
}
