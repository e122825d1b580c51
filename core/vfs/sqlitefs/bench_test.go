package sqlitefs_test

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/core/vfs/storebench"
)

func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) vfs.Store {
		s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "ws.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkReadSequential reads a 3 MiB file from its start in 64 KiB
// reads, as read does when it counts lines to an offset: the reader's
// window grows to 16 chunks, in a buffer of that size from the start.
func BenchmarkReadSequential(b *testing.B) {
	s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "ws.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	data := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)
	if err := s.WriteFile(b.Context(), "f", bytes.NewReader(data), 0o644); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, err := s.Open(b.Context(), "f", 0)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Read(buf); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
}

// BenchmarkReadSmall opens a file of 625 bytes and reads it whole, as
// read does for a small file: the statement that reads its node and
// first chunk, and the reader's buffers.
func BenchmarkReadSmall(b *testing.B) {
	s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "ws.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	data := bytes.Repeat([]byte("lorem ipsum dolor sit amet\n"), 625/27+1)[:625]
	if err := s.WriteFile(b.Context(), "f", bytes.NewReader(data), 0o644); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for b.Loop() {
		r, err := s.Open(b.Context(), "f", 0)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.ReadFull(r, buf[:len(data)]); n != len(data) || err != nil {
			b.Fatal(n, err)
		}
		r.Close()
	}
}

// BenchmarkWrite1MiB replaces a file with 1 MiB, a batch of chunks, as
// the bench's write-1MiB row does.
func BenchmarkWrite1MiB(b *testing.B) {
	s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "ws.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.WriteFile(b.Context(), "f", bytes.NewReader(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
