package core

import "unicode/utf8"

const bom = "\uFEFF"

// utf8Step reads the UTF-8 sequence at b[i:] the way the WHATWG Encoding
// Standard's decoder does: it returns the sequence's length and whether
// it is a valid character. An invalid sequence is a maximal subpart (the
// longest prefix of a valid sequence, or one byte) and decodes to one
// U+FFFD; the byte that broke it is read again on its own.
func utf8Step(b []byte, i int) (n int, valid bool) {
	c := b[i]
	if c < utf8.RuneSelf {
		return 1, true
	}
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1, false
	}
	j := i + 1
	for k := 0; k < need; k++ {
		if j >= len(b) || b[j] < lo || b[j] > hi {
			return j - i, false
		}
		lo, hi = 0x80, 0xBF
		j++
	}
	return j - i, true
}

// DecodeText turns bytes into text the way the reference's TextDecoder
// ("utf-8", not fatal) does: valid UTF-8 is kept, and each maximal invalid
// subpart (as the WHATWG Encoding Standard defines it) becomes one U+FFFD.
// So E2 82 41 gives "\uFFFDA" where Go's own conversion would give two
// replacement characters. When stripBOM is set, a leading byte order mark
// is dropped.
func DecodeText(b []byte, stripBOM bool) string {
	if stripBOM && len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		b = b[3:]
	}
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		n, valid := utf8Step(b, i)
		if valid {
			out = append(out, b[i:i+n]...)
		} else {
			out = append(out, "\uFFFD"...)
		}
		i += n
	}
	return string(out)
}

// rawOffset maps an offset of DecodeText(b, false) back to b: the offset
// in b where the decoded text up to decoded ends.
func rawOffset(b []byte, decoded int) int {
	at, out := 0, 0
	for at < len(b) && out < decoded {
		n, valid := utf8Step(b, at)
		if valid {
			out += n
		} else {
			out += len("\uFFFD")
		}
		at += n
	}
	return at
}

// streamDecoder decodes a stream of chunks the way a TextDecoder with
// {stream: true} does: a byte order mark that starts the stream is
// dropped, a character split between two chunks comes out whole, and an
// incomplete sequence at the very end becomes U+FFFD when the stream is
// flushed.
type streamDecoder struct {
	carry   []byte
	started bool // some bytes were decoded: a BOM now is text
}

// decode returns the text of chunk, holding back an incomplete sequence
// at its end for the next chunk.
func (d *streamDecoder) decode(chunk []byte) string {
	b := chunk
	if len(d.carry) > 0 {
		b = append(d.carry, chunk...)
		d.carry = nil
	}
	// Hold back a trailing sequence that is a valid start of a character.
	for back := 1; back <= 3 && back <= len(b); back++ {
		at := len(b) - back
		if !utf8.RuneStart(b[at]) {
			continue
		}
		if n, valid := utf8Step(b, at); !valid && n == back && incomplete(b[at]) > back {
			d.carry = append([]byte(nil), b[at:]...)
			b = b[:at]
		}
		break
	}
	if len(b) == 0 {
		return ""
	}
	text := DecodeText(b, !d.started)
	d.started = true
	return text
}

// flush ends the stream: a held-back incomplete sequence is U+FFFD.
func (d *streamDecoder) flush() string {
	if len(d.carry) == 0 {
		return ""
	}
	d.carry = nil
	return "\uFFFD"
}

// incomplete is how many bytes the sequence a lead byte starts needs.
func incomplete(lead byte) int {
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		return 2
	case lead >= 0xE0 && lead <= 0xEF:
		return 3
	case lead >= 0xF0 && lead <= 0xF4:
		return 4
	}
	return 1
}
