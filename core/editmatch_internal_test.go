package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/agenttools/agenttools/toolspec"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// referenceFuzzy is fuzzy as it was: NFKC of the whole text, then every
// line trimmed and the whole folded rune by rune.
func referenceFuzzy(s string) string {
	lines := strings.Split(norm.NFKC.String(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isJSSpace)
	}
	return strings.Map(foldRune, strings.Join(lines, "\n"))
}

// referenceFuzzyContent is fuzzyContent as it was: the normalized text
// made whole, then both texts split into lines.
type referenceFuzzyContent struct {
	text                             string
	originalLines, normalizedLines   []string
	originalStarts, normalizedStarts []int
	lineMaps                         map[int]*lineMap
}

func referencePrepareFuzzy(content string) *referenceFuzzyContent {
	text := referenceFuzzy(content)
	starts := func(lines []string) []int {
		out := make([]int, len(lines))
		at := 0
		for i, l := range lines {
			out[i] = at
			at += len(l) + 1
		}
		return out
	}
	orig, normd := strings.Split(content, "\n"), strings.Split(text, "\n")
	return &referenceFuzzyContent{text: text, originalLines: orig, normalizedLines: normd,
		originalStarts: starts(orig), normalizedStarts: starts(normd), lineMaps: map[int]*lineMap{}}
}

func (fc *referenceFuzzyContent) mapBoundary(offset int, start bool) int {
	if len(fc.originalLines) != len(fc.normalizedLines) || offset < 0 {
		return -1
	}
	line, found := slices.BinarySearch(fc.normalizedStarts, offset)
	if !found {
		line--
	}
	if line < 0 {
		return -1
	}
	column := offset - fc.normalizedStarts[line]
	original, normalized := fc.originalLines[line], fc.normalizedLines[line]
	if column > len(normalized) {
		return -1
	}
	m, ok := fc.lineMaps[line]
	if !ok {
		nfkc := norm.NFKC.String(original)
		m = &lineMap{nfkc: nfkc, fuzzy: referenceFuzzy(nfkc), columns: map[int]int{}}
		fc.lineMaps[line] = m
	}
	if m.fuzzy != normalized {
		return -1
	}
	if start && column == len(normalized) {
		return fc.originalStarts[line] + len(original)
	}
	c := mapLineColumn(original, m, column)
	if c < 0 {
		return -1
	}
	return fc.originalStarts[line] + c
}

// checkFuzzyContent: prepareFuzzy's text is the old whole-text
// normalization's, and every offset of it maps back as the old content
// mapped it (as a start and as an end).
func checkFuzzyContent(t *testing.T, content string) {
	t.Helper()
	got, want := prepareFuzzy(content), referencePrepareFuzzy(content)
	if got.text != want.text {
		t.Fatalf("prepareFuzzy(%q).text = %q, want %q", content, got.text, want.text)
	}
	if f := fuzzy(content); f != want.text {
		t.Fatalf("fuzzy(%q) = %q, want %q", content, f, want.text)
	}
	for off := -1; off <= len(got.text)+1; off++ {
		for _, start := range []bool{true, false} {
			if g, w := got.mapBoundary(off, start), want.mapBoundary(off, start); g != w {
				t.Fatalf("%q: mapBoundary(%d, %v) = %d, want %d", content, off, start, g, w)
			}
		}
	}
}

// fuzzyPieces are bits of text normalization changes, combines or
// leaves alone: ASCII, combining marks, ligatures, full-width and
// circled forms, Hangul jamo that compose, typographic quotes, dashes and
// spaces, trailing whitespace of every kind, invalid bytes, runes on
// both sides of the inertRunes table's end, singletons.
var fuzzyPieces = []string{"a", "e", "x ", "\n", "\n", " ", "\t", "\u0301", "\u0308", "ﬁ", "①", "Ａ", "“", "”", "’", "–", "\u2212",
	"\u00a0", "\u3000", "\u2003", "\ufeff", "\u1100", "\u1161", "한", "ｶ", "\uff9e", "é", "😀", "\u200b", "\u2028", "\xff", "\u0345",
	"日", "\u2126", "\u00e4", "\u2fff", "\u2e80", "\ufffd"}

func randomFuzzyText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(fuzzyPieces[rng.IntN(len(fuzzyPieces))])
	}
	return b.String()
}

func TestPrepareFuzzyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 9))
	for range 4000 {
		checkFuzzyContent(t, randomFuzzyText(rng, rng.IntN(30)))
	}
	// Long runs of combining marks, where NFKC inserts U+034F.
	checkFuzzyContent(t, "a"+strings.Repeat("\u0301", 40)+"\nb"+strings.Repeat("\u0308", 31)+" \n")
}

func FuzzPrepareFuzzy(f *testing.F) {
	for _, s := range []string{"", "a\n", "He said “hi” \u00a0\nﬁne\t\n", "e\u0301\n\u1100\u1161 ", "\xff\n①\u3000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFuzzyContent(t, s) })
}

// referenceMatchEdits is matchEdits's lookup as it was: whether every
// oldText is in the content first, then each found (exactly or fuzzily)
// and counted with strings.Count in its space, all against the old
// normalized content.
func referenceMatchEdits(content string, edits []toolspec.Replacement) string {
	var fc *referenceFuzzyContent
	for _, e := range edits {
		if !strings.Contains(content, toLF(e.OldText)) {
			fc = referencePrepareFuzzy(content)
			break
		}
	}
	var out []string
	for _, e := range edits {
		old := toLF(e.OldText)
		if i := strings.Index(content, old); i >= 0 {
			out = append(out, fmt.Sprint("exact ", i, len(old), strings.Count(content, old)))
			continue
		}
		want := referenceFuzzy(old)
		if want == "" {
			out = append(out, "unsafe")
			continue
		}
		at, res := strings.Index(fc.text, want), "not found"
		if at >= 0 {
			res = "unsafe"
		}
		for tries := 0; at >= 0 && tries < maxUnmappableCandidates; tries++ {
			start, end := fc.mapBoundary(at, true), fc.mapBoundary(at+len(want), false)
			if start >= 0 && end >= start && referenceFuzzy(content[start:end]) == want {
				res = fmt.Sprint("fuzzy ", start, end-start, strings.Count(fc.text, want))
				break
			}
			next := strings.Index(fc.text[at+1:], want)
			if next < 0 {
				break
			}
			at += 1 + next
		}
		out = append(out, res)
	}
	return strings.Join(out, "; ")
}

// TestFindMatchesReference: find, given the exact index matchEdits
// looked up once, finds and counts each edit's oldText as the old lookup
// did.
func TestFindMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 10))
	for range 4000 {
		content := randomFuzzyText(rng, rng.IntN(30))
		var edits []toolspec.Replacement
		for range 1 + rng.IntN(2) {
			old := randomFuzzyText(rng, 1+rng.IntN(3))
			if rng.IntN(2) == 0 && len(content) > 0 {
				at := rng.IntN(len(content))
				old = content[at:min(len(content), at+1+rng.IntN(8))]
			}
			edits = append(edits, toolspec.Replacement{OldText: old})
		}
		want := referenceMatchEdits(content, edits)
		var fc *fuzzyContent
		var got []string
		for _, e := range edits {
			old := toLF(e.OldText)
			exact := strings.Index(content, old)
			if exact < 0 && fc == nil {
				fc = prepareFuzzy(content)
			}
			m := find(content, old, exact, fc)
			switch {
			case m.unsafe:
				got = append(got, "unsafe")
			case !m.found:
				got = append(got, "not found")
			case m.fuzzy:
				got = append(got, fmt.Sprint("fuzzy ", m.index, m.length, m.occurrences))
			default:
				got = append(got, fmt.Sprint("exact ", m.index, m.length, m.occurrences))
			}
		}
		if g := strings.Join(got, "; "); g != want {
			t.Fatalf("%q %q: find gives %s; the old lookup %s", content, edits, g, want)
		}
	}
}
