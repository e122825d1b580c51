package memfs

import (
	"bytes"
	"errors"
	"io"
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
	if err := f.WriteFile(t.Context(), "a.txt", vfs.NewOwnedReader(data), 0o644); err != nil {
		t.Fatal(err)
	}
	n, _, err := f.lookup("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(n.data) != string(data) || &n.data[0] != &data[0] || cap(n.data) != len(data) {
		t.Errorf("stored %q (cap %d), a copy or more than the bytes handed over %q", n.data, cap(n.data), data)
	}

	r := vfs.NewOwnedReader(data)
	if _, err := r.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(t.Context(), "b.txt", r, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _, _ = f.lookup("b.txt"); string(n.data) != "ded over\n" {
		t.Errorf("after 3 bytes read: stored %q, want %q", n.data, "ded over\n")
	}
}
