package pgfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storebench"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// benchWorkspaces returns a func that opens a new workspace of a
// database made for b, removed when the benchmark that asked for it ends.
func benchWorkspaces(b *testing.B) func(b *testing.B) *pgfs.FS {
	db := pgtest.Database(b)
	n := 0
	return func(b *testing.B) *pgfs.FS {
		n++
		name := fmt.Sprintf("bench-%d", n)
		f, err := pgfs.Open(context.Background(), withWorkspace(b, db, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			f.Close()
			if err := pgfs.RemoveWorkspace(context.Background(), db, name); err != nil {
				b.Error(err)
			}
		})
		return f
	}
}

func BenchmarkStore(b *testing.B) {
	open := benchWorkspaces(b)
	storebench.Run(b, func(b *testing.B) vfs.Store { return open(b) })
}

// reportRoundTrips reports the round trips per iteration since before.
func reportRoundTrips(b *testing.B, f *pgfs.FS, before int64) {
	b.ReportMetric(float64(f.RoundTrips()-before)/float64(b.N), "roundtrips/op")
}

// BenchmarkReadSmall opens a file of 625 bytes and reads it whole, as
// read does for a small file: the statement that reads its node and
// first chunk, and the reader's buffers.
func BenchmarkReadSmall(b *testing.B) {
	f := benchWorkspaces(b)(b)
	data := bytes.Repeat([]byte("lorem ipsum dolor sit amet\n"), 625/27+1)[:625]
	if err := f.WriteFile(b.Context(), "f", bytes.NewReader(data), 0o644); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	before := f.RoundTrips()
	for b.Loop() {
		r, err := f.Open(b.Context(), "f", 0)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.ReadFull(r, buf[:len(data)]); n != len(data) || err != nil {
			b.Fatal(n, err)
		}
		r.Close()
	}
	reportRoundTrips(b, f, before)
}

// BenchmarkWrite1MiB replaces a file with 1 MiB, as the bench's
// write-1MiB row does.
func BenchmarkWrite1MiB(b *testing.B) {
	f := benchWorkspaces(b)(b)
	data := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16)
	// The pool's connection, its prepared statements and the file are
	// made before the count starts.
	if err := f.WriteFile(b.Context(), "f", bytes.NewReader(data), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	before := f.RoundTrips()
	for b.Loop() {
		if err := f.WriteFile(b.Context(), "f", bytes.NewReader(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	reportRoundTrips(b, f, before)
}
