package core

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agenttools/agenttools/toolspec"
)

// The argument text's JSON, parsed in one pass.
//
// The grammar, the nesting limit and where a refusal points are those of
// encoding/json's scanner (the decoder the arguments went through before,
// kept as the reference in args_old_test.go), byte for byte: a refusal
// names the first byte at which the text stops being the start of a JSON
// value, an end too early is an end too early wherever it falls, and the
// 10001st nested array or object is one too deep. Strings decode as
// encoding/json decodes them, a lone surrogate escape as U+FFFD included.

// jsonMaxDepth is encoding/json's nesting limit (its maxNestingDepth).
const jsonMaxDepth = 10000

// jsonKind is a JSON value's type, by the byte that starts it.
type jsonKind byte

const (
	jsonObject jsonKind = '{'
	jsonArray  jsonKind = '['
	jsonString jsonKind = '"'
	jsonNumber jsonKind = '0'
	jsonTrue   jsonKind = 't'
	jsonFalse  jsonKind = 'f'
	jsonNull   jsonKind = 'n'
)

// jsonValue is one parsed value: its kind and its text (start and end
// are byte offsets into the parsed text). An object holds its members in
// order, duplicates kept (keys[i] names elems[i]); an array its elements.
// A string's decoded text is made on demand (text).
type jsonValue struct {
	kind       jsonKind
	escaped    bool // a string holds a backslash escape
	start, end int
	decoded    *string // an escaped string's text, once made
	keys       []string
	elems      []jsonValue
}

// typeName names the value's type for the messages.
func (v *jsonValue) typeName() string {
	switch v.kind {
	case jsonNull:
		return toolspec.TypeNameNull
	case jsonString:
		return toolspec.TypeNameString
	case jsonNumber:
		return toolspec.TypeNameNumber
	case jsonTrue, jsonFalse:
		return toolspec.TypeNameBoolean
	case jsonArray:
		return toolspec.TypeNameArray
	}
	return toolspec.TypeNameObject
}

// str is a string value's decoded text; src is the parsed text.
func (v *jsonValue) str(src []byte) string {
	body := src[v.start+1 : v.end-1]
	if !v.escaped {
		return string(body)
	}
	if v.decoded == nil {
		s := unquoteJSON(body)
		v.decoded = &s
	}
	return *v.decoded
}

// strLen is the length in bytes of a string value's decoded text.
func (v *jsonValue) strLen(src []byte) int {
	if !v.escaped {
		return v.end - v.start - 2
	}
	return len(v.str(src))
}

// last is the value of an object's last member named key, or nil.
func (v *jsonValue) last(key string) *jsonValue {
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == key {
			return &v.elems[i]
		}
	}
	return nil
}

// jsonParser parses one JSON value from text at pos. After a refusal,
// reason says why, in the spec's words.
type jsonParser struct {
	text   []byte
	pos    int
	depth  int
	reason string
	// skim only checks the text: no member or element is kept.
	skim bool
	// spaced says whether whitespace came before a token.
	spaced bool
	// separators says whether a string held the escape \u2028, \u2029 or
	// \ufffd, which MarshalJSON writes as the character.
	separators bool
	// scratch takes every value skimmed.
	scratch jsonValue
}

// end refuses the text for ending inside a value.
func (p *jsonParser) end() bool {
	p.reason = toolspec.MsgArgumentsJSONEnd
	return false
}

// unexpected refuses the byte at p.pos.
func (p *jsonParser) unexpected() bool {
	r, _ := utf8.DecodeRune(p.text[p.pos:])
	p.reason = toolspec.MsgArgumentsJSONUnexpected(string(r), int64(p.pos))
	return false
}

// isJSONSpace is JSON's whitespace.
func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func (p *jsonParser) skipSpace() {
	start := p.pos
	for p.pos < len(p.text) && isJSONSpace(p.text[p.pos]) {
		p.pos++
	}
	if p.pos > start {
		p.spaced = true
	}
}

// value parses the value that starts at p.pos, after any whitespace.
func (p *jsonParser) value(v *jsonValue) bool {
	p.skipSpace()
	if p.pos >= len(p.text) {
		return p.end()
	}
	v.start = p.pos
	switch c := p.text[p.pos]; c {
	case '{':
		v.kind = jsonObject
		if !p.object(v) {
			return false
		}
	case '[':
		v.kind = jsonArray
		if !p.array(v) {
			return false
		}
	case '"':
		v.kind = jsonString
		esc, ok := p.string()
		if !ok {
			return false
		}
		v.escaped = esc
	case 't':
		v.kind = jsonTrue
		if !p.literal("true") {
			return false
		}
	case 'f':
		v.kind = jsonFalse
		if !p.literal("false") {
			return false
		}
	case 'n':
		v.kind = jsonNull
		if !p.literal("null") {
			return false
		}
	default:
		if c != '-' && (c < '0' || c > '9') {
			return p.unexpected()
		}
		v.kind = jsonNumber
		if !p.number() {
			return false
		}
	}
	v.end = p.pos
	return true
}

func (p *jsonParser) literal(word string) bool {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.text) {
			return p.end()
		}
		if p.text[p.pos] != word[i] {
			return p.unexpected()
		}
		p.pos++
	}
	return true
}

// digits skips decimal digits and says whether there was at least one;
// at an end or another byte where one is due it refuses the text.
func (p *jsonParser) digits() bool {
	if p.pos >= len(p.text) {
		return p.end()
	}
	if c := p.text[p.pos]; c < '0' || c > '9' {
		return p.unexpected()
	}
	for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
		p.pos++
	}
	return true
}

func (p *jsonParser) number() bool {
	if p.text[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.text) {
		return p.end()
	}
	if p.text[p.pos] == '0' {
		p.pos++
	} else if !p.digits() {
		return false
	}
	if p.pos < len(p.text) && p.text[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return false
		}
	}
	if p.pos < len(p.text) && (p.text[p.pos] == 'e' || p.text[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.text) && (p.text[p.pos] == '+' || p.text[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return false
		}
	}
	return true
}

// plainString marks the bytes a JSON string holds as they are: not a
// quote, a backslash or a control character.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainPrefix is the offset of the first byte at or after i that a JSON
// string does not hold as it is (see plainString), or len(text); it
// looks at eight bytes at a time.
func plainPrefix(text []byte, i int) int {
	for ; i+8 <= len(text); i += 8 {
		x := binary.LittleEndian.Uint64(text[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// A byte below 0x20, or equal to a quote or a backslash, sets its
		// high bit here; a higher byte may too, never a lower one.
		if m := ((x - ones*0x20) | (q - ones) | (bs - ones)) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(text) && plainString[text[i]] {
		i++
	}
	return i
}

// string parses the string that starts at p.pos and says whether it
// holds an escape.
func (p *jsonParser) string() (escaped, ok bool) {
	p.pos++
	text := p.text
	for {
		i := plainPrefix(text, p.pos)
		p.pos = i
		if i >= len(text) {
			return false, p.end()
		}
		switch text[i] {
		case '"':
			p.pos++
			return escaped, true
		case '\\':
			escaped = true
			p.pos++
			if p.pos >= len(text) {
				return false, p.end()
			}
			switch text[p.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos++
			case 'u':
				p.pos++
				for range 4 {
					if p.pos >= len(text) {
						return false, p.end()
					}
					if !isHexByte(text[p.pos]) {
						return false, p.unexpected()
					}
					p.pos++
				}
				switch string(text[p.pos-4 : p.pos]) {
				case "2028", "2029", "fffd":
					p.separators = true
				}
			default:
				return false, p.unexpected()
			}
		default: // a control character
			return false, p.unexpected()
		}
	}
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// enter counts one more level of nesting at the bracket at p.pos.
func (p *jsonParser) enter() bool {
	p.depth++
	if p.depth > jsonMaxDepth {
		p.reason = toolspec.MsgArgumentsJSONTooDeep
		return false
	}
	p.pos++
	return true
}

func (p *jsonParser) object(v *jsonValue) bool {
	if !p.enter() {
		return false
	}
	p.skipSpace()
	if p.pos >= len(p.text) {
		return p.end()
	}
	if p.text[p.pos] == '}' {
		p.pos++
		p.depth--
		return true
	}
	for {
		if p.text[p.pos] != '"' {
			return p.unexpected()
		}
		start := p.pos
		esc, ok := p.string()
		if !ok {
			return false
		}
		key := p.text[start+1 : p.pos-1]
		p.skipSpace()
		if p.pos >= len(p.text) {
			return p.end()
		}
		if p.text[p.pos] != ':' {
			return p.unexpected()
		}
		p.pos++
		elem := &p.scratch
		if !p.skim {
			if esc {
				v.keys = append(v.keys, unquoteJSON(key))
			} else {
				v.keys = append(v.keys, string(key))
			}
			v.elems = append(v.elems, jsonValue{})
			elem = &v.elems[len(v.elems)-1]
		}
		if !p.value(elem) {
			return false
		}
		p.skipSpace()
		if p.pos >= len(p.text) {
			return p.end()
		}
		switch p.text[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
			if p.pos >= len(p.text) {
				return p.end()
			}
		case '}':
			p.pos++
			p.depth--
			return true
		default:
			return p.unexpected()
		}
	}
}

func (p *jsonParser) array(v *jsonValue) bool {
	if !p.enter() {
		return false
	}
	p.skipSpace()
	if p.pos >= len(p.text) {
		return p.end()
	}
	if p.text[p.pos] == ']' {
		p.pos++
		p.depth--
		v.elems = []jsonValue{}
		return true
	}
	for {
		elem := &p.scratch
		if !p.skim {
			v.elems = append(v.elems, jsonValue{})
			elem = &v.elems[len(v.elems)-1]
		}
		if !p.value(elem) {
			return false
		}
		p.skipSpace()
		if p.pos >= len(p.text) {
			return p.end()
		}
		switch p.text[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return true
		default:
			return p.unexpected()
		}
	}
}

// unquoteJSON decodes the inside of a JSON string the parser accepted,
// as encoding/json does: a surrogate escape that is not half of a pair
// becomes U+FFFD.
func unquoteJSON(s []byte) string {
	var b strings.Builder
	b.Grow(len(s)) // no escape makes its text longer
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			n := bytes.IndexByte(s[i:], '\\')
			if n < 0 {
				n = len(s) - i
			}
			b.Write(s[i : i+n])
			i += n
			continue
		}
		switch s[i+1] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				r1 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r1 = hex4(s[i+2 : i+6])
				}
				if dec := utf16.DecodeRune(r, r1); dec != unicode.ReplacementChar {
					i += 6
					r = dec
				} else {
					r = unicode.ReplacementChar
				}
			}
			b.WriteRune(r)
			continue
		default: // '"', '\\', '/'
			b.WriteByte(s[i+1])
		}
		i += 2
	}
	return b.String()
}

// hex4 is the value of four hexadecimal digits.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r*16 + rune(c)
	}
	return r
}
