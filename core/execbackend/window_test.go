package execbackend_test

import (
	"bytes"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
)

// TestWindowKeepsOwnedChunks: PushOwned keeps a chunk as it is (no copy
// per chunk), and a chunk joined onto a kept one never writes into the
// caller's array past the kept chunk's end.
func TestWindowKeepsOwnedChunks(t *testing.T) {
	l := execbackend.Limits{MaxBytes: 64 << 10, MaxLines: 1 << 20}
	chunk := bytes.Repeat([]byte("line of output\n"), (64<<10)/15)
	const n = 8
	allocs := func(push func(*execbackend.Window, []byte)) float64 {
		return testing.AllocsPerRun(10, func() {
			w := execbackend.NewWindow(l)
			for range n {
				push(w, chunk)
			}
		})
	}
	copied := allocs((*execbackend.Window).Push)
	kept := allocs(func(w *execbackend.Window, c []byte) { w.PushOwned(c) })
	if kept > copied-n {
		t.Errorf("%d chunks pushed: %v allocations owned, %v copied; want one fewer a chunk", n, kept, copied)
	}

	buf := []byte("first\nSECRET")
	w := execbackend.NewWindow(execbackend.Limits{MaxBytes: 100, MaxLines: 100})
	w.PushOwned(buf[:6])
	w.PushOwned([]byte("second\n"))
	if string(buf) != "first\nSECRET" {
		t.Errorf("the caller's array became %q", buf)
	}
	if tail, whole := w.Read(); !whole || string(tail.Bytes) != "first\nsecond\n" {
		t.Errorf("Read = %q (whole %v), want the two chunks", tail.Bytes, whole)
	}
}
