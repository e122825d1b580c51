// Package textdiff computes line diffs and unified patches exactly as the
// npm package "diff" (jsdiff) does, the one the reference's edit tool
// uses: the same hunks, the same choice among equally short diffs, the
// same patch text. A model sees these bytes, so they follow jsdiff's
// algorithm (Myers' O(ND) search with jsdiff's diagonal pruning and
// tie-breaking) rather than another diff library's.
//
// Text is a Go string; lines end at "\n". textdiff imports only the
// standard library.
package textdiff

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Part is a run of lines that both texts share, or that one of them adds
// or removes.
type Part struct {
	// Lines are the lines, each with its "\n" (the last line of a text
	// may have none).
	Lines   []string
	Added   bool
	Removed bool
}

// Value is the part's text, as jsdiff gives it.
func (p Part) Value() string { return strings.Join(p.Lines, "") }

// Run is a Part that keeps its lines as one text: what Diff gives, which
// never cuts a text into lines.
type Run struct {
	// Text is the run's lines, each with its "\n" (the last line of a
	// text may have none); a substring of the text it comes from.
	Text    string
	Lines   int // how many lines Text holds
	Added   bool
	Removed bool
}

// Head is the first n lines of the run (all of them when it has fewer),
// each with its "\n".
func (r Run) Head(n int) []string {
	end := 0
	for ; n > 0 && end < len(r.Text); n-- {
		i := strings.IndexByte(r.Text[end:], '\n')
		if i < 0 {
			end = len(r.Text)
			break
		}
		end += i + 1
	}
	return SplitLines(r.Text[:end])
}

// Tail is the last n lines of the run (all of them when it has fewer),
// each with its "\n".
func (r Run) Tail(n int) []string {
	start := len(r.Text)
	for ; n > 0 && start > 0; n-- {
		start = strings.LastIndexByte(r.Text[:start-1], '\n') + 1
	}
	return SplitLines(r.Text[start:])
}

// SplitLines splits text into lines that keep their "\n"; the last line
// may have none. "" has no lines.
func SplitLines(text string) []string {
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// Lines diffs two texts line by line, as jsdiff's diffLines does with its
// default options.
func Lines(oldText, newText string) []Part {
	runs := Diff(oldText, newText)
	parts := make([]Part, len(runs))
	for i, r := range runs {
		parts[i] = Part{Lines: SplitLines(r.Text), Added: r.Added, Removed: r.Removed}
	}
	return parts
}

// Diff is Lines as runs: the same diff, found without cutting either text
// into lines (lines are compared as the bytes they span), so that its
// time and memory grow with the changes and the bytes compared, not with
// the texts' numbers of lines. Shared runs' texts are the old text's.
func Diff(oldText, newText string) []Run {
	return DiffPieces(oldText, []string{newText})
}

// DiffPieces is Diff of oldText and the text the pieces make one after
// another, which is never put together: an edit's new text is pieces of
// the old one around its replacements. Where a piece is the very memory
// of oldText a path compares (the same bytes at the same address), it is
// not compared again, so a diff of a large text with small changes costs
// what the changes do. An added run that spans pieces is a copy; other
// texts of the runs are substrings of oldText or of a piece.
func DiffPieces(oldText string, newPieces []string) []Run {
	b := newPieced(newPieces)
	return runsOf(search(oldText, b), oldText, b)
}

// pieced is a text given as consecutive pieces; none is empty.
type pieced struct {
	parts []string
	ends  []int // where each piece ends in the text
	n     int   // the text's length
}

func newPieced(parts []string) pieced {
	t := pieced{parts: make([]string, 0, len(parts)), ends: make([]int, 0, len(parts))}
	for _, p := range parts {
		if p != "" {
			t.n += len(p)
			t.parts, t.ends = append(t.parts, p), append(t.ends, t.n)
		}
	}
	return t
}

// from is the text from offset at to the end of the piece holding it,
// and that piece's index; "" and len(parts) at the end of the text.
func (t pieced) from(at int) (string, int) {
	i, _ := slices.BinarySearch(t.ends, at+1)
	if i == len(t.parts) {
		return "", i
	}
	return t.parts[i][len(t.parts[i])-(t.ends[i]-at):], i
}

// commonPrefix is how many leading bytes a and the text from at share.
func (t pieced) commonPrefix(a string, at int) int {
	s, i := t.from(at)
	n := 0
	for {
		k := commonPrefix(a[n:], s)
		n += k
		if k < len(s) || n == len(a) || i+1 >= len(t.parts) {
			return n
		}
		i++
		s = t.parts[i]
	}
}

// lineSize is the size of the line that starts at at, its "\n" included.
func (t pieced) lineSize(at int) int {
	s, i := t.from(at)
	size := 0
	for {
		n := lineSize(s)
		size += n
		if n > 0 && s[n-1] == '\n' || i+1 >= len(t.parts) {
			return size
		}
		i++
		s = t.parts[i]
	}
}

// slice is the text's bytes from start to end: a substring of one piece,
// or a copy when they span several.
func (t pieced) slice(start, end int) string {
	if start == end {
		return ""
	}
	s, i := t.from(start)
	if end-start <= len(s) {
		return s[:end-start]
	}
	var b strings.Builder
	b.Grow(end - start)
	for b.Len() < end-start {
		b.WriteString(s[:min(len(s), end-start-b.Len())])
		i++
		if i < len(t.parts) {
			s = t.parts[i]
		}
	}
	return b.String()
}

// lineSize is the size of the line text starts with, its "\n" included.
func lineSize(text string) int {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		return i + 1
	}
	return len(text)
}

// component is a run in the edit script, linked to the run before it:
// count lines of size bytes.
type component struct {
	count, size    int
	added, removed bool
	prev           *component
}

// path is a furthest path on a diagonal: the last old line it took
// (oldPos, -1 for none), where the next line of each text starts, and
// its edit script.
type path struct {
	oldPos       int
	oldAt, newAt int
	last         *component
}

// commonPrefix is how many leading bytes a and b share. Two strings at
// the same address share their shorter length without a look.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	if n > 0 && unsafe.StringData(a) == unsafe.StringData(b) {
		return n
	}
	i := 0
	// Whole blocks first (compared as memory), then bytes.
	for _, block := range [...]int{4096, 64} {
		for i+block <= n && a[i:i+block] == b[i:i+block] {
			i += block
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonLines is how many whole lines a and the text b from at start
// with alike, and their size: the lines within their common prefix, and a
// last line without "\n" only when it ends both.
func commonLines(a string, b pieced, at int) (lines, size int) {
	n := b.commonPrefix(a, at)
	if n == len(a) && at+n == b.n {
		lines = strings.Count(a, "\n")
		if n > 0 && a[n-1] != '\n' {
			lines++
		}
		return lines, n
	}
	size = strings.LastIndexByte(a[:n], '\n') + 1
	return strings.Count(a[:size], "\n"), size
}

// search finds the shortest edit script from the lines of a to those of
// b, breaking ties as jsdiff does, and returns its last component. It
// keeps paths only for the diagonals an edit script as long as the one
// found can reach, so its memory grows with the edit distance, not with
// the texts.
func search(a string, b pieced) *component {
	extract := func(p *path) {
		n, size := commonLines(a[p.oldAt:], b, p.newAt)
		if n > 0 {
			p.last = &component{count: n, size: size, prev: p.last}
		}
		p.oldPos += n
		p.oldAt += size
		p.newAt += size
	}
	extend := func(p *path, added bool) *path {
		next := &path{oldPos: p.oldPos, oldAt: p.oldAt, newAt: p.newAt}
		size := 0
		if added {
			size = b.lineSize(p.newAt)
			next.newAt += size
		} else {
			size = lineSize(a[p.oldAt:])
			next.oldPos++
			next.oldAt += size
		}
		last := p.last
		if last != nil && last.added == added && last.removed == !added {
			next.last = &component{count: last.count + 1, size: last.size + size, added: added, removed: !added, prev: last.prev}
		} else {
			next.last = &component{count: 1, size: size, added: added, removed: !added, prev: last}
		}
		return next
	}
	done := func(p *path) bool { return p.oldAt >= len(a) && p.newAt >= b.n }

	// best[offset+d] is the furthest path on diagonal d; it grows (and
	// offset with it) as the edit length does.
	offset := 65
	best := make([]*path, 2*offset+1)
	best[offset] = &path{oldPos: -1}
	extract(best[offset])
	if done(best[offset]) {
		return best[offset].last
	}
	// An edit script of length len(lines of a) + len(lines of b) always
	// exists, so the search ends.
	minDiagonal, maxDiagonal := math.MinInt, math.MaxInt
	for editLength := 1; ; editLength++ {
		if editLength+1 > offset {
			grown := 2 * offset
			wider := make([]*path, 2*grown+1)
			copy(wider[grown-offset:], best)
			best, offset = wider, grown
		}
		for d := max(minDiagonal, -editLength); d <= min(maxDiagonal, editLength); d += 2 {
			removePath, addPath := best[offset+d-1], best[offset+d+1]
			if removePath != nil {
				best[offset+d-1] = nil
			}
			canAdd := addPath != nil && addPath.newAt < b.n
			canRemove := removePath != nil && removePath.oldAt < len(a)
			if !canAdd && !canRemove {
				best[offset+d] = nil
				continue
			}
			var base *path
			if !canRemove || canAdd && removePath.oldPos < addPath.oldPos {
				base = extend(addPath, true)
			} else {
				base = extend(removePath, false)
			}
			extract(base)
			if done(base) {
				return base.last
			}
			best[offset+d] = base
			if base.oldAt >= len(a) {
				maxDiagonal = min(maxDiagonal, d-1)
			}
			if base.newAt >= b.n {
				minDiagonal = max(minDiagonal, d+1)
			}
		}
	}
}

// runsOf turns the linked edit script into runs with their text.
func runsOf(last *component, oldText string, newText pieced) []Run {
	var comps []*component
	for c := last; c != nil; c = c.prev {
		comps = append(comps, c)
	}
	runs := make([]Run, 0, len(comps))
	oldAt, newAt := 0, 0
	for i := len(comps) - 1; i >= 0; i-- {
		c := comps[i]
		r := Run{Lines: c.count, Added: c.added, Removed: c.removed}
		switch {
		case c.added:
			r.Text = newText.slice(newAt, newAt+c.size)
			newAt += c.size
		default:
			r.Text = oldText[oldAt : oldAt+c.size]
			oldAt += c.size
			if !c.removed {
				newAt += c.size
			}
		}
		runs = append(runs, r)
	}
	return runs
}

type hunk struct {
	oldStart, oldLines, newStart, newLines int
	lines                                  []string
}

// hunks groups a diff into hunks with context lines around each change,
// as jsdiff's structuredPatch does. Of a shared run it cuts only the
// lines a hunk shows.
func hunks(runs []Run, context int) []hunk {
	runs = append(runs[:len(runs):len(runs)], Run{}) // makes closing the last hunk uniform
	withSpace := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = " " + l
		}
		return out
	}
	var out []hunk
	oldRangeStart, newRangeStart, oldLine, newLine := 0, 0, 1, 1
	var cur []string
	for i, e := range runs {
		if e.Added || e.Removed {
			if oldRangeStart == 0 {
				oldRangeStart, newRangeStart = oldLine, newLine
				if i > 0 {
					if context > 0 {
						cur = withSpace(runs[i-1].Tail(context))
					} else {
						cur = nil
					}
					oldRangeStart -= len(cur)
					newRangeStart -= len(cur)
				}
			}
			sign := "-"
			if e.Added {
				sign = "+"
			}
			for _, l := range SplitLines(e.Text) {
				cur = append(cur, sign+l)
			}
			if e.Added {
				newLine += e.Lines
			} else {
				oldLine += e.Lines
			}
			continue
		}
		if oldRangeStart != 0 {
			if e.Lines <= context*2 && i < len(runs)-2 {
				cur = append(cur, withSpace(SplitLines(e.Text))...)
			} else {
				size := min(e.Lines, context)
				cur = append(cur, withSpace(e.Head(size))...)
				out = append(out, hunk{
					oldStart: oldRangeStart, oldLines: oldLine - oldRangeStart + size,
					newStart: newRangeStart, newLines: newLine - newRangeStart + size,
					lines: cur,
				})
				oldRangeStart, newRangeStart, cur = 0, 0, nil
			}
		}
		oldLine += e.Lines
		newLine += e.Lines
	}
	for i := range out {
		var lines []string
		for _, l := range out[i].lines {
			if trimmed, ok := strings.CutSuffix(l, "\n"); ok {
				lines = append(lines, trimmed)
			} else {
				lines = append(lines, l, `\ No newline at end of file`)
			}
		}
		out[i].lines = lines
	}
	return out
}

// UnifiedPatch is jsdiff's createTwoFilesPatch(name, name, oldText,
// newText, undefined, undefined, {context}): an "Index:" line, a rule,
// the file headers (the name C-quoted when it holds a character outside
// printable ASCII, a quote or a backslash) and the hunks, each line ending
// in "\n".
func UnifiedPatch(name, oldText, newText string, context int) string {
	return PatchOf(name, Diff(oldText, newText), context)
}

// PatchOf is UnifiedPatch for a diff already computed with Diff.
func PatchOf(name string, runs []Run, context int) string {
	var b strings.Builder
	b.WriteString("Index: " + name + "\n")
	b.WriteString(strings.Repeat("=", 67) + "\n")
	b.WriteString("--- " + quoteName(name) + "\n")
	b.WriteString("+++ " + quoteName(name) + "\n")
	for _, h := range hunks(runs, context) {
		oldStart, newStart := h.oldStart, h.newStart
		if h.oldLines == 0 {
			oldStart--
		}
		if h.newLines == 0 {
			newStart--
		}
		b.WriteString("@@ -" + strconv.Itoa(oldStart) + "," + strconv.Itoa(h.oldLines) +
			" +" + strconv.Itoa(newStart) + "," + strconv.Itoa(h.newLines) + " @@\n")
		for _, l := range h.lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// quoteName quotes a file name as Git and GNU diff do, when it needs it:
// C escapes, and each byte of a non-ASCII character in octal.
func quoteName(s string) string {
	needs := false
	for _, r := range s {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			needs = true
			break
		}
	}
	if !needs {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case 0x07:
			b.WriteString(`\a`)
		case 0x08:
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case 0x0b:
			b.WriteString(`\v`)
		case 0x0c:
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c >= 0x20 && c <= 0x7e {
				b.WriteByte(c)
			} else {
				b.WriteString(`\` + leftPad(strconv.FormatUint(uint64(c), 8), 3, '0'))
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func leftPad(s string, n int, pad byte) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat(string(pad), n-len(s)) + s
}
