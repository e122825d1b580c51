package sqlitefs_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// openStore opens a store on a new database file in a fresh temporary
// directory and returns it with the file's path.
func openStore(t *testing.T, opts ...sqlitefs.Option) (*sqlitefs.FS, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	return reopen(t, path, opts...), path
}

// emptyRoot removes the workspace directory a new database is made with,
// for tests that expect a new store to be empty, as the conformance
// suite does.
func emptyRoot(t *testing.T, s *sqlitefs.FS) {
	t.Helper()
	if err := s.Remove(t.Context(), "workspace"); err != nil {
		t.Fatal(err)
	}
}

// reopen opens the store at path, closing it when the test ends.
func reopen(t *testing.T, path string, opts ...sqlitefs.Option) *sqlitefs.FS {
	t.Helper()
	s, err := sqlitefs.Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens the database file at path directly, for checks of what
// the store keeps in it.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *sql.DB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// pattern returns n bytes that differ from chunk to chunk and from seed
// to seed, so a mix of two contents or a misplaced chunk shows.
func pattern(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

func write(t *testing.T, s vfs.Store, name string, data []byte) {
	t.Helper()
	storetest.WriteFile(t, s, name, data, 0o644)
}

// The store helpers the conformance suite fails the test with.
var (
	read  = storetest.ReadFile
	lstat = storetest.Lstat
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) vfs.Store {
		s, _ := openStore(t)
		emptyRoot(t, s)
		t.Cleanup(func() {
			if n := s.Unprepared(); n != 0 {
				t.Errorf("%d statements ran unprepared", n)
			}
		})
		return s
	})
}

// TestLargeFile round-trips files around the chunk and batch sizes and
// reads them from offsets on and off chunk boundaries.
func TestLargeFile(t *testing.T) {
	s, path := openStore(t)
	const c = sqlitefs.ChunkSize
	for i, size := range []int{1, c - 1, c, c + 1, 16 * c, 16*c + 1, 33*c + 5} {
		name := fmt.Sprintf("f%d", i)
		data := pattern(uint64(i), size)
		write(t, s, name, data)
		if got := lstat(t, s, name).Size; got != int64(size) {
			t.Errorf("%s: size %d, want %d", name, got, size)
		}
		for _, off := range []int{0, 1, c - 1, c, c + 1, size - 1, size, size + 1} {
			if off < 0 {
				continue
			}
			want := data[min(off, size):]
			if got := read(t, s, name, int64(off)); !bytes.Equal(got, want) {
				t.Errorf("%s (%d bytes) from %d: read %d bytes, want %d (equal prefix %d)", name, size, off, len(got), len(want), commonPrefix(got, want))
			}
		}
	}
	// Every chunk belongs to a file: nothing is left over.
	s.Close()
	db := rawDB(t, path)
	if n := queryInt(t, db, `SELECT count(*) FROM content WHERE id NOT IN (SELECT cid FROM tree WHERE cid IS NOT NULL)`); n != 0 {
		t.Errorf("%d contents no file refers to", n)
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestRangedRead checks that a reader fetches only the chunks it needs,
// lazily.
func TestRangedRead(t *testing.T) {
	s, _ := openStore(t)
	const c = sqlitefs.ChunkSize
	const size = 256 * c // 16 MiB
	data := pattern(1, size)
	write(t, s, "big", data)
	tests := []struct {
		name       string
		offset     int64
		read       int // bytes to read; -1 to the end
		wantChunks int64
	}{
		{"last 256 KiB", size - 256<<10, -1, 4},
		{"last 256 KiB, unaligned", size - 256<<10 - 1, -1, 5},
		{"one byte in the middle", size / 2, 1, 1},
		{"two bytes across a boundary", 10*c - 1, 2, 2},
		{"past the end", size + 10, -1, 0},
		// The first chunk comes with the node, in one snapshot.
		{"opened, not read", 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.ChunkReads()
			r, err := s.Open(t.Context(), "big", tt.offset)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []byte
			if tt.read < 0 {
				got, err = io.ReadAll(r)
			} else {
				got = make([]byte, tt.read)
				_, err = io.ReadFull(r, got)
			}
			if err != nil {
				t.Fatal(err)
			}
			start := min(tt.offset, size)
			if want := data[start : start+int64(len(got))]; !bytes.Equal(got, want) || tt.read < 0 && start+int64(len(got)) != size {
				t.Errorf("read %d bytes that differ from the file's %d from %d", len(got), len(want), start)
			}
			if n := s.ChunkReads() - before; n != tt.wantChunks {
				t.Errorf("fetched %d chunks, want %d", n, tt.wantChunks)
			}
		})
	}
}

// TestReaderSnapshot checks that a reader reads the content it opened,
// or fails saying the file changed, but never mixes two contents.
func TestReaderSnapshot(t *testing.T) {
	const c = sqlitefs.ChunkSize
	old := pattern(1, 3*c+100)
	replacement := pattern(2, 3*c+100)
	tests := []struct {
		name     string
		change   func(t *testing.T, s *sqlitefs.FS)
		wantFail bool // the reader must fail (it needs chunks that are gone)
	}{
		{"replace", func(t *testing.T, s *sqlitefs.FS) { write(t, s, "f", replacement) }, true},
		{"update", func(t *testing.T, s *sqlitefs.FS) {
			if err := s.Update(t.Context(), "f", 1<<30, func([]byte, vfs.Info) ([]byte, error) { return replacement, nil }); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"remove", func(t *testing.T, s *sqlitefs.FS) {
			if err := s.Remove(t.Context(), "f"); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"remove the tree", func(t *testing.T, s *sqlitefs.FS) {
			if err := s.RemoveAll(t.Context(), "d"); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"chmod", func(t *testing.T, s *sqlitefs.FS) {
			if err := s.Chmod(t.Context(), "f", 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"write another file", func(t *testing.T, s *sqlitefs.FS) { write(t, s, "g", replacement) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openStore(t)
			name := "f"
			if tt.name == "remove the tree" {
				if err := s.Mkdir(t.Context(), "d", 0o755); err != nil {
					t.Fatal(err)
				}
				name = "d/f"
			}
			write(t, s, name, old)
			r, err := s.Open(t.Context(), name, 10)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			head := make([]byte, c) // ends inside the second chunk
			if _, err := io.ReadFull(r, head); err != nil {
				t.Fatal(err)
			}
			tt.change(t, s)
			rest, err := io.ReadAll(r)
			got := append(head, rest...)
			if !bytes.Equal(got, old[10:10+len(got)]) {
				t.Fatalf("the reader saw %d bytes that are not the old content's (equal prefix %d)", len(got), commonPrefix(got, old[10:]))
			}
			switch {
			case tt.wantFail && err == nil:
				t.Errorf("the reader read to the end of content that is gone")
			case tt.wantFail && (errno.CodeOf(err) != errno.EAGAIN || !strings.Contains(err.Error(), "changed")):
				t.Errorf("the reader failed with %v (code %q), want EAGAIN saying the file changed", err, errno.CodeOf(err))
			case !tt.wantFail && err != nil:
				t.Errorf("the reader failed: %v", err)
			case !tt.wantFail && len(got) != len(old)-10:
				t.Errorf("the reader read %d bytes, want %d", len(got), len(old)-10)
			}
		})
	}
	t.Run("read after close", func(t *testing.T) {
		s, _ := openStore(t)
		write(t, s, "f", old)
		r, err := s.Open(t.Context(), "f", 0)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if _, err := r.Read(make([]byte, 10)); err == nil {
			t.Error("Read after Close succeeded")
		}
	})
}

// TestRev checks which nodes each change renumbers.
func TestRev(t *testing.T) {
	s, path := openStore(t)
	ctx := t.Context()
	revs := func() map[string]int64 {
		m := map[string]int64{}
		for _, name := range []string{"", "d", "d/f", "d/l", "e"} {
			if info, err := s.Lstat(ctx, name); err == nil {
				m[name] = info.Rev
			}
		}
		return m
	}
	update := func(name, content string) func() error {
		return func() error {
			return s.Update(ctx, name, 1<<30, func([]byte, vfs.Info) ([]byte, error) { return []byte(content), nil })
		}
	}
	steps := []struct {
		name    string
		op      func() error
		changed []string // the nodes whose Rev moves, to one new value
	}{
		{"mkdir", func() error { return s.Mkdir(ctx, "d", 0o755) }, []string{"", "d"}},
		{"mkdir e", func() error { return s.Mkdir(ctx, "e", 0o755) }, []string{"", "e"}},
		{"create file", func() error { return s.WriteFile(ctx, "d/f", strings.NewReader("x"), 0o644) }, []string{"d", "d/f"}},
		{"replace file", func() error { return s.WriteFile(ctx, "d/f", strings.NewReader("yy"), 0o644) }, []string{"d/f"}},
		{"chmod file", func() error { return s.Chmod(ctx, "d/f", 0o600) }, []string{"d/f"}},
		{"chmod dir", func() error { return s.Chmod(ctx, "e", 0o700) }, []string{"e"}},
		{"symlink", func() error { return s.Symlink(ctx, "f", "d/l") }, []string{"d", "d/l"}},
		{"update", update("d/f", "zzz"), []string{"d/f"}},
		{"failed create", func() error {
			if err := s.Create(ctx, "d/f", 0o644); errno.CodeOf(err) != errno.EEXIST {
				return fmt.Errorf("Create over a file: %v, want EEXIST", err)
			}
			return nil
		}, nil},
		{"failed update", func() error {
			err := s.Update(ctx, "d/f", 1<<30, func([]byte, vfs.Info) ([]byte, error) { return nil, errors.New("no") })
			if err == nil {
				return errors.New("a failing Update succeeded")
			}
			return nil
		}, nil},
		{"remove link", func() error { return s.Remove(ctx, "d/l") }, []string{"d"}},
		{"removeall", func() error { return s.RemoveAll(ctx, "e") }, []string{""}},
	}
	last := int64(0)
	for _, name := range []string{""} {
		last = lstat(t, s, name).Rev
	}
	if last <= 0 {
		t.Fatalf("a new store's root has Rev %d, want > 0", last)
	}
	for _, st := range steps {
		before := revs()
		if err := st.op(); err != nil {
			t.Fatalf("step %q: %v", st.name, err)
		}
		after := revs()
		var moved []string
		for name, rev := range after {
			if b, ok := before[name]; !ok || b != rev {
				moved = append(moved, name)
				if rev <= last {
					t.Errorf("step %q: %q has Rev %d, want > %d", st.name, name, rev, last)
				}
			}
		}
		slices.Sort(moved)
		if !slices.Equal(moved, st.changed) {
			t.Errorf("step %q: the Rev of %q moved, want %q", st.name, moved, st.changed)
		}
		for _, name := range moved {
			if after[name] != after[moved[0]] {
				t.Errorf("step %q: Rev %d of %q differs from %d of %q: one change, one number", st.name, after[name], name, after[moved[0]], moved[0])
			}
		}
		if len(moved) > 0 {
			last = after[moved[0]]
		}
	}
	// A listing reports the same Rev as Lstat.
	entries, err := s.ReadDir(ctx, "d", 0, -1)
	if err != nil || len(entries) != 1 || entries[0].Rev != lstat(t, s, "d/f").Rev {
		t.Errorf("ReadDir(d) = %+v, %v; want f with Lstat's Rev", entries, err)
	}
	// The numbering goes on across a reopen.
	s.Close()
	s = reopen(t, path)
	if err := s.Chmod(ctx, "d/f", 0o644); err != nil {
		t.Fatal(err)
	}
	if rev := lstat(t, s, "d/f").Rev; rev <= last {
		t.Errorf("after a reopen a change got Rev %d, want > %d", rev, last)
	}
}

// TestUpdate checks Update's contract: fn sees the content and node,
// its error aborts with nothing written, the mode stays.
func TestUpdate(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	if err := s.Mkdir(ctx, "d", 0o755); err != nil {
		t.Fatal(err)
	}
	big := pattern(3, 3*sqlitefs.ChunkSize+7)
	if err := s.WriteFile(ctx, "f", bytes.NewReader(big), 0o640); err != nil {
		t.Fatal(err)
	}
	before := lstat(t, s, "f")
	var seen vfs.Info
	err := s.Update(ctx, "f", 1<<30, func(old []byte, info vfs.Info) ([]byte, error) {
		seen = info
		if !bytes.Equal(old, big) {
			t.Errorf("fn got %d bytes, want the file's %d", len(old), len(big))
		}
		return append(old, "tail"...), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Name != "f" || seen.Size != before.Size || seen.Rev != before.Rev || seen.Mode != 0o640 {
		t.Errorf("fn got info %+v, want Lstat's %+v", seen, before)
	}
	if got := read(t, s, "f", 0); !bytes.Equal(got, append(big, "tail"...)) {
		t.Errorf("after Update: %d bytes, want %d", len(got), len(big)+4)
	}
	if info := lstat(t, s, "f"); info.Mode != 0o640 || info.Size != int64(len(big)+4) {
		t.Errorf("after Update: mode %#o size %d", info.Mode, info.Size)
	}

	errNo := errors.New("fn refuses")
	if err := s.Update(ctx, "f", 1<<30, func([]byte, vfs.Info) ([]byte, error) { return []byte("never"), errNo }); err != errNo {
		t.Errorf("Update with a failing fn returned %v, want fn's error itself", err)
	}
	if got := read(t, s, "f", 0); !bytes.Equal(got, append(big, "tail"...)) {
		t.Errorf("a failed Update changed the file")
	}
	if err := s.Update(ctx, "f", 1<<30, func([]byte, vfs.Info) ([]byte, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "f", 0); len(got) != 0 {
		t.Errorf("Update to empty left %d bytes", len(got))
	}
	if err := s.Symlink(ctx, "f", "l"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		code errno.Code
	}{{"missing", errno.ENOENT}, {"d", errno.EISDIR}, {"f/x", errno.ENOTDIR}, {"l", errno.ELOOP}, {"", errno.EISDIR}} {
		err := s.Update(ctx, tt.name, 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) {
			t.Errorf("Update(%q) called fn", tt.name)
			return old, nil
		})
		if errno.CodeOf(err) != tt.code {
			t.Errorf("Update(%q): %v, want %s", tt.name, err, tt.code)
		}
	}
}

// TestUpdateInterrupted: an Update whose context ends, or whose fn
// panics, writes nothing, and the store goes on working.
func TestUpdateInterrupted(t *testing.T) {
	s, _ := openStore(t)
	write(t, s, "f", []byte("old"))
	ctx, cancel := context.WithCancel(t.Context())
	err := s.Update(ctx, "f", 1<<30, func([]byte, vfs.Info) ([]byte, error) {
		cancel()
		return []byte("new"), nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update whose context ended: %v, want context.Canceled", err)
	}
	func() {
		defer func() { _ = recover() }()
		_ = s.Update(t.Context(), "f", 1<<30, func([]byte, vfs.Info) ([]byte, error) { panic("fn panics") })
	}()
	if got := string(read(t, s, "f", 0)); got != "old" {
		t.Errorf("after interrupted Updates f holds %q, want %q", got, "old")
	}
	if err := increment(t.Context(), s, "g"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("Update(g): %v, want ENOENT", err)
	}
	write(t, s, "f", []byte("41"))
	if err := increment(t.Context(), s, "f"); err != nil {
		t.Fatal(err)
	}
	if got := string(read(t, s, "f", 0)); got != "42" {
		t.Errorf("f = %q, want 42", got)
	}
}

// TestUpdateConcurrent: concurrent read-modify-writes lose nothing.
func TestUpdateConcurrent(t *testing.T) {
	s, _ := openStore(t)
	write(t, s, "counter", []byte("0"))
	const goroutines, rounds = 16, 25
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				if err := increment(t.Context(), s, "counter"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, want := string(read(t, s, "counter", 0)), strconv.Itoa(goroutines*rounds); got != want {
		t.Errorf("counter = %s after %d increments", got, goroutines*rounds)
	}
}

// increment adds one to the number in a file, trying again while
// another writer changed it between the read and the write.
func increment(ctx context.Context, s *sqlitefs.FS, name string) error {
	return untilWritten(func() error {
		return s.Update(ctx, name, 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) {
			n, err := strconv.Atoi(string(old))
			if err != nil {
				return nil, err
			}
			return []byte(strconv.Itoa(n + 1)), nil
		})
	})
}

// untilWritten calls update until it does not fail with EAGAIN.
func untilWritten(update func() error) error {
	for {
		if err := update(); errno.CodeOf(err) != errno.EAGAIN {
			return err
		}
	}
}

// failingReader yields n bytes of data, then fails with err.
type failingReader struct {
	data []byte
	err  error
	hook func() // called once, when the data is used up
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		if r.hook != nil {
			r.hook()
			r.hook = nil
		}
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestWriteFileFails checks that a write whose reader fails or whose
// context ends keeps the old content and leaves no garbage.
func TestWriteFileFails(t *testing.T) {
	errRead := errors.New("the command died")
	old := pattern(5, 100)
	tests := []struct {
		name string
		run  func(t *testing.T, s *sqlitefs.FS) error
		want error
	}{
		{"reader fails", func(t *testing.T, s *sqlitefs.FS) error {
			return s.WriteFile(t.Context(), "f", &failingReader{data: pattern(6, 40*sqlitefs.ChunkSize), err: errRead}, 0o600)
		}, errRead},
		{"context cancelled", func(t *testing.T, s *sqlitefs.FS) error {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			return s.WriteFile(ctx, "f", &failingReader{data: pattern(6, 40*sqlitefs.ChunkSize), err: io.EOF, hook: cancel}, 0o600)
		}, context.Canceled},
		{"parent removed meanwhile", func(t *testing.T, s *sqlitefs.FS) error {
			return s.WriteFile(t.Context(), "d/g", &failingReader{data: pattern(6, 40*sqlitefs.ChunkSize), err: io.EOF, hook: func() {
				if err := s.RemoveAll(t.Context(), "d"); err != nil {
					t.Error(err)
				}
			}}, 0o600)
		}, errno.ENOENT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, path := openStore(t)
			if err := s.Mkdir(t.Context(), "d", 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, s, "f", old)
			err := tt.run(t, s)
			if !errors.Is(err, tt.want) {
				t.Errorf("WriteFile: %v, want %v", err, tt.want)
			}
			if got := read(t, s, "f", 0); !bytes.Equal(got, old) {
				t.Errorf("after a failed write f holds %d bytes, want the old %d", len(got), len(old))
			}
			if info := lstat(t, s, "f"); info.Mode != 0o644 {
				t.Errorf("after a failed write f has mode %#o, want the old 0644", info.Mode)
			}
			db := rawDB(t, path)
			if n := queryInt(t, db, `SELECT count(*) FROM chunk`); n != 1 {
				t.Errorf("%d chunks in the database after a failed write, want the old file's 1", n)
			}
		})
	}
}

// TestNames checks raw byte order with names that are not UTF-8, and
// that RemoveAll of a tree spares its siblings that share its prefix.
func TestNames(t *testing.T) {
	s, _ := openStore(t)
	emptyRoot(t, s)
	ctx := t.Context()
	for _, d := range []string{"a", "a/b", "a.", "a0", "ab", "a\xff"} {
		if err := s.Mkdir(ctx, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/x", "a/b/y", "a-", "a/b0", "a./z", "a0/w", "ab/v", "a\xff/\xfe"} {
		write(t, s, f, []byte(f))
	}
	list := func(dir string) []string {
		entries, err := s.ReadDir(ctx, dir, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name)
		}
		return out
	}
	if got, want := list(""), []string{"a", "a-", "a.", "a0", "ab", "a\xff"}; !slices.Equal(got, want) {
		t.Errorf("root lists %q, want %q", got, want)
	}
	if got := string(read(t, s, "a\xff/\xfe", 0)); got != "a\xff/\xfe" {
		t.Errorf("a file with a non-UTF-8 name holds %q", got)
	}
	if err := s.RemoveAll(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, want := list(""), []string{"a-", "a.", "a0", "ab", "a\xff"}; !slices.Equal(got, want) {
		t.Errorf("after RemoveAll(a) the root lists %q, want %q", got, want)
	}
	for _, f := range []string{"a./z", "a0/w", "ab/v", "a\xff/\xfe"} {
		if got := string(read(t, s, f, 0)); got != f {
			t.Errorf("%q holds %q after RemoveAll(a)", f, got)
		}
	}
	for _, name := range []string{"a/x", "a/b", "a/b/y"} {
		if _, err := s.Lstat(ctx, name); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("Lstat(%q) after RemoveAll(a): %v, want ENOENT", name, err)
		}
	}
	for _, name := range []string{"/a", "a/", "a//b", "./a", "a/..", "a\x00b"} {
		if _, err := s.Lstat(ctx, name); errno.CodeOf(err) != errno.EINVAL {
			t.Errorf("Lstat(%q): %v, want EINVAL", name, err)
		}
	}
	if err := s.RemoveAll(ctx, ""); errno.CodeOf(err) != errno.EPERM {
		t.Errorf("RemoveAll(root): %v, want EPERM", err)
	}
}

// TestPersistence: what one FS wrote, the next one on the file reads.
func TestPersistence(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd dir?#%")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ws 1.db")
	s := reopen(t, path)
	data := pattern(9, 2*sqlitefs.ChunkSize+3)
	if err := s.Mkdir(t.Context(), "d", 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, s, "d/f", data)
	if err := s.Symlink(t.Context(), "d/f", "l"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "ws 1.db" {
		t.Fatalf("directory after Close holds %v, %v; want the database alone", entries, err)
	}
	s = reopen(t, path)
	if got := read(t, s, "d/f", 0); !bytes.Equal(got, data) {
		t.Errorf("reopened file holds %d bytes, want %d", len(got), len(data))
	}
	if info := lstat(t, s, "d"); info.Mode != 0o700 || info.Type != vfs.TypeDir {
		t.Errorf("reopened d: %+v", info)
	}
	if info := lstat(t, s, "l"); info.Target != "d/f" || info.Mode != 0o777 {
		t.Errorf("reopened link: %+v", info)
	}
}

// TestClock checks that the injected clock stamps every mtime, truncated
// to milliseconds, on the nodes memfs stamps.
func TestClock(t *testing.T) {
	const start = 1767225600000
	at := func(ms int64) time.Time { return time.UnixMilli(ms).Add(999 * time.Microsecond) }
	clk := storetest.NewClock(at(start))
	fs, _ := openStore(t, sqlitefs.WithClock(clk.Now))
	ctx := t.Context()
	steps := []struct {
		name string
		op   func() error
		want map[string]int64
	}{
		{"new", func() error { return nil }, map[string]int64{"": start}},
		{"mkdir", func() error { return fs.Mkdir(ctx, "d", 0o755) },
			map[string]int64{"": start + 1, "d": start + 1}},
		{"write new file", func() error { return fs.WriteFile(ctx, "d/f", strings.NewReader("x"), 0o644) },
			map[string]int64{"": start + 1, "d": start + 2, "d/f": start + 2}},
		{"replace file", func() error { return fs.WriteFile(ctx, "d/f", strings.NewReader("yy"), 0o644) },
			map[string]int64{"": start + 1, "d": start + 2, "d/f": start + 3}},
		{"symlink", func() error { return fs.Symlink(ctx, "f", "d/l") },
			map[string]int64{"": start + 1, "d": start + 4, "d/l": start + 4, "d/f": start + 3}},
		{"chmod keeps mtime", func() error { return fs.Chmod(ctx, "d/f", 0o600) },
			map[string]int64{"d": start + 4, "d/f": start + 3}},
		{"update stamps the file", func() error {
			return fs.Update(ctx, "d/f", 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) { return old, nil })
		}, map[string]int64{"d": start + 4, "d/f": start + 6}},
		{"remove stamps the parent", func() error { return fs.Remove(ctx, "d/l") },
			map[string]int64{"": start + 1, "d": start + 7, "d/f": start + 6}},
		{"removeall stamps the parent", func() error { return fs.RemoveAll(ctx, "d") },
			map[string]int64{"": start + 8}},
	}
	for i, st := range steps {
		clk.Set(at(start + int64(i)))
		if err := st.op(); err != nil {
			t.Fatalf("step %q: %v", st.name, err)
		}
		for name, want := range st.want {
			if got := lstat(t, fs, name).MTime; got != want {
				t.Errorf("step %q: mtime of %q = %d, want %d", st.name, name, got, want)
			}
		}
	}
}

// TestNewDatabaseWorkspace: a new database holds the workspace
// directory, empty, 0o755, and is sound; a database without one (its
// workspace removed) is opened as it is, nothing added.
func TestNewDatabaseWorkspace(t *testing.T) {
	ctx := t.Context()
	s, path := openStore(t)
	if got := names(t, s, ""); !slices.Equal(got, []string{"workspace"}) {
		t.Errorf("a new database's root lists %q, want [workspace]", got)
	}
	info := lstat(t, s, "workspace")
	if info.Type != vfs.TypeDir || info.Mode != 0o755 {
		t.Errorf("workspace of a new database: %v %o, want a directory 0o755", info.Type, info.Mode)
	}
	if got := names(t, s, "workspace"); len(got) != 0 {
		t.Errorf("workspace of a new database lists %q, want nothing", got)
	}
	rep, err := sqlitefs.Check(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Errorf("Check of a new database: %+v", rep)
	}
	emptyRoot(t, s)
	s.Close()
	if got := names(t, reopen(t, path), ""); len(got) != 0 {
		t.Errorf("reopened without its workspace, the root lists %q, want nothing", got)
	}
}
