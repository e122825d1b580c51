package toolspec

import (
	"encoding/json"
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

// AppendJSONString appends QuoteJSON(s) to b.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
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
			if c < 32 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
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
