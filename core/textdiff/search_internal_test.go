package textdiff

import (
	"math/rand/v2"
	"reflect"
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
	return build(referenceSearch(a, b), oldLines, newLines)
}

// TestLinesMatchesReference: the search over the lines themselves, whose
// table of diagonals grows as the edit length does, finds the same diff
// as the search over interned lines with the whole table, on random
// texts of few distinct lines (many equally short diffs) and on edits far
// apart (the table grows many times).
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
		old, new := text(n), text(rng.IntN(n+5))
		if got, want := Lines(old, new), referenceLines(old, new); !reflect.DeepEqual(got, want) {
			t.Fatalf("Lines(%q, %q) =\n%v\nthe reference's\n%v", old, new, got, want)
		}
	}
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
