package hostfs_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
)

// openStore opens a store on a fresh temporary directory.
func openStore(t *testing.T) (*hostfs.FS, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestStore(t *testing.T) {
	strictUmask(t)
	storetest.Run(t, func(t *testing.T) vfs.Store {
		s, _ := openStore(t)
		return s
	}, storetest.ChangeBehind(func(t *testing.T, s vfs.Store, name string, data []byte) {
		// As another program (an editor, sed) would: its writes take no
		// lock of ours.
		if err := os.WriteFile(filepath.Join(s.(*hostfs.FS).Dir(), name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}))
}

func TestOpenMissingDir(t *testing.T) {
	if _, err := hostfs.Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
}

func TestDir(t *testing.T) {
	s, dir := openStore(t)
	if s.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", s.Dir(), dir)
	}
}

// TestHostModes checks the modes on the host itself, under a strict umask.
func TestHostModes(t *testing.T) {
	strictUmask(t)
	s, dir := openStore(t)
	ctx := t.Context()
	tests := []struct {
		name string
		dir  bool
		mode uint32
		want fs.FileMode
	}{
		{"f644", false, 0o644, 0o644},
		{"f755", false, 0o755, 0o755},
		{"f4755", false, 0o4755, 0o755 | fs.ModeSetuid},
		{"d755", true, 0o755, fs.ModeDir | 0o755},
		{"d1777", true, 0o1777, fs.ModeDir | fs.ModeSticky | 0o777},
	}
	for _, tt := range tests {
		var err error
		if tt.dir {
			err = s.Mkdir(ctx, tt.name, tt.mode)
		} else {
			err = s.WriteFile(ctx, tt.name, strings.NewReader("x"), tt.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(filepath.Join(dir, tt.name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != tt.want {
			t.Errorf("%s on the host: mode %v, want %v", tt.name, fi.Mode(), tt.want)
		}
	}
}

// TestWriteFileLeavesNoTemporary checks that a failed write removes its
// temporary file.
func TestWriteFileLeavesNoTemporary(t *testing.T) {
	s, dir := openStore(t)
	ctx := t.Context()
	if err := s.Mkdir(ctx, "d", 0o755); err != nil {
		t.Fatal(err)
	}
	// Replacing a directory with a file fails at the rename (Go's rename
	// refuses it with EEXIST).
	err := s.WriteFile(ctx, "d", bytes.NewReader([]byte("data")), 0o644)
	if errno.CodeOf(err) != errno.EEXIST {
		t.Fatalf("WriteFile over a directory: %v, want EEXIST", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "d" {
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		t.Errorf("host directory after a failed write holds %q, want only d", got)
	}
}

// TestSpecialFiles checks that a named pipe shows as "other", empty, and
// that Open refuses it (EINVAL) without blocking.
func TestSpecialFiles(t *testing.T) {
	s, dir := openStore(t)
	if err := testws.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	info, err := s.Lstat(t.Context(), "fifo")
	if err != nil {
		t.Fatal(err)
	}
	if info.Type != vfs.TypeOther || info.Size != 0 {
		t.Errorf("Lstat(fifo) = type %v size %d, want other, size 0", info.Type, info.Size)
	}
	_, err = s.Open(t.Context(), "fifo", 0)
	if errno.CodeOf(err) != errno.EINVAL {
		t.Errorf("Open(fifo) = %v, want EINVAL", err)
	}
}

// TestHostErrorsHideHostPath checks that a store error names the store's
// name, not the host directory.
func TestHostErrorsHideHostPath(t *testing.T) {
	s, dir := openStore(t)
	_, err := s.Lstat(t.Context(), "missing")
	var e *errno.Error
	if !errors.As(err, &e) {
		t.Fatalf("Lstat(missing) = %T %v, want *errno.Error", err, err)
	}
	if e.Code != errno.ENOENT || e.Path != "missing" || e.Message != "no such file or directory" {
		t.Errorf("Lstat(missing) = %+v, want ENOENT at missing", e)
	}
	if filepath.IsAbs(e.Message) || strings.Contains(e.Message, dir) {
		t.Errorf("message %q names the host directory", e.Message)
	}
}

// TestOpenKeepsSnapshot is stricter than the conformance suite: a hostfs
// reader keeps the replaced file's inode, so it reads the old content.
func TestOpenKeepsSnapshot(t *testing.T) {
	s, _ := openStore(t)
	ctx := t.Context()
	if err := s.WriteFile(ctx, "f", bytes.NewReader([]byte("old content")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(ctx, "f", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := s.WriteFile(ctx, "f", bytes.NewReader([]byte("NEW")), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "content" {
		t.Errorf("reader after replace read %q, %v; want %q", b, err, "content")
	}
}

// TestPageHoldsPage: a page of a large directory reads the names in
// batches and keeps the entries up to the page's end, not an entry (and
// its path) for every name: it allocates a name per entry it passes over
// (the host hands names as strings), about 70 bytes, where holding every
// entry took about 400.
func TestPageHoldsPage(t *testing.T) {
	s, _ := openStore(t)
	if b := storetest.PageBytes(t, s, 5000); b > 128 {
		t.Errorf("a page of 10 entries of 5000 allocated %.1f bytes per entry of the directory; want at most 128", b)
	}
}
