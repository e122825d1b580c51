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
	"strconv"
	"strings"
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
	return LinesOf(SplitLines(oldText), SplitLines(newText))
}

// LinesOf is Lines of two texts already split by SplitLines.
func LinesOf(oldLines, newLines []string) []Part {
	return build(search(oldLines, newLines), oldLines, newLines)
}

// component is a run in the edit script, linked to the run before it.
type component struct {
	count          int
	added, removed bool
	prev           *component
}

type path struct {
	oldPos int
	last   *component
}

// search finds the shortest edit script from a to b, breaking ties as
// jsdiff does, and returns its last component. It keeps paths only for
// the diagonals an edit script as long as the one found can reach, so its
// memory grows with the edit distance, not with the texts.
func search[T comparable](a, b []T) *component {
	oldLen, newLen := len(a), len(b)
	extract := func(p *path, diagonal int) int {
		oldPos := p.oldPos
		newPos := oldPos - diagonal
		common := 0
		for newPos+1 < newLen && oldPos+1 < oldLen && a[oldPos+1] == b[newPos+1] {
			newPos++
			oldPos++
			common++
		}
		if common > 0 {
			p.last = &component{count: common, prev: p.last}
		}
		p.oldPos = oldPos
		return newPos
	}
	extend := func(p *path, added, removed bool, oldPosInc int) *path {
		last := p.last
		if last != nil && last.added == added && last.removed == removed {
			return &path{oldPos: p.oldPos + oldPosInc, last: &component{count: last.count + 1, added: added, removed: removed, prev: last.prev}}
		}
		return &path{oldPos: p.oldPos + oldPosInc, last: &component{count: 1, added: added, removed: removed, prev: last}}
	}

	maxEdit := oldLen + newLen
	// best[offset+d] is the furthest path on diagonal d; it grows (and
	// offset with it) as the edit length does.
	offset := min(maxEdit, 64) + 1
	best := make([]*path, 2*offset+1)
	best[offset] = &path{oldPos: -1}
	newPos := extract(best[offset], 0)
	if best[offset].oldPos+1 >= oldLen && newPos+1 >= newLen {
		return best[offset].last
	}
	minDiagonal, maxDiagonal := -maxEdit-1, maxEdit+1
	for editLength := 1; editLength <= maxEdit; editLength++ {
		if editLength+1 > offset {
			grown := min(2*offset, maxEdit+1)
			wider := make([]*path, 2*grown+1)
			copy(wider[grown-offset:], best)
			best, offset = wider, grown
		}
		for d := max(minDiagonal, -editLength); d <= min(maxDiagonal, editLength); d += 2 {
			removePath, addPath := best[offset+d-1], best[offset+d+1]
			if removePath != nil {
				best[offset+d-1] = nil
			}
			canAdd := false
			if addPath != nil {
				addNewPos := addPath.oldPos - d
				canAdd = 0 <= addNewPos && addNewPos < newLen
			}
			canRemove := removePath != nil && removePath.oldPos+1 < oldLen
			if !canAdd && !canRemove {
				best[offset+d] = nil
				continue
			}
			var base *path
			if !canRemove || canAdd && removePath.oldPos < addPath.oldPos {
				base = extend(addPath, true, false, 0)
			} else {
				base = extend(removePath, false, true, 1)
			}
			newPos = extract(base, d)
			if base.oldPos+1 >= oldLen && newPos+1 >= newLen {
				return base.last
			}
			best[offset+d] = base
			if base.oldPos+1 >= oldLen {
				maxDiagonal = min(maxDiagonal, d-1)
			}
			if newPos+1 >= newLen {
				minDiagonal = max(minDiagonal, d+1)
			}
		}
	}
	return nil // unreachable: an edit script of length oldLen+newLen always exists
}

// build turns the linked edit script into parts with their text.
func build(last *component, oldLines, newLines []string) []Part {
	var comps []*component
	for c := last; c != nil; c = c.prev {
		comps = append(comps, c)
	}
	parts := make([]Part, 0, len(comps))
	oldPos, newPos := 0, 0
	for i := len(comps) - 1; i >= 0; i-- {
		c := comps[i]
		p := Part{Added: c.added, Removed: c.removed}
		if c.removed {
			p.Lines = oldLines[oldPos : oldPos+c.count]
			oldPos += c.count
		} else {
			p.Lines = newLines[newPos : newPos+c.count]
			newPos += c.count
			if !c.added {
				oldPos += c.count
			}
		}
		parts = append(parts, p)
	}
	return parts
}

type hunk struct {
	oldStart, oldLines, newStart, newLines int
	lines                                  []string
}

// hunks groups a diff into hunks with context lines around each change,
// as jsdiff's structuredPatch does.
func hunks(parts []Part, context int) []hunk {
	type entry struct {
		lines          []string
		added, removed bool
	}
	entries := make([]entry, 0, len(parts)+1)
	for _, p := range parts {
		entries = append(entries, entry{p.Lines, p.Added, p.Removed})
	}
	entries = append(entries, entry{}) // makes closing the last hunk uniform
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
	for i, e := range entries {
		if e.added || e.removed {
			if oldRangeStart == 0 {
				oldRangeStart, newRangeStart = oldLine, newLine
				if i > 0 {
					prev := entries[i-1].lines
					if context > 0 {
						cur = withSpace(prev[max(0, len(prev)-context):])
					} else {
						cur = nil
					}
					oldRangeStart -= len(cur)
					newRangeStart -= len(cur)
				}
			}
			sign := "-"
			if e.added {
				sign = "+"
			}
			for _, l := range e.lines {
				cur = append(cur, sign+l)
			}
			if e.added {
				newLine += len(e.lines)
			} else {
				oldLine += len(e.lines)
			}
			continue
		}
		if oldRangeStart != 0 {
			if len(e.lines) <= context*2 && i < len(entries)-2 {
				cur = append(cur, withSpace(e.lines)...)
			} else {
				size := min(len(e.lines), context)
				cur = append(cur, withSpace(e.lines[:size])...)
				out = append(out, hunk{
					oldStart: oldRangeStart, oldLines: oldLine - oldRangeStart + size,
					newStart: newRangeStart, newLines: newLine - newRangeStart + size,
					lines: cur,
				})
				oldRangeStart, newRangeStart, cur = 0, 0, nil
			}
		}
		oldLine += len(e.lines)
		newLine += len(e.lines)
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
	return PatchOf(name, Lines(oldText, newText), context)
}

// PatchOf is UnifiedPatch for a diff already computed with Lines.
func PatchOf(name string, parts []Part, context int) string {
	var b strings.Builder
	b.WriteString("Index: " + name + "\n")
	b.WriteString(strings.Repeat("=", 67) + "\n")
	b.WriteString("--- " + quoteName(name) + "\n")
	b.WriteString("+++ " + quoteName(name) + "\n")
	for _, h := range hunks(parts, context) {
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
