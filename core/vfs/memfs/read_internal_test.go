package memfs

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agenttools/agenttools/core/vfs"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// TestReadContent checks readContent against io.ReadAll on readers that
// hand out their bytes in every way a WriteFile caller may: all at once
// with a known length, a byte at a time, in odd pieces across the
// buffer sizes, and failing part way.
func TestReadContent(t *testing.T) {
	sizes := []int{0, 1, 2, 100, 32<<10 - 1, 32 << 10, 32<<10 + 1, 96<<10 + 7, 5 << 20}
	for _, n := range sizes {
		data := bytes.Repeat([]byte("0123456789abcdef\n"), n/17+1)[:n]
		readers := map[string]func() io.Reader{
			"bytes.Reader":   func() io.Reader { return bytes.NewReader(data) },
			"strings.Reader": func() io.Reader { return strings.NewReader(string(data)) },
			"one byte":       func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
			"half":           func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
			"data and EOF":   func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
			"pipe":           func() io.Reader { return pipeOf(data, 4099) },
		}
		if n > 1<<20 {
			delete(readers, "one byte") // slow, and "half" covers small pieces
		}
		for name, r := range readers {
			got, err := readContent(r())
			if err != nil {
				t.Fatalf("%d bytes, %s: %v", n, name, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("%d bytes, %s: read %d bytes, differ from what was written", n, name, len(got))
			}
		}
	}
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(make([]byte, 100<<10)), iotest.ErrReader(boom))
	if _, err := readContent(r); !errors.Is(err, boom) {
		t.Fatalf("a reader failing after 100 KiB: %v, want its error", err)
	}
}

// pipeOf streams data through an io.Pipe in writes of size bytes, as
// exec streams its saved output.
func pipeOf(data []byte, size int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		for len(data) > 0 {
			n := min(size, len(data))
			_, _ = pw.Write(data[:n])
			data = data[n:]
		}
		_ = pw.Close()
	}()
	return pr
}

// TestWriteFileKeepsOwnedBytes: content handed over with a
// vfs.OwnedReader becomes the file's without a copy; once part of it was
// read, the rest is read (and copied) as from any reader.
func TestWriteFileKeepsOwnedBytes(t *testing.T) {
	f := New()
	data := []byte("handed over\n")
	checkKept(t, f, "a.txt", vfs.NewOwnedReader(data), data)

	var n *node

	r := vfs.NewOwnedReader(data)
	if _, err := r.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(t.Context(), "b.txt", r, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _, _ = f.lookup("b.txt"); n == nil || string(n.data) != "ded over\n" {
		t.Errorf("after 3 bytes read: stored %q, want %q", n.data, "ded over\n")
	}
}

// chunks is a vfs.ChunkReader over a list of chunks whose Read must not
// be used: a store that keeps chunks takes them with NextChunk.
type chunks struct {
	list [][]byte
	err  error // after the list, instead of io.EOF
}

func (c *chunks) Read([]byte) (int, error) { return 0, errors.New("Read of a chunk reader") }

func (c *chunks) NextChunk() ([]byte, error) {
	if len(c.list) == 0 {
		return nil, cmp.Or(c.err, io.EOF)
	}
	b := c.list[0]
	c.list = c.list[1:]
	return b, nil
}

// TestWriteFileKeepsChunks: a vfs.ChunkReader's chunks become the file's
// content as they are (one chunk) or joined once into a slice of their
// length (several), never read through Read; its error fails the write.
func TestWriteFileKeepsChunks(t *testing.T) {
	f := New()
	big := []byte("one chunk of a larger buffer\n")
	one := big[:10]
	checkKept(t, f, "one.txt", &chunks{list: [][]byte{one}}, one)

	var n *node
	parts := [][]byte{[]byte("first\n"), []byte("second\n"), []byte("third")}
	if err := f.WriteFile(t.Context(), "three.txt", &chunks{list: slices.Clone(parts)}, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _, _ = f.lookup("three.txt"); string(n.data) != "first\nsecond\nthird" || cap(n.data) != len(n.data) {
		t.Errorf("stored %q (cap %d), want the three chunks joined", n.data, cap(n.data))
	}
	if err := f.WriteFile(t.Context(), "none.txt", &chunks{}, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _, _ = f.lookup("none.txt"); len(n.data) != 0 {
		t.Errorf("no chunks stored %q", n.data)
	}
	boom := errors.New("boom")
	if err := f.WriteFile(t.Context(), "three.txt", &chunks{list: parts, err: boom}, 0o644); !errors.Is(err, boom) {
		t.Errorf("a chunk reader failing: %v, want its error", err)
	}
	if n, _, _ = f.lookup("three.txt"); string(n.data) != "first\nsecond\nthird" {
		t.Errorf("a failed write changed the file to %q", n.data)
	}
}

// checkKept writes r to name and checks that the file's content is the
// bytes handed over, not a copy, and holds no capacity past them.
func checkKept(t *testing.T, f *FS, name string, r io.Reader, handed []byte) {
	t.Helper()
	if err := f.WriteFile(t.Context(), name, r, 0o644); err != nil {
		t.Fatal(err)
	}
	n, _, err := f.lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if string(n.data) != string(handed) || &n.data[0] != &handed[0] || cap(n.data) != len(handed) {
		t.Errorf("stored %q (cap %d), a copy of the bytes handed over %q or more than them", n.data, cap(n.data), handed)
	}
}
