package core_test

import (
	"testing"

	"github.com/agenttools/agenttools/core"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// TestDecodeText pins DecodeText to what a browser's TextDecoder gives
// (each expectation checked with node's new TextDecoder().decode, and
// with {ignoreBOM: true} for the cases that keep the mark).
func TestDecodeText(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		stripBOM bool
		want     string
	}{
		{"empty", "", true, ""},
		{"ASCII", "abc", true, "abc"},
		{"valid multi-byte", "\xE2\x82\xAC" + "A" + "\xF0\x9F\x98\x80", true, "€A😀"},
		{"truncated three-byte sequence then ASCII", "\xE2\x82\x41\x42", true, "\uFFFDAB"},
		{"lone continuation byte", "\x80", true, "\uFFFD"},
		{"truncated four-byte sequence at the end", "\xF0\x9F\x98", true, "\uFFFD"},
		{"truncated sequence, then another", "\xF0\x9F\x98\xE2", true, "\uFFFD\uFFFD"},
		{"surrogate ED A0 80", "\xED\xA0\x80", true, "\uFFFD\uFFFD\uFFFD"},
		{"surrogate ED BF BF", "\xED\xBF\xBF", true, "\uFFFD\uFFFD\uFFFD"},
		{"overlong C0 AF", "\xC0\xAF", true, "\uFFFD\uFFFD"},
		{"overlong E0 80", "\xE0\x80", true, "\uFFFD\uFFFD"},
		{"E0 A0 at the end", "\xE0\xA0", true, "\uFFFD"},
		{"above U+10FFFF", "\xF4\x90\x80\x80", true, "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"U+10FFFF's neighbour F4 8F 80 80", "\xF4\x8F\x80\x80", true, "\U0010F000"},
		{"FF FE", "\xFF\xFE", true, "\uFFFD\uFFFD"},
		{"lone lead bytes", "\xC2", true, "\uFFFD"},
		{"two lead bytes", "\xC2\xC2", true, "\uFFFD\uFFFD"},
		{"lone F0", "\xF0", true, "\uFFFD"},
		{"private use is valid", "\xEE\x80\x80", true, "\uE000"},
		{"BOM stripped", "\xEF\xBB\xBFA", true, "A"},
		{"BOM kept", "\xEF\xBB\xBFA", false, "\uFEFFA"},
		{"BOM alone", "\xEF\xBB\xBF", true, ""},
		{"only the first BOM is stripped", "\xEF\xBB\xBF\xEF\xBB\xBFA", true, "\uFEFFA"},
		{"U+FEFF after the start is content", "A\xEF\xBB\xBFB", true, "A\uFEFFB"},
		{"BOM before invalid bytes", "\xEF\xBB\xBF\xFF", true, "\uFFFD"},
		{"a partial BOM is invalid", "\xEF\xBBA", true, "\uFFFDA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := core.DecodeText([]byte(tt.in), tt.stripBOM); got != tt.want {
				t.Errorf("DecodeText(%q, %v) = %q, want %q", tt.in, tt.stripBOM, got, tt.want)
			}
		})
	}
}
