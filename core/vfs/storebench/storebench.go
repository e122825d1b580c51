// Package storebench is one set of benchmarks for every vfs.Store, so
// that memfs, hostfs and sqlitefs are measured alike and compare in one
// table: each store's bench_test.go calls Run.
//
// The cases: writing, stating and removing 1000 small files (ns/op is
// for all 1000), listing a directory of 1000 files whole and a page of
// 100 from entry 500, writing a 64 MiB file, reading it whole, and reading
// its last 256 KiB from an offset (MB/s is reported for the three).
//
// This package imports vfs and the standard library (testing); it is
// only ever imported by tests.
package storebench

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

const (
	smallFiles = 1000
	smallSize  = 100      // bytes per small file
	bigSize    = 64 << 20 // bytes of the large file
	tailSize   = 256 << 10
)

// Run runs every case as a sub-benchmark of b. newStore is called once
// per case and must return an empty store; it registers its own cleanup
// with b.
func Run(b *testing.B, newStore func(b *testing.B) vfs.Store) {
	b.Run("Create1000", func(b *testing.B) { benchCreate(b, newStore(b)) })
	b.Run("Stat1000", func(b *testing.B) { benchStat(b, newStore(b)) })
	b.Run("Remove1000", func(b *testing.B) { benchRemove(b, newStore(b)) })
	b.Run("ReadDir1000", func(b *testing.B) { benchReadDir(b, newStore(b), 0, -1) })
	b.Run("ReadDirPage100", func(b *testing.B) { benchReadDir(b, newStore(b), 500, 100) })
	b.Run("Write64MiB", func(b *testing.B) { benchWrite(b, newStore(b)) })
	b.Run("Read64MiB", func(b *testing.B) { benchRead(b, newStore(b), 0) })
	b.Run("ReadTail256KiB", func(b *testing.B) { benchRead(b, newStore(b), bigSize-tailSize) })
}

// content returns n bytes that do not compress to nothing.
func content(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// fill makes directory dir holding smallFiles small files.
func fill(b *testing.B, s vfs.Store, dir string, data []byte) {
	b.Helper()
	if err := s.Mkdir(b.Context(), dir, 0o755); err != nil {
		b.Fatal(err)
	}
	writeSmall(b, s, dir, data)
}

// writeSmall writes smallFiles small files into directory dir.
func writeSmall(b *testing.B, s vfs.Store, dir string, data []byte) {
	b.Helper()
	for i := range smallFiles {
		if err := s.WriteFile(b.Context(), fmt.Sprintf("%s/f%04d", dir, i), bytes.NewReader(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCreate(b *testing.B, s vfs.Store) {
	data := content(smallSize)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := fmt.Sprintf("d%d", i)
		if err := s.Mkdir(b.Context(), dir, 0o755); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		writeSmall(b, s, dir, data)
	}
}

func benchStat(b *testing.B, s vfs.Store) {
	fill(b, s, "d", content(smallSize))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range smallFiles {
			if _, err := s.Lstat(b.Context(), fmt.Sprintf("d/f%04d", j)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchReadDir lists limit entries (all: -1) from offset of a directory
// of smallFiles files.
func benchReadDir(b *testing.B, s vfs.Store, offset, limit int) {
	fill(b, s, "d", content(smallSize))
	want := smallFiles - offset
	if limit >= 0 {
		want = min(want, limit)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		entries, err := s.ReadDir(b.Context(), "d", offset, limit)
		if err != nil || len(entries) != want {
			b.Fatalf("listed %d entries, %v; want %d", len(entries), err, want)
		}
	}
}

func benchRemove(b *testing.B, s vfs.Store) {
	data := content(smallSize)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := fmt.Sprintf("d%d", i)
		fill(b, s, dir, data)
		b.StartTimer()
		for j := range smallFiles {
			if err := s.Remove(b.Context(), fmt.Sprintf("%s/f%04d", dir, j)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchWrite(b *testing.B, s vfs.Store) {
	data := content(bigSize)
	b.SetBytes(bigSize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.WriteFile(b.Context(), "big", bytes.NewReader(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// benchRead reads a 64 MiB file from offset to its end.
func benchRead(b *testing.B, s vfs.Store, offset int64) {
	data := content(bigSize)
	if err := s.WriteFile(b.Context(), "big", bytes.NewReader(data), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(bigSize - offset)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := s.Open(b.Context(), "big", offset)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		r.Close()
		if err != nil || n != bigSize-offset {
			b.Fatalf("read %d bytes, %v; want %d", n, err, bigSize-offset)
		}
	}
}
