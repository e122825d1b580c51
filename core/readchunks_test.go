package core_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// chunkyFS is a memfs whose files read a few bytes at a time (at most
// max, at least 1; 1 for max 1), so that read sees every line cut
// across its reads.
type chunkyFS struct {
	*memfs.FS
	rng *rand.Rand
	max int
}

func (f chunkyFS) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	r, err := f.FS.Open(ctx, name, offset)
	if err != nil {
		return nil, err
	}
	return chunkyReader{r, f}, nil
}

type chunkyReader struct {
	io.ReadCloser
	f chunkyFS
}

func (r chunkyReader) Read(p []byte) (int, error) {
	if n := 1 + r.f.rng.IntN(r.f.max); n < len(p) {
		p = p[:n]
	}
	return r.ReadCloser.Read(p)
}

// readPieces are pieces of random files: lines of many lengths (some
// past the byte caps the options set), line endings, a BOM, bytes that
// are not UTF-8, characters of two to four bytes.
var readPieces = []string{"a", "line", "\n", "\n", "\n", "\r\n", "\ufeff", "\xff", "\xe2\x82", "é", "€", "𝄞", "\t", " ",
	strings.Repeat("x", 40), strings.Repeat("y", 300), strings.Repeat("é", 90)}

// TestReadSameWhateverTheChunks checks read's answers against the same
// read of a store that hands the file over a few bytes at a time, and
// one byte at a time: a line read whole from one chunk is processed
// from the chunk, a line cut across chunks is gathered first, and the
// two must answer alike, on random files, options and arguments.
func TestReadSameWhateverTheChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 7))
	for i := range 400 {
		var file strings.Builder
		for range rng.IntN(60) {
			file.WriteString(readPieces[rng.IntN(len(readPieces))])
		}
		opts := core.Options{}
		switch rng.IntN(5) {
		case 0:
			opts.Read.MaxLines = 1 + rng.Int64N(8)
		case 1:
			opts.Read.MaxBytes = 1 + rng.Int64N(400)
		case 2:
			opts.Read.LineTruncation = &core.LineTruncation{Bytes: 1 + rng.Int64N(50)}
		case 3:
			opts.Read.LineTruncation = &core.LineTruncation{Chars: 1 + rng.Int64N(50)}
		}
		opts.Read.IncludeLineNumbers = rng.IntN(3) == 0
		args := `{"path":"/workspace/f.txt"`
		if rng.IntN(2) == 0 {
			args += fmt.Sprintf(`,"offset":%d`, 1+rng.IntN(10))
		}
		if rng.IntN(3) == 0 {
			args += fmt.Sprintf(`,"limit":%d`, 1+rng.IntN(10))
		}
		if rng.IntN(3) == 0 {
			args += fmt.Sprintf(`,"byteOffset":%d`, rng.IntN(file.Len()+2))
		}
		args += "}"
		checkReadChunks(t, fmt.Sprintf("file %d", i), []byte(file.String()), opts, []byte(args), rng.Uint64())
	}
	// Short lines against small caps: the page ends at every boundary
	// of bytes and lines.
	for i := range 400 {
		var file strings.Builder
		for range rng.IntN(30) {
			file.WriteString(strings.Repeat("ab", rng.IntN(6)) + "\n")
		}
		opts := core.Options{Read: core.ReadOptions{MaxBytes: 1 + rng.Int64N(60), MaxLines: 1 + rng.Int64N(30)}}
		args := fmt.Sprintf(`{"path":"/workspace/f.txt","offset":%d}`, 1+rng.IntN(5))
		checkReadChunks(t, fmt.Sprintf("short lines %d", i), []byte(file.String()), opts, []byte(args), rng.Uint64())
	}
}

// checkReadChunks compares read's answer to args over content with the
// answers of stores that read it in pieces of at most 1, 7 and 100 bytes.
func checkReadChunks(t *testing.T, what string, content []byte, opts core.Options, args []byte, seed uint64) {
	t.Helper()
	var want []byte
	for _, max := range []int{0, 1, 7, 100} {
		store := vfs.Store(memfs.New())
		if max > 0 {
			store = chunkyFS{memfs.New(), rand.New(rand.NewPCG(seed, uint64(max))), max}
		}
		ws := vfs.New(store)
		if err := ws.WriteFile(t.Context(), "/workspace/f.txt", content, vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
		ex, err := core.New(ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ex.Call(t.Context(), "read", args)
		if err != nil {
			t.Fatal(err)
		}
		got := append([]byte(string(out.Kind)+"\x00"+out.Text+"\x00"), out.JSON...)
		if max == 0 {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("%s %q, %+v, %s, read %d bytes at most at a time:\n got %q\nwant %q", what, content, opts.Read, args, max, got, want)
		}
	}
}

// FuzzReadSameWhateverTheChunks is TestReadSameWhateverTheChunks on any
// file, byte cap and arguments.
func FuzzReadSameWhateverTheChunks(f *testing.F) {
	f.Add([]byte("a\nbb\r\nccc\n"), int64(0), int64(0), int64(0), uint64(1))
	f.Add([]byte(strings.Repeat("x", 500)+"\nend"), int64(100), int64(2), int64(3), uint64(2))
	f.Fuzz(func(t *testing.T, content []byte, maxBytes, offset, byteOffset int64, seed uint64) {
		if len(content) > 1<<12 || maxBytes < 0 || offset < 0 || offset > 1<<20 || byteOffset < 0 || byteOffset > 1<<20 {
			return
		}
		args := `{"path":"/workspace/f.txt"`
		if offset > 0 {
			args += fmt.Sprintf(`,"offset":%d`, offset)
		}
		if byteOffset > 0 {
			args += fmt.Sprintf(`,"byteOffset":%d`, byteOffset)
		}
		args += "}"
		checkReadChunks(t, "fuzz", content, core.Options{Read: core.ReadOptions{MaxBytes: maxBytes}}, []byte(args), seed)
	})
}
