package core

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestMatchReaderAgreesWithMatchString: a line read through ctxRunes
// (the path of a costly line) matches exactly when regexp's MatchString
// says it does, for random patterns and random lines, bytes that are not
// UTF-8 included.
func TestMatchReaderAgreesWithMatchString(t *testing.T) {
	pieces := []string{"a", "b", "é", ".", "a*", "b+", "a?", "[^a]", "[ab]", `\b`, `\B`, "^", "$", `\x{fffd}`, `\w`, `\s`, "(a|b)", "(?:é|ab)", "x{2,3}", "(?i)A", anyChar}
	texts := []string{"a", "b", "é", "x", " ", "\xff", "\xc3", "\xe2\x80", "\u2028", "\n", "\ufffd", "A"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var p strings.Builder
		for range 1 + rng.IntN(5) {
			p.WriteString(pieces[rng.IntN(len(pieces))])
		}
		re, err := regexp.Compile(p.String())
		if err != nil {
			continue
		}
		var line strings.Builder
		for range rng.IntN(12) {
			line.WriteString(texts[rng.IntN(len(texts))])
		}
		want := re.MatchString(line.String())
		// insts as large as matchWhole sends every non-empty line through
		// the reader; every is 1, so ctx is looked at between all runes.
		m := &queryMatcher{re: re, insts: matchWhole}
		got, err := m.match(context.Background(), line.String())
		if err != nil || got != want {
			t.Fatalf("%q on %q: reader %v %v, MatchString %v", p.String(), line.String(), got, err, want)
		}
	}
}

// TestProgramSize: the program size grep weighs a line's cost with grows
// with the pattern.
func TestProgramSize(t *testing.T) {
	small, large := programSize("abc"), programSize(strings.Repeat(".*", 1000))
	if small < 3 || large < 1000 || programSize("(") != 1 {
		t.Errorf("programSize: abc %d, 1000 .* %d, ( %d", small, large, programSize("("))
	}
}
