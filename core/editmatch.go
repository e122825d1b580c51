package core

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/norm"

	"github.com/agenttools/agenttools/toolspec"
)

// The matcher of the edit tool, as the reference's: an edit's oldText is
// looked up exactly first; on a miss, in a normalized form of the content
// (NFKC, trailing whitespace trimmed per line, typographic quotes, dashes
// and spaces folded to ASCII), and a normalized hit is mapped back to
// original offsets only when its boundaries map unambiguously. Text here
// is LF-only; offsets are byte offsets into it.

// foldRune folds typographic quotes, dashes and spaces to ASCII.
func foldRune(r rune) rune {
	switch {
	case r == '\u2018' || r == '\u2019' || r == '\u201A' || r == '\u201B':
		return '\''
	case r == '\u201C' || r == '\u201D' || r == '\u201E' || r == '\u201F':
		return '"'
	case r >= '\u2010' && r <= '\u2015' || r == '\u2212':
		return '-'
	case r == '\u00A0' || r >= '\u2002' && r <= '\u200A' || r == '\u202F' || r == '\u205F' || r == '\u3000':
		return ' '
	}
	return r
}

// fold is strings.Map(foldRune, s) for valid text, with runs of ASCII
// (which folding leaves alone) copied whole rather than rune by rune.
func fold(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b, or, while b is empty, unchanged
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if f := foldRune(r); f != r || r == utf8.RuneError {
			if b.Cap() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[done:i])
			b.WriteRune(f)
			done = i + size
		}
		i += size
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// fuzzyAfterNFKC trims each line's trailing whitespace (JavaScript's
// trimEnd) and folds what is left.
func fuzzyAfterNFKC(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isJSSpace)
	}
	return fold(strings.Join(lines, "\n"))
}

// fuzzy is the normalized form fuzzy matching compares.
func fuzzy(s string) string { return fuzzyAfterNFKC(norm.NFKC.String(s)) }

// fuzzyContent is the normalized content with what mapping back needs.
type fuzzyContent struct {
	text                 string
	originalLines        []string
	normalizedLines      []string
	originalLineStarts   []int
	normalizedLineStarts []int
	lineMaps             map[int]*lineMap
}

type lineMap struct {
	nfkc, fuzzy string
	columns     map[int]int // normalized column -> original column; -1 when none
}

func lineStarts(lines []string) []int {
	starts := make([]int, len(lines))
	at := 0
	for i, l := range lines {
		starts[i] = at
		at += len(l) + 1
	}
	return starts
}

func prepareFuzzy(content string) *fuzzyContent {
	text := fuzzy(content)
	orig, normd := strings.Split(content, "\n"), strings.Split(text, "\n")
	return &fuzzyContent{
		text: text, originalLines: orig, normalizedLines: normd,
		originalLineStarts: lineStarts(orig), normalizedLineStarts: lineStarts(normd),
		lineMaps: map[int]*lineMap{},
	}
}

// boundary locates an offset of the normalized text: its line and column.
func (fc *fuzzyContent) boundary(offset int) (line, column int, ok bool) {
	if offset < 0 {
		return 0, 0, false
	}
	i, found := slices.BinarySearch(fc.normalizedLineStarts, offset)
	if !found {
		i--
	}
	if i < 0 {
		return 0, 0, false
	}
	column = offset - fc.normalizedLineStarts[i]
	return i, column, column <= len(fc.normalizedLines[i])
}

func (fc *fuzzyContent) lineMap(i int) *lineMap {
	if m, ok := fc.lineMaps[i]; ok {
		return m
	}
	nfkc := norm.NFKC.String(fc.originalLines[i])
	m := &lineMap{nfkc: nfkc, fuzzy: fuzzyAfterNFKC(nfkc), columns: map[int]int{}}
	fc.lineMaps[i] = m
	return m
}

// mapLineColumn maps a column of a line's normalized form to a column of
// the original line, or -1 when no original boundary corresponds to it.
func mapLineColumn(original string, m *lineMap, column int) int {
	if c, ok := m.columns[column]; ok {
		return c
	}
	result := -1
	if m.nfkc == original {
		// Folding maps one character to one character, so the column is
		// the same character count into the original.
		chars := utf8.RuneCountInString(m.fuzzy[:column])
		at := 0
		for ; chars > 0 && at < len(original); chars-- {
			_, size := utf8.DecodeRuneInString(original[at:])
			at += size
		}
		if chars == 0 {
			result = at
		}
	} else {
		// Otherwise walk grapheme clusters: a boundary maps where the
		// clusters' own normalized forms add up to the column.
		fuzzyCol, nfkcCol := 0, 0
		rest, at := original, 0
		state := -1
		for len(rest) > 0 {
			if fuzzyCol == column {
				result = at
				break
			}
			if fuzzyCol > column {
				break
			}
			var cluster string
			cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
			n := norm.NFKC.String(cluster)
			if !strings.HasPrefix(m.nfkc[nfkcCol:], n) {
				break
			}
			nfkcCol += len(n)
			fuzzyCol += len(fold(n))
			at += len(cluster)
		}
		if result < 0 && fuzzyCol == column && nfkcCol == len(m.nfkc) {
			result = len(original)
		}
	}
	m.columns[column] = result
	return result
}

// mapBoundary maps an offset of the normalized text to the original
// content: a start sits after a line's trailing whitespace when it is at
// the normalized line's end, an end before it. -1 when it does not map.
func (fc *fuzzyContent) mapBoundary(offset int, start bool) int {
	if len(fc.originalLines) != len(fc.normalizedLines) {
		return -1
	}
	line, column, ok := fc.boundary(offset)
	if !ok {
		return -1
	}
	original, normalized := fc.originalLines[line], fc.normalizedLines[line]
	m := fc.lineMap(line)
	if m.fuzzy != normalized {
		return -1
	}
	if start && column == len(normalized) {
		return fc.originalLineStarts[line] + len(original)
	}
	c := mapLineColumn(original, m, column)
	if c < 0 {
		return -1
	}
	return fc.originalLineStarts[line] + c
}

// maxUnmappableCandidates bounds the normalized matches tried before a
// lookup gives up as ambiguous, as the reference does.
const maxUnmappableCandidates = 1024

// match is where an edit's oldText was found in the original content.
type match struct {
	found, fuzzy, unsafe bool
	index, length        int
}

// find looks oldText up in content, exactly and then normalized.
func find(content, oldText string, fc *fuzzyContent) match {
	if i := strings.Index(content, oldText); i >= 0 {
		return match{found: true, index: i, length: len(oldText)}
	}
	want := fuzzy(oldText)
	if want == "" {
		return match{fuzzy: true, unsafe: true}
	}
	at := strings.Index(fc.text, want)
	if at < 0 {
		return match{}
	}
	for tries := 0; at >= 0 && tries < maxUnmappableCandidates; tries++ {
		start, end := fc.mapBoundary(at, true), fc.mapBoundary(at+len(want), false)
		if start >= 0 && end >= start && fuzzy(content[start:end]) == want {
			return match{found: true, fuzzy: true, index: start, length: end - start}
		}
		next := strings.Index(fc.text[at+1:], want)
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return match{fuzzy: true, unsafe: true}
}

// occurrences counts oldText in the space its match was found in: the
// content for an exact match, the normalized content for a fuzzy one.
func occurrences(content, oldText string, fc *fuzzyContent, fuzzyMatch bool) int {
	if !fuzzyMatch {
		return strings.Count(content, oldText)
	}
	want := fuzzy(oldText)
	if want == "" {
		return 0
	}
	text := ""
	if fc != nil {
		text = fc.text
	} else {
		text = fuzzy(content)
	}
	return strings.Count(text, want)
}

// toLF turns CRLF and lone CR line endings into LF.
func toLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// span is one matched edit: where in the LF content, and what replaces it.
type span struct {
	edit          int // index in the call's edits
	index, length int
	newText       string
	fuzzy         bool
}

// editError is an edit refused with the reference's message.
type editError string

func (e editError) Error() string { return string(e) }

// matchEdits matches every edit against the original LF content, as the
// reference does, and returns the spans sorted by position, or the
// reference's error for the first edit that fails. It
// gives up with the context's error when ctx ends, checked before each
// edit (a call may carry thousands of edits over megabytes).
func matchEdits(ctx context.Context, content string, edits []toolspec.Replacement, path string) ([]span, error) {
	total := len(edits)
	for i, e := range edits {
		if toLF(e.OldText) == "" {
			if total == 1 {
				return nil, editError(toolspec.MsgEditEmptyOldText(path))
			}
			return nil, editError(toolspec.MsgEditEmptyOldTextAt(int64(i), path))
		}
	}
	var fc *fuzzyContent
	for _, e := range edits {
		if !strings.Contains(content, toLF(e.OldText)) {
			fc = prepareFuzzy(content)
			break
		}
	}
	spans := make([]span, 0, total)
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		oldText := toLF(e.OldText)
		m := find(content, oldText, fc)
		switch {
		case m.unsafe && total == 1:
			return nil, editError(toolspec.MsgEditFuzzyBoundary(path))
		case m.unsafe:
			return nil, editError(toolspec.MsgEditFuzzyBoundaryAt(int64(i), path))
		case !m.found && total == 1:
			return nil, editError(toolspec.MsgEditNotFound(path))
		case !m.found:
			return nil, editError(toolspec.MsgEditNotFoundAt(int64(i), path))
		}
		if n := occurrences(content, oldText, fc, m.fuzzy); n > 1 {
			if total == 1 {
				return nil, editError(toolspec.MsgEditNotUnique(int64(n), path))
			}
			return nil, editError(toolspec.MsgEditNotUniqueAt(int64(n), int64(i), path))
		}
		spans = append(spans, span{edit: i, index: m.index, length: m.length, newText: toLF(e.NewText), fuzzy: m.fuzzy})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.index - b.index })
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if prev.index+prev.length > cur.index {
			return nil, editError(toolspec.MsgEditOverlap(int64(prev.edit), int64(cur.edit), path))
		}
	}
	if unchangedBy(content, spans) {
		if total == 1 {
			return nil, editError(toolspec.MsgEditNoChange(path))
		}
		return nil, editError(toolspec.MsgEditNoChanges(path))
	}
	return spans, nil
}

// unchangedBy says whether the spans, applied to content, give content
// again; the new content is compared piece by piece, not put together.
func unchangedBy(content string, spans []span) bool {
	pos, at := 0, 0
	same := func(piece string) bool {
		if !strings.HasPrefix(content[pos:], piece) {
			return false
		}
		pos += len(piece)
		return true
	}
	for _, s := range spans {
		if !same(content[at:s.index]) || !same(s.newText) {
			return false
		}
		at = s.index + s.length
	}
	return same(content[at:]) && pos == len(content)
}
