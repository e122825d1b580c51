package core

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
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
				got := string(d.decode([]byte(in[:i]))) + string(d.decode([]byte(in[i:j]))) + string(d.decode([]byte(in[j:]))) + d.flush()
				if got != want {
					t.Fatalf("%q cut at %d and %d: %q, want %q", in, i, j, got, want)
				}
			}
		}
		// Byte by byte.
		var d streamDecoder
		got := ""
		for k := 0; k < len(in); k++ {
			got += string(d.decode([]byte{in[k]}))
		}
		if got += d.flush(); got != want {
			t.Errorf("%q byte by byte: %q, want %q", in, got, want)
		}
	}
}

// utf8Seeds are the inputs every UTF-8 fuzz target starts from: each
// kind of sequence the WHATWG decoder treats apart.
var utf8Seeds = []string{
	"",
	"abc",
	"€A😀",
	"\xE2\x82\x41\x42", // truncated three-byte sequence, then ASCII
	"\xE2\x82",         // truncated at the end
	"\xF0\x9F\x98",     // truncated four-byte sequence at the end
	"\xF0\x9F\x98\xE2", // truncated, then another
	"\xF0\x9FA\xF0\x9F\x98\x80",
	"\x80",               // lone continuation byte
	"a\x80\x80\x80\x80b", // a run of them
	"\xE0\x80",           // overlong
	"\xE0\xA0",           // valid prefix at the end
	"\xC0\xAF\xC1\xBF",   // overlong two-byte sequences
	"\xED\xA0\x80",       // surrogate
	"\xED\xBF\xBF\xED\x9F\xBF",
	"\xF4\x90\x80\x80",          // above U+10FFFF
	"\xF4\x8F\xBF\xBF",          // U+10FFFF
	"\xF5\x80\xFF\xFE",          // bytes that never start a sequence
	"\xEF\xBF\xBD",              // U+FFFD itself
	"\xEF\xBB\xBFA",             // BOM at the start
	"\xEF\xBB\xBF",              // BOM alone
	"\xEF\xBB\xBF\xEF\xBB\xBFA", // two BOMs
	"A\xEF\xBB\xBFB",            // BOM in the middle
	"\xEF\xBB",                  // a partial BOM
	"\xEF\xBBA",
	"\xEF\xBB\xBF\xFF",
	"x\xE9 \xE2\x82A \xF0\x9F\x98 \xC0\xAF \xED\xA0\x80 \xF4\x90\x80\x80 end",
}

// xDecode is the oracle: golang.org/x/text's UTF-8 decoder (with its
// BOM-stripping variant) over the whole input, run through transform.
func xDecode(t *testing.T, b []byte, stripBOM bool) string {
	enc := unicode.UTF8
	if stripBOM {
		enc = unicode.UTF8BOM
	}
	text, _, err := transform.Bytes(enc.NewDecoder(), b)
	if err != nil {
		t.Fatalf("x/text decoding %q: %v", b, err)
	}
	return string(text)
}

// FuzzDecodeText checks DecodeText against x/text's decoder, and checks
// properties that hold without it: valid text is kept, every ASCII byte
// survives in order, and no byte gives more than one character.
func FuzzDecodeText(f *testing.F) {
	for _, s := range utf8Seeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, stripBOM bool) {
		got := DecodeText(b, stripBOM)
		if want := xDecode(t, b, stripBOM); got != want {
			t.Fatalf("DecodeText(%q, %v) = %q, x/text gives %q", b, stripBOM, got, want)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("DecodeText(%q) = %q is not valid UTF-8", b, got)
		}
		if utf8.Valid(b) {
			want := string(b)
			if stripBOM {
				want = strings.TrimPrefix(want, bom)
			}
			if got != want {
				t.Fatalf("DecodeText(%q) = %q, want the input unchanged: %q", b, got, want)
			}
		}
		var ascii, gotASCII []byte
		for _, c := range b {
			if c < utf8.RuneSelf {
				ascii = append(ascii, c)
			}
		}
		for i := 0; i < len(got); i++ {
			if got[i] < utf8.RuneSelf {
				gotASCII = append(gotASCII, got[i])
			}
		}
		if !bytes.Equal(ascii, gotASCII) {
			t.Fatalf("DecodeText(%q) = %q lost or added ASCII", b, got)
		}
		if n := utf8.RuneCountInString(got); n > len(b) {
			t.Fatalf("DecodeText(%q) = %q has more characters (%d) than input bytes", b, got, n)
		}
	})
}

// FuzzStreamDecoder feeds the input to a streamDecoder in chunks whose
// lengths come from cuts (each byte mod 6, so empty chunks and every cut
// inside a sequence occur; the rest is the last chunk) and compares what
// comes out with x/text's decoding of the whole input.
func FuzzStreamDecoder(f *testing.F) {
	for _, s := range utf8Seeds {
		f.Add([]byte(s), []byte{})
		f.Add([]byte(s), []byte{1, 1, 1, 1, 1, 1, 1, 1})
		f.Add([]byte(s), []byte{2, 0, 3, 1, 5})
		f.Add([]byte(s), []byte{3, 2, 4})
	}
	f.Fuzz(func(t *testing.T, b, cuts []byte) {
		var d streamDecoder
		var got strings.Builder
		rest := b
		for _, c := range cuts {
			n := min(int(c)%6, len(rest))
			got.Write(d.decode(rest[:n]))
			rest = rest[n:]
		}
		got.Write(d.decode(rest))
		got.WriteString(d.flush())
		if want := xDecode(t, b, true); got.String() != want {
			t.Fatalf("%q in chunks cut by %v: %q, x/text gives %q", b, cuts, got.String(), want)
		}
	})
}

// FuzzRawOffset checks rawOffset against DecodeText: the offsets it
// gives for the decoded text's character boundaries, in order, cut the
// raw bytes into pieces that each decode on their own to the text
// between the two boundaries, and the end of the text maps to the end
// of the bytes.
func FuzzRawOffset(f *testing.F) {
	for _, s := range utf8Seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		text := DecodeText(b, false)
		prevText, prevRaw := 0, 0
		for decoded := 1; decoded <= len(text); decoded++ {
			if decoded < len(text) && !utf8.RuneStart(text[decoded]) {
				continue
			}
			at := rawOffset(b, decoded)
			if at <= prevRaw || at > len(b) {
				t.Fatalf("rawOffset(%q, %d) = %d, after %d for %d", b, decoded, at, prevRaw, prevText)
			}
			if piece := DecodeText(b[prevRaw:at], false); piece != text[prevText:decoded] {
				t.Fatalf("rawOffset(%q, %d) = %d: bytes %d to %d decode to %q, want %q",
					b, decoded, at, prevRaw, at, piece, text[prevText:decoded])
			}
			prevText, prevRaw = decoded, at
		}
		if prevRaw != len(b) || rawOffset(b, 0) != 0 {
			t.Fatalf("rawOffset(%q, %d) = %d, want the end %d", b, len(text), prevRaw, len(b))
		}
	})
}

// benchText is 1 MiB of valid text mixing ASCII, two-, three- and
// four-byte characters, with invalid bytes written over one byte in a
// hundred when invalid is set.
func benchText(invalid bool) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"hello ", "wörld ", "café ", "日本語 ", "😀 ", "line\n", "x = 1; ", "func() {} "}
	var b []byte
	for len(b) < 1<<20-8 {
		b = append(b, words[r.IntN(len(words))]...)
	}
	for len(b) < 1<<20 {
		b = append(b, ' ')
	}
	b = b[:1<<20]
	if invalid {
		for range len(b) / 100 {
			b[r.IntN(len(b))] = byte(0x80 + r.IntN(0x80))
		}
	}
	return b
}

var benchSink string

// BenchmarkDecodeText decodes 1 MiB of text whole and as a stream in
// 64 KiB chunks; "x/text" is x/text's decoder alone, without the copy
// of valid input that DecodeText does first.
func BenchmarkDecodeText(b *testing.B) {
	for _, invalid := range []bool{false, true} {
		in := benchText(invalid)
		name := "valid"
		if invalid {
			name = "invalid1pct"
		}
		b.Run(name+"/whole", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				benchSink = DecodeText(in, true)
			}
		})
		b.Run(name+"/whole/x/text", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				text, _ := unicode.UTF8BOM.NewDecoder().Bytes(in)
				benchSink = string(text)
			}
		})
		b.Run(name+"/stream64KiB", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				var d streamDecoder
				for chunk := range slices.Chunk(in, 64<<10) {
					benchSink = string(d.decode(chunk))
				}
				benchSink = d.flush()
			}
		})
	}
}
