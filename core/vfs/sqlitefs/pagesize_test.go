package sqlitefs_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"strconv"
	"testing"
)

// pageSizeOf is the page size the header of the database file at path
// gives.
func pageSizeOf(t *testing.T, path string) int {
	t.Helper()
	b := readFile(t, path)
	if n := int(binary.BigEndian.Uint16(b[16:])); n != 1 {
		return n
	}
	return 1 << 16
}

// TestNewDatabasePageSize: a database Open creates has 16 KiB pages (4
// KiB before), so that bulk content moves in a quarter of the system
// calls.
func TestNewDatabasePageSize(t *testing.T) {
	s, path := openStore(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pageSizeOf(t, path); got != 16<<10 {
		t.Fatalf("page size %d, want %d", got, 16<<10)
	}
}

// TestOldPageSizeKept: a database of 4 KiB pages (as earlier versions
// made them) keeps its page size, and its files are read and replaced as
// before.
func TestOldPageSizeKept(t *testing.T) {
	s, path := openStore(t)
	old := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320,000 bytes: 5 chunks
	if err := s.WriteFile(t.Context(), "workspace/f", bytes.NewReader(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, q := range []string{`PRAGMA journal_mode = DELETE`, `PRAGMA page_size = 4096`, `VACUUM`, `PRAGMA journal_mode = WAL`} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pageSizeOf(t, path); got != 4096 {
		t.Fatalf("page size %d after VACUUM, want 4096", got)
	}
	s = reopen(t, path)
	readBack(t, s, "workspace/f", old)
	fresh := bytes.Repeat([]byte("fedcba9876543210"), 70000)
	if err := s.WriteFile(t.Context(), "workspace/f", bytes.NewReader(fresh), 0o644); err != nil {
		t.Fatal(err)
	}
	readBack(t, s, "workspace/f", fresh)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pageSizeOf(t, path); got != 4096 {
		t.Fatalf("page size %d after reopening, want 4096 kept", got)
	}
}

// readBack checks that the file at name holds want.
func readBack(t *testing.T, s interface {
	Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error)
}, name string, want []byte) {
	t.Helper()
	r, err := s.Open(t.Context(), name, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v; want the %d written", len(got), err, len(want))
	}
}

// TestReadersMapFile: the reading connections map the database file
// (PRAGMA mmap_size, 1 GiB), so reading a page takes no system call;
// not where addresses are 32 bits.
func TestReadersMapFile(t *testing.T) {
	s, _ := openStore(t)
	got, err := s.ReadPragma(t.Context(), "mmap_size")
	if err != nil {
		t.Fatal(err)
	}
	want := int64(0)
	if strconv.IntSize == 64 {
		want = 1 << 30
	}
	if got != want {
		t.Fatalf("mmap_size %d, want %d", got, want)
	}
}
