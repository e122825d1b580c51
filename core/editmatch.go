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

// nextFold finds the first rune of s that folding changes (an invalid
// byte too, which becomes U+FFFD): its offset, size and folded form; at
// is len(s) when there is none. Runs of ASCII, which folding leaves
// alone, are skipped a byte at a time without decoding.
func nextFold(s string) (at, size int, f rune) {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if f := foldRune(r); f != r || r == utf8.RuneError {
			return i, n, f
		}
		i += n
	}
	return len(s), 0, 0
}

// foldTo writes fold(s) to b.
func foldTo(b *strings.Builder, s string) {
	for {
		at, size, f := nextFold(s)
		b.WriteString(s[:at])
		if size == 0 {
			return
		}
		b.WriteRune(f)
		s = s[at+size:]
	}
}

// fold is strings.Map(foldRune, s); s itself when folding changes
// nothing.
func fold(s string) string {
	if at, _, _ := nextFold(s); at == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	foldTo(&b, s)
	return b.String()
}

// fuzzyAfterNFKC trims each line's trailing whitespace (JavaScript's
// trimEnd) and folds what is left.
func fuzzyAfterNFKC(s string) string {
	if !strings.Contains(s, "\n") {
		return fold(strings.TrimRightFunc(s, isJSSpace))
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isJSSpace)
	}
	return fold(strings.Join(lines, "\n"))
}

// fuzzy is the normalized form fuzzy matching compares.
func fuzzy(s string) string { return fuzzyAfterNFKC(norm.NFKC.String(s)) }

// fuzzyContent is the normalized content (fuzzy(content)) with what
// mapping back needs. It is made line by line, which gives fuzzy(content)
// because NFKC never joins across "\n" (a starter that combines with
// nothing): the normalized text is the lines' own normalized forms, each
// followed by "\n" but the last.
type fuzzyContent struct {
	content, text string
	// lineStarts and normStarts are where each line of the content and
	// of the normalized text starts.
	lineStarts, normStarts []int
	// aligned: the n-th normalized line comes from the n-th line (no
	// line's normal form holds a "\n"); only then do offsets map back.
	aligned  bool
	lineMaps map[int]*lineMap
}

type lineMap struct {
	nfkc, fuzzy string
	columns     map[int]int // normalized column -> original column; -1 when none
}

func prepareFuzzy(content string) *fuzzyContent {
	fc := &fuzzyContent{content: content, aligned: true, lineMaps: map[int]*lineMap{}}
	lines := strings.Count(content, "\n") + 1
	fc.lineStarts, fc.normStarts = make([]int, 0, lines), make([]int, 0, lines)
	buf := make([]byte, 0, len(content))
	var inert inertRunes
	for at := 0; ; {
		line := content[at:]
		nl := strings.IndexByte(line, '\n')
		if nl >= 0 {
			line = line[:nl]
		}
		fc.lineStarts = append(fc.lineStarts, at)
		fc.normStarts = append(fc.normStarts, len(buf))
		if isASCII(line) {
			// NFKC and folding leave ASCII alone.
			buf = append(buf, strings.TrimRightFunc(line, isJSSpace)...)
		} else if folded, ok := inert.foldPlain(buf, strings.TrimRightFunc(line, isJSSpace)); ok {
			buf = folded
		} else {
			n := fuzzyAfterNFKC(norm.NFKC.String(line))
			fc.aligned = fc.aligned && !strings.Contains(n, "\n")
			buf = append(buf, n...)
		}
		if nl < 0 {
			break
		}
		buf = append(buf, '\n')
		at += nl + 1
	}
	fc.text = viewString(buf) // buf is not written again
	return fc
}

// inertRunes says, for the runes below U+3000, which NFKC leaves alone
// and which combine with nothing before or after them (norm's boundaries
// on both sides, no decomposition): a text of such runes and ASCII is its
// own NFKC form. It is filled as runes are met: 0 unknown, 1 inert, 2 not.
type inertRunes [0x3000]uint8

func (t *inertRunes) inert(r rune) bool {
	if r >= rune(len(t)) || r == utf8.RuneError {
		return false
	}
	if t[r] == 1 {
		return true
	}
	if t[r] == 0 {
		p := norm.NFKC.PropertiesString(string(r))
		t[r] = 2
		if p.BoundaryBefore() && p.BoundaryAfter() && len(p.Decomposition()) == 0 {
			t[r] = 1
		}
	}
	return t[r] == 1
}

// foldPlain appends fold(s) to buf when s is ASCII and inert runes (so
// NFKC leaves it alone); otherwise it returns buf as it was and false.
func (t *inertRunes) foldPlain(buf []byte, s string) ([]byte, bool) {
	mark, done := len(buf), 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !t.inert(r) {
			return buf[:mark], false
		}
		if f := foldRune(r); f != r {
			buf = utf8.AppendRune(append(buf, s[done:i]...), f)
			done = i + size
		}
		i += size
	}
	return append(buf, s[done:]...), true
}

// isASCII says whether s is all ASCII, a word at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if (s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7])&0x80 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// line is the i-th line of text, whose lines start at starts, without
// its "\n".
func line(text string, starts []int, i int) string {
	if i+1 < len(starts) {
		return text[starts[i] : starts[i+1]-1]
	}
	return text[starts[i]:]
}

// boundary locates an offset of the normalized text: its line and column.
func (fc *fuzzyContent) boundary(offset int) (line, column int, ok bool) {
	if offset < 0 {
		return 0, 0, false
	}
	i, found := slices.BinarySearch(fc.normStarts, offset)
	if !found {
		i--
	}
	if i < 0 {
		return 0, 0, false
	}
	column = offset - fc.normStarts[i]
	return i, column, column <= len(fc.normalizedLine(i))
}

func (fc *fuzzyContent) originalLine(i int) string   { return line(fc.content, fc.lineStarts, i) }
func (fc *fuzzyContent) normalizedLine(i int) string { return line(fc.text, fc.normStarts, i) }

func (fc *fuzzyContent) lineMap(i int) *lineMap {
	if m, ok := fc.lineMaps[i]; ok {
		return m
	}
	nfkc := norm.NFKC.String(fc.originalLine(i))
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
	if !fc.aligned {
		return -1
	}
	line, column, ok := fc.boundary(offset)
	if !ok {
		return -1
	}
	original, normalized := fc.originalLine(line), fc.normalizedLine(line)
	m := fc.lineMap(line)
	if m.fuzzy != normalized {
		return -1
	}
	if start && column == len(normalized) {
		return fc.lineStarts[line] + len(original)
	}
	c := mapLineColumn(original, m, column)
	if c < 0 {
		return -1
	}
	return fc.lineStarts[line] + c
}

// maxUnmappableCandidates bounds the normalized matches tried before a
// lookup gives up as ambiguous, as the reference does.
const maxUnmappableCandidates = 1024

// match is where an edit's oldText was found in the original content,
// and how often it occurs in the space it was found in (the content for
// an exact match, the normalized content for a fuzzy one).
type match struct {
	found, fuzzy, unsafe bool
	index, length        int
	occurrences          int
}

// find looks oldText up in content, exactly and then normalized. exact is
// strings.Index(content, oldText), which the caller already knows.
func find(content, oldText string, exact int, fc *fuzzyContent) match {
	if exact >= 0 {
		return match{found: true, index: exact, length: len(oldText), occurrences: countFrom(content, oldText, exact)}
	}
	want := fuzzy(oldText)
	if want == "" {
		return match{fuzzy: true, unsafe: true}
	}
	first := strings.Index(fc.text, want)
	if first < 0 {
		return match{}
	}
	at := first
	for tries := 0; at >= 0 && tries < maxUnmappableCandidates; tries++ {
		start, end := fc.mapBoundary(at, true), fc.mapBoundary(at+len(want), false)
		if start >= 0 && end >= start && fuzzy(content[start:end]) == want {
			return match{found: true, fuzzy: true, index: start, length: end - start, occurrences: countFrom(fc.text, want, first)}
		}
		next := strings.Index(fc.text[at+1:], want)
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return match{fuzzy: true, unsafe: true}
}

// countFrom is strings.Count(s, sub) where sub first occurs at first: the
// text before it is not searched again.
func countFrom(s, sub string, first int) int {
	return 1 + strings.Count(s[first+len(sub):], sub)
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
	exact := make([]int, total)
	for i, e := range edits {
		if exact[i] = strings.Index(content, toLF(e.OldText)); exact[i] < 0 && fc == nil {
			fc = prepareFuzzy(content)
		}
	}
	spans := make([]span, 0, total)
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		oldText := toLF(e.OldText)
		m := find(content, oldText, exact[i], fc)
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
		if n := m.occurrences; n > 1 {
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
