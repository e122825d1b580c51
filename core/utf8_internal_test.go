package core

import (
	"testing"
)

// Decoding a stream in chunks gives the text of decoding it whole,
// wherever the chunks are cut: a character split between chunks comes
// out whole, a BOM is dropped only where the stream starts.
func TestStreamDecoderSplits(t *testing.T) {
	inputs := []string{
		"plain ascii",
		"✓ café 😀 ①",
		"\xef\xbb\xbfbom then text",
		"\xef\xbb\xbf\xef\xbb\xbfsecond bom is text",
		"x\xef\xbb\xbfinner bom",
		"caf\xe9 \xe2\x82A \xf0\x9f\x98 \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 end",
		"end\xf0\x9f\x98",
		"\xf0\x9fA \xe0\x80 \xe0\xa0 \xed\x9f\xbf \xf4\x8f\xbf\xbf",
		"\xe2",
		"\xf0\x9f",
		"",
	}
	for _, in := range inputs {
		want := DecodeText([]byte(in), true)
		// Every split into two chunks, and every split into three.
		for i := 0; i <= len(in); i++ {
			for j := i; j <= len(in); j++ {
				var d streamDecoder
				got := d.decode([]byte(in[:i])) + d.decode([]byte(in[i:j])) + d.decode([]byte(in[j:])) + d.flush()
				if got != want {
					t.Fatalf("%q cut at %d and %d: %q, want %q", in, i, j, got, want)
				}
			}
		}
		// Byte by byte.
		var d streamDecoder
		got := ""
		for k := 0; k < len(in); k++ {
			got += d.decode([]byte{in[k]})
		}
		if got += d.flush(); got != want {
			t.Errorf("%q byte by byte: %q, want %q", in, got, want)
		}
	}
}
