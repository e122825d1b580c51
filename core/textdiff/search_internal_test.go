package textdiff

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// intern maps equal lines to equal numbers: the reference search ran on
// these numbers, with room for every diagonal from the start.
func intern(oldLines, newLines []string) ([]int, []int) {
	ids := map[string]int{}
	id := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			n, ok := ids[l]
			if !ok {
				n = len(ids)
				ids[l] = n
			}
			out[i] = n
		}
		return out
	}
	return id(oldLines), id(newLines)
}

// referenceLines is Lines as it was: the search over interned lines, with
// a table of every diagonal.
func referenceLines(oldText, newText string) []Part {
	oldLines, newLines := SplitLines(oldText), SplitLines(newText)
	a, b := intern(oldLines, newLines)
	return referenceBuild(referenceSearch(a, b), oldLines, newLines)
}

// TestLinesMatchesReference: the search over the texts' bytes, whose
// table of diagonals grows as the edit length does, finds the same diff
// (and the same hunks) as the search over interned lines with the whole
// table, on random texts of few distinct lines (many equally short diffs)
// and on edits far apart (the table grows many times).
func TestLinesMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 4))
	words := []string{"a\n", "b\n", "c\n", "\n", "a", "d\n"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for i := range 3000 {
		n := 1 + rng.IntN(30)
		if i%100 == 0 {
			n = 300 + rng.IntN(300)
		}
		checkDiff(t, text(n), text(rng.IntN(n+5)))
	}
}

// TestDiffLongLines: lines and runs of shared bytes longer than the
// blocks commonPrefix compares whole, differing at any byte.
func TestDiffLongLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 11))
	line := func() string {
		n := []int{0, 1, 63, 64, 65, 100, 4095, 4096, 4097, 9000}[rng.IntN(10)]
		return strings.Repeat(string(rune('a'+rng.IntN(2))), n) + "\n"
	}
	for range 300 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(line())
		}
		old := b.String()
		new := []byte(old)
		for range rng.IntN(3) {
			if len(new) > 0 {
				new[rng.IntN(len(new))] = "ab\nc"[rng.IntN(4)]
			}
		}
		if rng.IntN(4) == 0 {
			new = append(new, "tail"...)
		}
		checkDiff(t, old, string(new))
	}
}

// referenceBuild turns the linked edit script into parts with all their
// lines, as the search over lines did.
func referenceBuild(last *component, oldLines, newLines []string) []Part {
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

// referenceHunks is hunks as it was, over parts with all their lines.
func referenceHunks(parts []Part, context int) []hunk {
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

// referencePatch is UnifiedPatch's hunks as they were made, from the
// reference's parts.
func referencePatch(oldText, newText string, context int) []hunk {
	return referenceHunks(referenceLines(oldText, newText), context)
}

// checkDiff: Diff's runs are the reference's parts (the same lines, in
// runs of the same kind, counted right), and the hunks made from them are
// the reference's, with every context.
func checkDiff(t *testing.T, old, new string) {
	t.Helper()
	runs, want := Diff(old, new), referenceLines(old, new)
	if got := Lines(old, new); !reflect.DeepEqual(got, want) {
		t.Fatalf("Lines(%q, %q) =\n%v\nthe reference's\n%v", old, new, got, want)
	}
	for i, r := range runs {
		if r.Lines != len(want[i].Lines) || r.Text != want[i].Value() {
			t.Fatalf("Diff(%q, %q)[%d] = %+v; the reference's part %q", old, new, i, r, want[i].Lines)
		}
		for n := range 4 {
			lines := want[i].Lines
			if h, w := r.Head(n), lines[:min(n, len(lines))]; !slices.Equal(h, w) {
				t.Fatalf("%+v.Head(%d) = %q, want %q", r, n, h, w)
			}
			if tl, w := r.Tail(n), lines[max(0, len(lines)-n):]; !slices.Equal(tl, w) {
				t.Fatalf("%+v.Tail(%d) = %q, want %q", r, n, tl, w)
			}
		}
	}
	for _, pieces := range splits(old, new) {
		if got := DiffPieces(old, pieces); !reflect.DeepEqual(got, runs) {
			t.Fatalf("DiffPieces(%q, %q) =\n%+v\nDiff's\n%+v", old, pieces, got, runs)
		}
	}
	for context := range 5 {
		if got, want := hunks(runs, context), referencePatch(old, new, context); !reflect.DeepEqual(got, want) {
			t.Fatalf("hunks(%q, %q, %d) =\n%v\nthe reference's\n%v", old, new, context, got, want)
		}
	}
}

// splits cuts new into pieces in several ways: every k bytes, with empty
// pieces among them, and as an edit's new text is given (the shared start
// and end taken from old's own memory, and from a copy of it, around the
// rest).
func splits(old, new string) [][]string {
	var out [][]string
	for _, k := range []int{1, 2, 3, 7} {
		var pieces []string
		for at := 0; at < len(new); at += k {
			pieces = append(pieces, new[at:min(at+k, len(new))], "")
		}
		out = append(out, pieces)
	}
	head := 0
	for head < min(len(old), len(new)) && old[head] == new[head] {
		head++
	}
	tail := 0
	for tail < min(len(old), len(new))-head && old[len(old)-1-tail] == new[len(new)-1-tail] {
		tail++
	}
	for _, cut := range [][2]int{{head, tail}, {head / 2, tail / 2}, {head, 0}, {0, tail}} {
		h, t := cut[0], cut[1]
		out = append(out, []string{old[:h], new[h : len(new)-t], old[len(old)-t:]})
		same := strings.Clone(old)
		out = append(out, []string{same[:h], new[h : len(new)-t], same[len(same)-t:]})
	}
	return out
}

// FuzzDiff: Diff, its lines and its hunks are the reference's for any
// two texts.
func FuzzDiff(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"a\nb\n", "a\nc\n"}, {"a", "a\n"}, {"x\ny", "x\ny"}, {"a\na\nb\n", "b\na\n"}, {"\n\n", "\n"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, old, new string) { checkDiff(t, old, new) })
}

// referenceSearch finds the shortest edit script from a to b, breaking ties as
// jsdiff does, and returns its last component.
func referenceSearch(a, b []int) *component {
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
	offset := maxEdit + 1
	best := make([]*path, 2*maxEdit+3)
	best[offset] = &path{oldPos: -1}
	newPos := extract(best[offset], 0)
	if best[offset].oldPos+1 >= oldLen && newPos+1 >= newLen {
		return best[offset].last
	}
	minDiagonal, maxDiagonal := -maxEdit-1, maxEdit+1
	for editLength := 1; editLength <= maxEdit; editLength++ {
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
