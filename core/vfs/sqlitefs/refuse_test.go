package sqlitefs_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
)

// sidecars lists the files SQLite keeps beside a database.
func sidecars(path string) []string {
	var out []string
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Lstat(path + suffix); err == nil {
			out = append(out, filepath.Base(path+suffix))
		}
	}
	return out
}

// workspaceDB makes a workspace database holding a 1 MiB file, closed.
func workspaceDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agenttools.db")
	s, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile(t.Context(), "f", bytes.NewReader(pattern(1, 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRefuse checks that Open refuses what is no workspace database of
// this layout with a clear message, and changes nothing: the file keeps
// every byte and no file appears beside it.
func TestRefuse(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T) string // returns the path
		kind error
		msg  string // a part of the message
	}{
		{"random bytes", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "agenttools.db")
			b := make([]byte, 10000)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			writeFile(t, path, b)
			return path
		}, sqlitefs.ErrNotDatabase, "agenttools.db: not an SQLite database"},
		{"text", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "agenttools.db")
			writeFile(t, path, []byte("hello\n"))
			return path
		}, sqlitefs.ErrNotDatabase, "not an SQLite database"},
		{"header only", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "agenttools.db")
			writeFile(t, path, []byte("SQLite format 3\x00\x10\x00"))
			return path
		}, sqlitefs.ErrCorrupt, "corrupt"},
		{"truncated", func(t *testing.T) string {
			path := workspaceDB(t)
			b := readFile(t, path)
			writeFile(t, path, b[:len(b)/2])
			return path
		}, sqlitefs.ErrCorrupt, "agenttools.db: the workspace database is corrupt"},
		{"damaged first page", func(t *testing.T) string {
			path := workspaceDB(t)
			b := readFile(t, path)
			for i := 100; i < 4096; i++ {
				b[i] = 0xff
			}
			writeFile(t, path, b)
			return path
		}, sqlitefs.ErrCorrupt, "corrupt"},
		{"newer schema", func(t *testing.T) string {
			path := workspaceDB(t)
			db := rawDB(t, path)
			if _, err := db.Exec(`PRAGMA user_version = 7`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			return path
		}, sqlitefs.ErrNewerSchema, fmt.Sprintf("agenttools.db: workspace database schema version 7 is newer than this program's (%d)", sqlitefs.SchemaVersion)},
		{"another program's database", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "agenttools.db")
			db := rawDB(t, path)
			if _, err := db.Exec(`CREATE TABLE t (x); INSERT INTO t VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			return path
		}, sqlitefs.ErrForeign, "not an agenttools workspace"},
		{"a directory", func(t *testing.T) string { return t.TempDir() }, sqlitefs.ErrNotDatabase, "a directory, not a workspace database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.make(t)
			if got := sidecars(path); len(got) > 0 {
				t.Fatalf("the setup left %q", got)
			}
			var before []byte
			if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
				before = readFile(t, path)
			}
			s, err := sqlitefs.Open(path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("Open: %v", err)
			if !errors.Is(err, tt.kind) {
				t.Errorf("Open: %v, want %v", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Open: %q, want it to say %q", err, tt.msg)
			}
			if before != nil && !bytes.Equal(readFile(t, path), before) {
				t.Error("a refused Open changed the file")
			}
			if got := sidecars(path); len(got) > 0 {
				t.Errorf("a refused Open left %q beside the file", got)
			}
		})
	}
}

// TestRefuseNewerInUse: a newer database that another connection holds
// open (its WAL beside it) is refused too, and its main file unchanged.
func TestRefuseNewerInUse(t *testing.T) {
	path := workspaceDB(t)
	db := rawDB(t, path)
	db.SetMaxOpenConns(1)
	newer := sqlitefs.SchemaVersion + 1
	for _, stmt := range []string{fmt.Sprintf(`PRAGMA user_version = %d`, newer), `CREATE TABLE keep_open (x)`} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if got := sidecars(path); len(got) == 0 {
		t.Fatal("no WAL beside a database in use")
	}
	before := readFile(t, path)
	s, err := sqlitefs.Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded")
	}
	if !errors.Is(err, sqlitefs.ErrNewerSchema) || !strings.Contains(err.Error(), fmt.Sprintf("schema version %d is newer", newer)) {
		t.Errorf("Open: %v, want ErrNewerSchema", err)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("a refused Open changed the file")
	}
}

// TestInitialize: a missing file and an empty one become workspaces.
func TestInitialize(t *testing.T) {
	for _, empty := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "ws.db")
		if empty {
			writeFile(t, path, nil)
		}
		s := reopen(t, path)
		info := lstat(t, s, "")
		if !info.IsDir() || info.Mode != 0o755 {
			t.Errorf("root of a new workspace: %+v", info)
		}
		db := rawDB(t, path)
		if v := queryInt(t, db, `PRAGMA user_version`); v != sqlitefs.SchemaVersion {
			t.Errorf("user_version = %d, want %d", v, sqlitefs.SchemaVersion)
		}
		var mode string
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v; want wal", mode, err)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing", "ws.db")
	if _, err := sqlitefs.Open(missing); err == nil || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Errorf("Open in a missing directory: %v, want an error naming the file", err)
	} else {
		t.Logf("Open in a missing directory: %v", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A pipe or a device is refused, not opened.
func TestRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.db")
	if err := testws.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, os.DevNull} {
		if _, err := sqlitefs.Open(p); !errors.Is(err, sqlitefs.ErrNotDatabase) {
			t.Errorf("Open(%s): %v, want ErrNotDatabase", p, err)
		}
	}
}

// Through a link, the database is the file it names: its journal files
// go beside that file, and a writer through the real path and a reader
// through the link share one database.
func TestOpenThroughALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	w, err := sqlitefs.Open(real)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteFile(t.Context(), "f", strings.NewReader("through the real path"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := sqlitefs.Open(link)
	if err != nil {
		t.Fatalf("Open through the link while the real path is open: %v", err)
	}
	defer r.Close()
	if info, err := r.Lstat(t.Context(), "f"); err != nil || info.Size != int64(len("through the real path")) {
		t.Errorf("through the link: %+v %v", info, err)
	}
	if _, err := os.Lstat(link + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a -wal file beside the link: %v", err)
	}
}
