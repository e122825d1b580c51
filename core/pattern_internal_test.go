package core

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/toolspec"
)

// startThreads counts the character tests that an unanchored search of
// the RE2 source starts at every position of a line: RE2's matcher does
// at least that much work per character, whatever the line.
func startThreads(t *testing.T, source string) int {
	t.Helper()
	re, err := syntax.Parse(source, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]bool{}
	count := 0
	var visit func(pc uint32)
	visit = func(pc uint32) {
		if seen[pc] {
			return
		}
		seen[pc] = true
		switch in := prog.Inst[pc]; in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			visit(in.Out)
			visit(in.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			visit(in.Out)
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			count++
		}
	}
	visit(uint32(prog.Start))
	return count
}

// TestGlobStarRunsAreOnePiece checks that a run of stars, of any length,
// becomes at most two quantified pieces of the regular expression: the
// work per character of a name does not grow with the run.
func TestGlobStarRunsAreOnePiece(t *testing.T) {
	limit := int(toolspec.WorkspaceMaxPathBytesDefault)
	for _, pattern := range []string{
		strings.Repeat("*", limit),
		strings.Repeat("*", limit-1),
		strings.Repeat("**/", limit/3),
		strings.Repeat("****/", limit/5),
		strings.Repeat("**/**", limit/5),
	} {
		source, err := globRegexp(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(source, "*"); n > 2 {
			t.Errorf("%.12s... (%d bytes) has %d quantified pieces: %.100s", pattern, len(pattern), n, source)
		}
		if n := startThreads(t, source); n > 3 {
			t.Errorf("%.12s... (%d bytes) starts %d threads", pattern, len(pattern), n)
		}
	}
	// The collapsed runs match what the glob dialect says.
	for _, c := range []struct {
		pattern string
		yes, no []string
	}{
		{"****/x", []string{"x", "a/x", "a/b/x", "ax"}, []string{"a/y", "a\nb/x"}},
		{"**/**/x", []string{"x", "a/x", "a/b/x"}, []string{"ax", "a/xy"}},
		{"a/**/**/b", []string{"a/b", "a/c/b", "a/c/d/b"}, []string{"ab", "a/cb"}},
		{"***", []string{"", "a", "a/b", "a\nb"}, []string{"a\n/b"}},
		{"**{**,x}**", []string{"", "a/b", "x"}, nil},
	} {
		re, err := compileGlob(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.yes {
			if !re.MatchString(name) {
				t.Errorf("%q does not match %q", c.pattern, name)
			}
		}
		for _, name := range c.no {
			if re.MatchString(name) {
				t.Errorf("%q matches %q", c.pattern, name)
			}
		}
	}
}

// TestQueryAlternativesAreSorted checks that a 64 KiB alternation of
// 16,000 words starts a few dozen threads per character of a line, not
// one per word, and that sorting never changes whether a line matches.
func TestQueryAlternativesAreSorted(t *testing.T) {
	var words []string
	for i := 0; len(words)*4 < int(toolspec.GrepMaxQueryBytesDefault)-4; i++ {
		words = append(words, fmt.Sprintf("%c%c%c", 'a'+i%26, 'a'+i/26%26, 'A'+i/676%26))
	}
	source, err := querySource(strings.Join(words, "|"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := startThreads(t, source); n > 64 {
		t.Errorf("a %d-word alternation starts %d threads per character", len(words), n)
	}

	lines := []string{"", "a", "abc", "ABC", "xyz", "foo bar", "bar\nfoo", "é", "Σσς", "a.b", "a|b", "x1y2", "\u2028"}
	for _, c := range []struct {
		query             string
		regex, ignoreCase bool
	}{
		{"xyz|abc|foo", true, false},
		{"xyz|abc|foo", true, true},
		{"^b|^a|c$", true, false},
		{"(z|y)(b|a)?|é|σ", true, true},
		{"a.b|\\s|\\d", true, false},
		{"(?s:z.|a.)|(?m:^foo)", true, false},
		{"[b-c]|[a-b]x|a|", true, false},
		{"b|a|c|A", false, true},
	} {
		source, err := querySource(c.query, c.regex, c.ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		plain := regexp.QuoteMeta(c.query)
		if c.regex {
			plain, _ = translateRegex(c.query)
		}
		if c.ignoreCase {
			plain = "(?i)" + plain
		}
		sorted, unsorted := regexp.MustCompile(source), regexp.MustCompile(plain)
		for _, line := range lines {
			if sorted.MatchString(line) != unsorted.MatchString(line) {
				t.Errorf("%q (as %q) on %q: %v, unsorted %v", c.query, source, line, sorted.MatchString(line), unsorted.MatchString(line))
			}
		}
	}
}
