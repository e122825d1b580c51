package sqlitefs_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// damageReasons are the reasons a damaged error may give.
var damageReasons = []string{
	toolspec.MsgDatabaseChecksum,
	toolspec.MsgDatabaseChunkMissing,
	toolspec.MsgDatabaseNodeChecksum,
	toolspec.MsgDatabaseNodeInvalid,
	toolspec.MsgDatabaseEntryCount,
	toolspec.MsgDatabaseCounter,
	"the database disk image is malformed",    // SQLITE_CORRUPT
	"file opened that is not a database file", // SQLITE_NOTADB
}

// checkDamaged checks that err is the damaged error of the database at
// path: ErrCorrupt, EIO, and the spec's message naming the file.
func checkDamaged(t *testing.T, op string, err error, path string) {
	t.Helper()
	if !errors.Is(err, sqlitefs.ErrCorrupt) || errno.CodeOf(err) != errno.EIO {
		t.Errorf("%s: %v (code %q), want the damaged error (EIO, ErrCorrupt)", op, err, errno.CodeOf(err))
		return
	}
	for _, reason := range damageReasons {
		if err.Error() == toolspec.MsgDatabaseDamaged(path, reason) {
			return
		}
	}
	t.Errorf("%s: %q, want %q with one of the reasons %q", op, err, toolspec.MsgDatabaseDamaged(path, "…"), damageReasons)
}

// checkRefusesChanges checks that every change s offers is refused with
// the damaged error.
func checkRefusesChanges(t *testing.T, s *sqlitefs.FS, path string) {
	t.Helper()
	ctx := t.Context()
	changes := map[string]func() error{
		"WriteFile": func() error { return s.WriteFile(ctx, "new.txt", strings.NewReader("new"), 0o644) },
		"Create":    func() error { return s.Create(ctx, "new.txt", 0o644) },
		"Mkdir":     func() error { return s.Mkdir(ctx, "newdir", 0o755) },
		"Symlink":   func() error { return s.Symlink(ctx, "x", "link") },
		"Remove":    func() error { return s.Remove(ctx, "d/f1.txt") },
		"RemoveAll": func() error { return s.RemoveAll(ctx, "d") },
		"Chmod":     func() error { return s.Chmod(ctx, "d", 0o700) },
		"Update": func() error {
			return s.Update(ctx, "d/f1.txt", 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, 'x'), nil })
		},
	}
	for _, op := range slices.Sorted(func(yield func(string) bool) {
		for k := range changes {
			if !yield(k) {
				return
			}
		}
	}) {
		checkDamaged(t, op, changes[op](), path)
	}
}

// damagePages overwrites n bytes at offset off inside every other page
// (of the page size the file's header gives) of the file at path, from
// page 1 (the header on page 0 stays intact), with bytes of a fixed seed.
func damagePages(t *testing.T, path string, off, n int) {
	t.Helper()
	b := readFile(t, path)
	size := int(binary.BigEndian.Uint16(b[16:]))
	if size == 1 {
		size = 1 << 16
	}
	r := rand.New(rand.NewPCG(5, 11))
	for p := 1; (p+1)*size <= len(b); p += 2 {
		for i := range n {
			b[p*size+off+i] = byte(r.Uint32())
		}
	}
	writeFile(t, path, b)
}

// TestDamagedPages: 200 bytes of every other page of a database
// overwritten. SQLite does not notice much of that on its own (a listing
// came out shorter, reads returned the garbage). Now every operation
// either answers what was written or fails with the damaged error; none
// answers less or other bytes, and once damage is met every change is
// refused and the file is left as it is.
func TestDamagedPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws.db")
	clock := sqlitefs.WithClock(func() time.Time { return time.UnixMilli(1_700_000_000_000) })
	s, err := sqlitefs.Open(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Mkdir(t.Context(), "d", 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for i := 1; i <= 50; i++ {
		name := fmt.Sprintf("f%d.txt", i)
		files[name] = pattern(uint64(i), 4000)
		write(t, s, "d/"+name, files[name])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	damagePages(t, path, 100, 200)
	before := readFile(t, path)

	s, err = sqlitefs.Open(path, clock)
	if err != nil {
		t.Fatalf("Open: %v (the damage is not on the pages Open reads)", err)
	}
	defer s.Close()
	met := 0
	entries, err := s.ReadDir(t.Context(), "d", 0, -1)
	if err != nil {
		met++
		checkDamaged(t, "ReadDir", err, path)
	} else if len(entries) != len(files) {
		t.Errorf("ReadDir answered %d entries of %d, and no error", len(entries), len(files))
	}
	for name, want := range files {
		r, err := s.Open(t.Context(), "d/"+name, 0)
		if err == nil {
			var got []byte
			got, err = io.ReadAll(r)
			r.Close()
			if err == nil && !bytes.Equal(got, want) {
				t.Errorf("%s: read %d bytes that are not the ones written, and no error", name, len(got))
			}
		}
		if err != nil && errno.CodeOf(err) != errno.ENOENT {
			met++
			checkDamaged(t, "read "+name, err, path)
		} else if err != nil {
			t.Errorf("%s: %v, and ReadDir did not fail", name, err)
		}
	}
	if met == 0 {
		t.Fatal("no operation met the damage")
	}
	t.Logf("%d of %d operations met the damage", met, len(files)+1)
	checkRefusesChanges(t, s, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("the damaged database was written")
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("the damaged database's WAL holds %d bytes", fi.Size())
	}
}

// editChunk changes the stored chunk idx of the content of the file at
// name with edit, behind the store's back, as damage on disk would.
func editChunk(t *testing.T, path, name string, idx int, edit func([]byte) []byte) {
	t.Helper()
	db := rawDB(t, path)
	var data []byte
	if err := db.QueryRow(`SELECT data FROM chunk WHERE cid = (SELECT cid FROM tree WHERE path = ?) AND idx = ?`, name, idx).Scan(&data); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE chunk SET data = ? WHERE cid = (SELECT cid FROM tree WHERE path = ?) AND idx = ?`, edit(data), name, idx); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// TestChunkDamage: a chunk whose bytes changed on disk (SQLite cannot
// tell), one of the wrong length and one missing are damage: a reader
// that needs the chunk fails with the damaged error, never returning the
// bytes or saying the file changed, and so does Update; chunks that are
// intact still read; every later change of that FS is refused. Through
// the workspace, the message is the host failure's reason.
func TestChunkDamage(t *testing.T) {
	const c = sqlitefs.ChunkSize
	data := pattern(7, 3*c+100)
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		reason string
	}{
		{"a changed byte", func(t *testing.T, path string) {
			editChunk(t, path, "f", 1, func(b []byte) []byte { b[100] ^= 1; return b })
		}, toolspec.MsgDatabaseChecksum},
		{"a short chunk", func(t *testing.T, path string) {
			editChunk(t, path, "f", 1, func(b []byte) []byte { return b[:len(b)-1] })
		}, toolspec.MsgDatabaseChunkMissing},
		{"a missing chunk", func(t *testing.T, path string) {
			db := rawDB(t, path)
			if _, err := db.Exec(`DELETE FROM chunk WHERE cid = (SELECT cid FROM tree WHERE path = 'f') AND idx = 1`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, toolspec.MsgDatabaseChunkMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ws.db")
			s := reopen(t, path)
			write(t, s, "f", data)
			if err := s.Mkdir(t.Context(), "d", 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, s, "d/f1.txt", []byte("intact"))
			s.Close()
			tt.damage(t, path)
			want := toolspec.MsgDatabaseDamaged(path, tt.reason)

			s = reopen(t, path)
			// Chunks 0 and 2 are intact.
			if got := read(t, s, "f", 2*c); !bytes.Equal(got, data[2*c:]) {
				t.Error("the intact last chunk reads wrong")
			}
			r, err := s.Open(t.Context(), "f", 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			checkDamaged(t, "read", err, path)
			if err == nil || err.Error() != want {
				t.Errorf("read: %v, want %q", err, want)
			}
			if !bytes.Equal(got, data[:len(got)]) || len(got) > c {
				t.Errorf("the reader returned %d bytes, past the damaged chunk or not the file's", len(got))
			}
			checkRefusesChanges(t, s, path)

			// Update reads the whole file before it calls fn.
			ws := vfs.New(reopen(t, path))
			err = ws.Update(t.Context(), "/f", 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) { return old, nil })
			if !errors.Is(err, sqlitefs.ErrCorrupt) || err.Error() != toolspec.MsgHostIO(toolspec.MsgOpUpdate, "/f", want) {
				t.Errorf("Workspace.Update: %v, want %q", err, toolspec.MsgHostIO(toolspec.MsgOpUpdate, "/f", want))
			}
			if err := ws.WriteFile(t.Context(), "/d/f1.txt", []byte("changed"), vfs.WriteOptions{}); !errors.Is(err, sqlitefs.ErrCorrupt) {
				t.Errorf("a write after the damage was met: %v, want it refused", err)
			}
			if got := read(t, reopen(t, path), "d/f1.txt", 0); string(got) != "intact" {
				t.Errorf("d/f1.txt holds %q", got)
			}
		})
	}
}
