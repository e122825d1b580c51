package sqlitefs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
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
					readFrom(t, s, name, data, off, n)
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

// TestListingPages lists directories (the root, nested ones, names that
// sort by their bytes) by ReadDir pages of many offsets and limits and by
// Entries pages of many lengths, each one statement that reads the
// directory with its entries: every page must be the slice of the whole
// listing, in raw byte order, and a listing of what is no directory must
// fail as a lookup does.
func TestListingPages(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	dirs := map[string]int{"": 0, "a": 7, "a/b": 40, "a/b/c": 1, "z": 0}
	for _, d := range []string{"a", "a/b", "a/b/c", "z"} {
		if err := s.Mkdir(ctx, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"B", "a", "a.b", "a0", "é", "~", "Z z", "0"}
	for d, n := range dirs {
		for i := range n {
			name := fmt.Sprintf("%s%d", names[i%len(names)], i)
			if d != "" {
				name = d + "/" + name
			}
			write(t, s, name, []byte(name))
		}
	}
	for d := range dirs {
		all, err := s.ReadDir(ctx, d, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(all, func(a, b vfs.Info) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("%q: not in byte order", d)
		}
		for off := 0; off <= len(all)+1; off++ {
			for _, limit := range []int{-1, 0, 1, 2, 3, 10, 100} {
				got, err := s.ReadDir(ctx, d, off, limit)
				want := all[min(off, len(all)):]
				if limit >= 0 {
					want = want[:min(limit, len(want))]
				}
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("ReadDir(%q, %d, %d): %d entries, %v; want %d", d, off, limit, len(got), err, len(want))
				}
			}
		}
		for _, page := range []int{-1, 1, 2, 3, 100} {
			h, err := s.OpenDir(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			after := ""
			for {
				es, err := h.Entries(ctx, after, page)
				if err != nil {
					t.Fatalf("Entries(%q, %q, %d): %v", d, after, page, err)
				}
				for _, e := range es {
					got = append(got, e.Name)
				}
				if page < 0 || len(es) < page {
					break
				}
				after = es[len(es)-1].Name
			}
			h.Close()
			var want []string
			for _, e := range all {
				want = append(want, e.Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Entries(%q) by %d: %q, want %q", d, page, got, want)
			}
		}
	}
	write(t, s, "f", []byte("x"))
	for name, code := range map[string]errno.Code{"f": errno.ENOTDIR, "f/g": errno.ENOTDIR, "nothing": errno.ENOENT, "a/nothing/x": errno.ENOENT} {
		if _, err := s.ReadDir(ctx, name, 0, -1); errno.CodeOf(err) != code {
			t.Errorf("ReadDir(%q): %v, want %s", name, err, code)
		}
		if _, err := s.OpenDir(ctx, name); errno.CodeOf(err) != code {
			t.Errorf("OpenDir(%q): %v, want %s", name, err, code)
		}
	}
}

// TestChunksCopiedOnce reads a file of 8 MiB whole, by a reader and by
// Update: each chunk's bytes go from SQLite into the reader's window (or
// the content Update hands its function) without a copy the garbage
// collector has to reclaim, so reading allocates far less than the
// file's size (a reader) or little more than it (Update, whose result is
// the file's bytes).
func TestChunksCopiedOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	const size = 8 << 20
	s, _ := openStore(t)
	data := pattern(7, size)
	write(t, s, "f", data)
	ctx := t.Context()
	readAll := func() {
		r, err := s.Open(ctx, "f", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		got.Grow(size)
		if _, err := r.(io.WriterTo).WriteTo(&got); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if !bytes.Equal(got.Bytes(), data) {
			t.Fatal("read other bytes than written")
		}
	}
	update := func() {
		err := s.Update(ctx, "f", size, func(old []byte, _ vfs.Info) ([]byte, error) {
			if !bytes.Equal(old, data) {
				t.Fatal("Update read other bytes than written")
			}
			return nil, errors.New("no change")
		})
		if err == nil || err.Error() != "no change" {
			t.Fatal(err)
		}
	}
	const rounds = 4
	for _, tt := range []struct {
		name  string
		read  func()
		limit uint64 // bytes allocated per read, beyond the result's
	}{
		{"reader", readAll, size / 4},
		{"Update", update, size / 2},
	} {
		tt.read()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range rounds {
			tt.read()
		}
		runtime.ReadMemStats(&after)
		// The reader's result buffer is the test's: size bytes a round.
		per := (after.TotalAlloc-before.TotalAlloc)/rounds - size
		if per > tt.limit {
			t.Errorf("%s: %d bytes allocated per read of %d beyond the result, want at most %d", tt.name, per, size, tt.limit)
		}
	}
}

// readFrom reads the file name, which holds data, from off to its end
// through a reader, with a buffer of n bytes (WriteTo when n < 0), and
// fails t unless it reads data[off:].
func readFrom(t *testing.T, s vfs.Store, name string, data []byte, off, n int) {
	t.Helper()
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
		t.Fatalf("read %d bytes from %d, want %d (equal prefix %d)", got.Len(), off, len(data)-off, commonPrefix(got.Bytes(), data[off:]))
	}
}

// FuzzReader writes a file of a fuzzed size and reads it from a fuzzed
// offset with a buffer of a fuzzed length (0: WriteTo), and whole through
// Update: the bytes read are the bytes written, whatever chunks and
// windows they came through.
func FuzzReader(f *testing.F) {
	const c = sqlitefs.ChunkSize
	for _, seed := range [][3]uint32{{1, 0, 1}, {c, c - 1, 0}, {c + 1, c, c}, {20*c + 5, 3, 4096}, {3 * c, 2*c + 1, 3 * c}} {
		f.Add(seed[0], seed[1], seed[2])
	}
	s, err := sqlitefs.Open(filepath.Join(f.TempDir(), "ws.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	f.Fuzz(func(t *testing.T, size, off, n uint32) {
		size, n = size%(24*c), n%(20*c)
		off %= size + 1
		data := pattern(uint64(size)+1, int(size))
		write(t, s, "f", data)
		buf := int(n)
		if n == 0 {
			buf = -1
		}
		readFrom(t, s, "f", data, int(off), buf)
		err := s.Update(t.Context(), "f", int64(size), func(old []byte, _ vfs.Info) ([]byte, error) {
			if !bytes.Equal(old, data) {
				t.Fatalf("Update read %d bytes, want %d (equal prefix %d)", len(old), size, commonPrefix(old, data))
			}
			return old, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
