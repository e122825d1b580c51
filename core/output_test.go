package core_test

import (
	"encoding/json"
	"testing"

	"github.com/agenttools/agenttools/core"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// TestMarshalJSONStrings: strings serialize as JSON.stringify writes
// them. Every want is what node prints for JSON.stringify of the same
// string.
func TestMarshalJSONStrings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"line separator", "\u2028", "\"\u2028\""},
		{"paragraph separator", "\u2029", "\"\u2029\""},
		{"separators among text", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"HTML characters", "<>&", `"<>&"`},
		{"a script end tag", "</script>", `"</script>"`},
		{"a backslash before u2028 text", `\u2028`, `"\\u2028"`},
		{"two backslashes before u2028 text", `\\u2028`, `"\\\\u2028"`},
		{"a separator, then backslash-u2028 text", "\u2028\\u2028", "\"\u2028\\\\u2028\""},
		{"a backslash, then a separator", "\\\u2028", "\"\\\\\u2028\""},
		{"backslash-u2029 text", `x\u2029y`, `"x\\u2029y"`},
		{"NUL", "\x00", `"\u0000"`},
		{"SOH", "\x01", `"\u0001"`},
		{"BEL", "\x07", `"\u0007"`},
		{"backspace", "\b", `"\b"`},
		{"form feed", "\f", `"\f"`},
		{"newline", "\n", `"\n"`},
		{"carriage return", "\r", `"\r"`},
		{"tab", "\t", `"\t"`},
		{"vertical tab", "\v", `"\u000b"`},
		{"unit separator", "\x1f", `"\u001f"`},
		{"DEL is not escaped", "\x7f", "\"\x7f\""},
		{"C1 controls are not escaped", "\u0080\u009f", "\"\u0080\u009f\""},
		{"quote", `"`, `"\""`},
		{"backslash", `\`, `"\\"`},
		{"non-ASCII stays as is", "é😀", `"é😀"`},
		{"U+FEFF stays as is", "\ufeff", "\"\ufeff\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := core.MarshalJSON(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("MarshalJSON(%q) = %s, want %s", tt.in, got, tt.want)
			}
			// The generated quoting, used for values inside messages,
			// agrees.
			if q := toolspec.QuoteJSON(tt.in); q != tt.want {
				t.Errorf("toolspec.QuoteJSON(%q) = %s, want %s", tt.in, q, tt.want)
			}
			// And the text is JSON that reads back as the string.
			var back string
			if err := json.Unmarshal(got, &back); err != nil || back != tt.in {
				t.Errorf("%s reads back as %q (%v)", got, back, err)
			}
		})
	}
}

// TestMarshalJSONValues: results keep the reference's key order, no
// spaces, null for a missing total, and leave out absent continuations.
func TestMarshalJSONValues(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"a truncated read", toolspec.ReadResult{Path: "/w/a", Content: "x\u2028<y>", StartLine: 1, EndLine: 1, Truncated: true, NextOffset: ptr(int64(2)), NextByteOffset: ptr(int64(9))},
			"{\"path\":\"/w/a\",\"content\":\"x\u2028<y>\",\"startLine\":1,\"endLine\":1,\"totalLines\":null,\"truncated\":true,\"nextOffset\":2,\"nextByteOffset\":9}"},
		{"a complete read", toolspec.ReadResult{Path: "/w/a", Content: "", StartLine: 1, EndLine: 0, TotalLines: ptr(int64(0))},
			`{"path":"/w/a","content":"","startLine":1,"endLine":0,"totalLines":0,"truncated":false}`},
		{"an error", toolspec.ErrorResult{Error: "no such path: /w/\u2029"}, "{\"error\":\"no such path: /w/\u2029\"}"},
		{"a grep without context", toolspec.GrepResult{Path: "/w", Query: "\\u2028", Count: 1, Matches: []toolspec.GrepMatch{{Path: "/w/a", Line: 1, Text: "\\u2028"}}},
			`{"path":"/w","query":"\\u2028","count":1,"matches":[{"path":"/w/a","line":1,"text":"\\u2028"}]}`},
		{"nested values", map[string]any{"b": []any{1, nil, "x"}, "a": "\u2028"}, "{\"a\":\"\u2028\",\"b\":[1,null,\"x\"]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := core.MarshalJSON(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("MarshalJSON:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
