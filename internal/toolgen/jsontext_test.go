package toolgen

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/toolspec"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// stringifySpelling is how JavaScript's JSON.stringify spells a string
// (ECMA-262 QuoteJSONString), written from the standard rather than
// from any of the writers under test: only the quote, the backslash and
// control characters are escaped, control characters without a short
// escape as \u00xx in lower case. A Go string cannot hold the lone
// surrogates that JSON.stringify writes as \udxxx; a byte that is not
// UTF-8 is read as U+FFFD, one per byte, as the writers read it.
func stringifySpelling(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// quoteOrRefuse is quote(s), or ok false when quote refuses s.
func quoteOrRefuse(s string) (q string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return quote(s), true
}

// FuzzJSONWriters ties the three writers of JSON text in JSON.stringify
// form: toolspec.QuoteJSON (the runtime's hand spelling), core.MarshalJSON
// (encoding/json, with U+2028, U+2029 and U+FFFD unescaped) and the
// generator's quote (encoding/json without HTML escaping). All spell a
// string as JSON.stringify does; quote refuses what it would spell
// otherwise (U+2028, U+2029, bytes that are not UTF-8), which spec texts
// never hold. A struct of strings marshals to the quoted fields joined
// by hand.
func FuzzJSONWriters(f *testing.F) {
	for _, s := range []string{
		"", "plain", "<a href=\"x\">&amp;</a>", "\u2028\u2029", "a\u2028b", "\ufffd", "\"\\", `\"`,
		"\x00\x01\x07\x1f\x7f", "\b\f\n\r\t\v", "\xff", "a\xffb\xfe", "\xe2\x82", "\xe2\x82A",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xef\xbb\xbf", "é😀 ①",
		`\ufffd`, `\u2028`, `\\u2028`, "\\\u2028", "\\\xff", "\u00a0\u0085\u200b\ufeff\U0010ffff",
	} {
		f.Add(s, "x")
		f.Add("<&>", s)
	}
	f.Fuzz(func(t *testing.T, s, s2 string) {
		want := stringifySpelling(s)
		if got := toolspec.QuoteJSON(s); got != want {
			t.Fatalf("toolspec.QuoteJSON(%q) = %s, JSON.stringify gives %s", s, got, want)
		}
		m, err := core.MarshalJSON(s)
		if err != nil {
			t.Fatalf("core.MarshalJSON(%q): %v", s, err)
		}
		if string(m) != want {
			t.Fatalf("core.MarshalJSON(%q) = %s, JSON.stringify gives %s", s, m, want)
		}
		q, ok := quoteOrRefuse(s)
		refuse := !utf8.ValidString(s) || strings.ContainsAny(s, "\u2028\u2029")
		switch {
		case ok && refuse:
			t.Fatalf("quote(%q) = %s, want it refused", s, q)
		case !ok && !refuse:
			t.Fatalf("quote(%q) refused", s)
		case ok && q != want:
			t.Fatalf("quote(%q) = %s, JSON.stringify gives %s", s, q, want)
		}
		var back string
		if err := json.Unmarshal([]byte(want), &back); err != nil || back != string([]rune(s)) {
			t.Fatalf("%s reads back as %q (%v), want %q", want, back, err, string([]rune(s)))
		}

		type result struct {
			Path  string `json:"path"`
			Error string `json:"error"`
		}
		m, err = core.MarshalJSON(result{Path: s, Error: s2})
		if err != nil {
			t.Fatalf("core.MarshalJSON: %v", err)
		}
		if byHand := `{"path":` + toolspec.QuoteJSON(s) + `,"error":` + toolspec.QuoteJSON(s2) + `}`; string(m) != byHand {
			t.Fatalf("core.MarshalJSON of {%q, %q} = %s, by hand %s", s, s2, m, byHand)
		}
		m, err = core.MarshalJSON(toolspec.ErrorResult{Error: s})
		if err != nil {
			t.Fatalf("core.MarshalJSON: %v", err)
		}
		if byHand := `{"error":` + toolspec.QuoteJSON(s) + `}`; string(m) != byHand {
			t.Fatalf("core.MarshalJSON of toolspec.ErrorResult{%q} = %s, by hand %s", s, m, byHand)
		}
	})
}
