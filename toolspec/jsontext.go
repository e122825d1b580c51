package toolspec

import (
	"encoding/json"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// QuoteJSON spells s as a JSON string literal the way JavaScript's
// JSON.stringify does: only the quote, the backslash and control characters
// are escaped (\b, \f, \n, \r, \t, or \u00XX in lower-case hex); HTML
// characters, U+2028 and U+2029 are not. A byte that is not UTF-8 is written
// as U+FFFD.
func QuoteJSON(s string) string {
	b := make([]byte, 0, len(s)+2)
	return string(AppendJSONString(b, s))
}

// AppendJSONString appends QuoteJSON(s) to b. It grows b at most once.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	if free := cap(b) - len(b); free < len(s)+2 {
		// Room for s, its quotes and a few escapes: most text has some
		// newlines or quotes.
		b = slices.Grow(b, len(s)+len(s)/32+16)
	}
	b = append(b, '"')
	// s[run:i] is copied as it is once a byte that needs a change (or the
	// end) is found.
	run := 0
	for i := 0; i < len(s); {
		i = plainRun(s, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[run:i]...)
			b = append(b, "\uFFFD"...)
			i++
			run = i
			continue
		}
		b = append(b, s[run:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		i++
		run = i
	}
	b = append(b, s[run:]...)
	return append(b, '"')
}

// appendKey appends an object member's key (quoted) and colon, after a
// comma unless the member is the object's first (b ends with the brace).
func appendKey(b []byte, key string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, key...)
	return append(b, ':')
}

// appendList appends a member whose value is a list of results (null
// for a nil list, as encoding/json writes it).
func appendList[T interface{ AppendJSON([]byte) []byte }](b []byte, key string, l []T) []byte {
	b = appendKey(b, key)
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = l[i].AppendJSON(b)
	}
	return append(b, ']')
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun is the offset of the first byte at or after i that
// AppendJSONString must look at (a quote, a backslash, a control
// character or a byte of a multi-byte sequence), or len(s); it reads
// eight bytes at a time.
func plainRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// A byte below 0x20, equal to a quote or a backslash, or with its
		// high bit set marks its own high bit here. A borrow can mark a
		// byte above a marked one, never the lowest marked byte.
		if m := ((x - ones*0x20) | (q - ones) | (bs - ones) | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// FormatSize prints a byte count the way the reference prints output sizes:
// "512B" below 1 KiB, then KiB or MiB with one decimal, rounded half up
// ("64.0KB", "1.5MB"). n must not be negative.
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1048576:
		return tenths(n, 1024) + "KB"
	}
	return tenths(n, 1048576) + "MB"
}

// tenths prints n/unit with one decimal, rounded half up, in exact integer arithmetic.
func tenths(n, unit int64) string {
	t := (n*10 + unit/2) / unit
	return strconv.FormatInt(t/10, 10) + "." + strconv.FormatInt(t%10, 10)
}

// formatKB prints n/1024 rounded half up, as the reference prints read's byte cap.
func formatKB(n int64) string {
	return strconv.FormatInt((n+512)/1024, 10)
}

// formatMode prints a Unix permission mode as four octal digits, as in
// 0755.
func formatMode(mode int64) string {
	s := strconv.FormatInt(mode, 8)
	return strings.Repeat("0", max(0, 4-len(s))) + s
}

// StringList is an argument the model may send as one string or as an array of
// strings; either way it holds the strings in order. Nil means the argument
// was left out.
type StringList []string

// UnmarshalJSON accepts a JSON string or an array of strings.
func (l *StringList) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*l = StringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return err
	}
	*l = StringList(many)
	return nil
}
