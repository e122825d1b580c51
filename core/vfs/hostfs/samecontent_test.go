package hostfs

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// Update's last check compares the file with what it read, block by
// block: every difference (a changed byte anywhere, one byte more or
// less) is one, at block boundaries too, and short reads change nothing.
func TestSameContent(t *testing.T) {
	const block = 256 << 10
	for _, n := range []int{0, 1, 100, block - 1, block, block + 1, 2*block + 7} {
		want := bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n]
		check := func(what string, file []byte, same bool) {
			t.Helper()
			if got := sameContent(bytes.NewReader(file), want); got != same {
				t.Errorf("%d bytes, %s: sameContent = %v, want %v", n, what, got, same)
			}
			if got := sameContent(iotest.HalfReader(bytes.NewReader(file)), want); got != same {
				t.Errorf("%d bytes, %s, short reads: sameContent = %v, want %v", n, what, got, same)
			}
		}
		check("equal", want, true)
		check("one more byte", append(append([]byte{}, want...), 'x'), false)
		if n > 0 {
			check("one byte less", want[:n-1], false)
			for _, at := range []int{0, n / 2, n - 1, min(block, n-1), min(block-1, n-1)} {
				changed := append([]byte{}, want...)
				changed[at] ^= 1
				check("a byte changed", changed, false)
			}
		}
	}
	if sameContent(iotest.ErrReader(iotest.ErrTimeout), nil) {
		t.Error("sameContent of a failing read = true")
	}
}
