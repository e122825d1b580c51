package sqlitefs_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// leftBeside lists the database file and the files SQLite keeps beside
// it that are at path.
func leftBeside(path string) []string {
	var left []string
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if _, err := os.Lstat(path + suffix); err == nil {
			left = append(left, filepath.Base(path+suffix))
		}
	}
	return left
}

func newDB(t *testing.T) (*sqlitefs.FS, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// discard runs Discard and requires it to remove the database (want) or
// keep it with the error wantErr.
func discard(t *testing.T, s *sqlitefs.FS, path string, want bool, wantErr error) {
	t.Helper()
	removed, err := s.Discard()
	if removed != want || (wantErr == nil && err != nil) || (wantErr != nil && !errors.Is(err, wantErr)) {
		t.Fatalf("Discard: %v, %v; want %v, %v", removed, err, want, wantErr)
	}
	left := leftBeside(path)
	if want && len(left) != 0 {
		t.Errorf("Discard removed the database but left %q", left)
	}
	if !want && len(left) == 0 {
		t.Errorf("Discard kept the database, but it is gone")
	}
}

// A new database that nobody else used is removed with what lies beside
// it, even after its own writes.
func TestDiscardRemovesUnused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Discard removes a database on Linux only")
	}
	s, path := newDB(t)
	write(t, s, "mine", []byte("mine"))
	discard(t, s, path, true, nil)
	// And the path is free for a new one.
	s, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Lstat(t.Context(), "mine"); err == nil {
		t.Error("a database opened where the discarded one was holds its file")
	}
}

// A database this FS did not make is kept.
func TestDiscardKeepsWhatItDidNotMake(t *testing.T) {
	s, path := newDB(t)
	s.Close()
	s, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	discard(t, s, path, false, sqlitefs.ErrInUse)
}

// Another FS in this process that has the new database open keeps it,
// and keeps working; one that wrote to it and closed keeps it too.
func TestDiscardKeepsForAnotherFS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Discard removes a database on Linux only")
	}
	s, path := newDB(t)
	other := reopen(t, path)
	discard(t, s, path, false, sqlitefs.ErrInUse)
	write(t, other, "b", []byte("b"))
	if got := string(read(t, reopen(t, path), "b", 0)); got != "b" {
		t.Errorf("b = %q after the other FS wrote it", got)
	}

	s, path = newDB(t)
	other, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, other, "b", []byte("b"))
	other.Close()
	discard(t, s, path, false, sqlitefs.ErrInUse)
	if got := string(read(t, reopen(t, path), "b", 0)); got != "b" {
		t.Errorf("b = %q, written by another FS before Discard", got)
	}
}

// Another process that opened the new database and wrote to it: what it
// wrote stays, whether it is still open (and writes more after the
// Discard) or closed before.
func TestDiscardKeepsAnotherProcesssWrites(t *testing.T) {
	for _, closed := range []bool{false, true} {
		s, path := newDB(t)
		cmd, stdin, stderr := startHelper(t, "write", path, "0", "wrote")
		if closed {
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("helper: %v\n%s", err, stderr)
			}
		}
		discard(t, s, path, false, sqlitefs.ErrInUse)
		if !closed {
			if _, err := io.WriteString(stdin, "go on\n"); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("helper: %v\n%s", err, stderr)
			}
		}
		after := reopen(t, path)
		for _, name := range []string{"b", "c"} {
			if got := string(read(t, after, name, 0)); got != name {
				t.Errorf("closed %v: %s = %q, written by the other process", closed, name, got)
			}
		}
	}
}
