package execbackend

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/epiclabs-io/diff3"

	"github.com/agenttools/agenttools/core/textdiff"
)

// maxMergeWork bounds the work of one three-way merge, in steps of the
// line diffs (lines compared, about a nanosecond or two each): a diff of
// n+m lines that needs d edits takes about (n+m)·d. A merge whose two
// diffs would take more (a large file that both sides rewrote) is not
// attempted and counts as a conflict, so a sync never stalls on one.
const maxMergeWork = 50_000_000

// merge3 merges two changes of base line by line: ours (the workspace's
// content now) and theirs (what the command made of base). Lines keep
// their endings ("\n", "\r\n", none at the end of the text), so what no
// side changed comes out byte for byte. Changes to different lines merge,
// adjacent ones too; where both sides changed the same lines (or added
// different lines at the same place) differently, ok is false. So is it
// for content that is not text (it holds a NUL byte) unless one side did
// not change, and for a merge beyond maxMergeWork.
//
// The alignment is diff3's (github.com/epiclabs-io/diff3, Myers diffs);
// diff3 counts changes that touch without overlapping (one side changed
// line 1, the other line 2) as a conflict, as GNU diff3 and git do, so
// each such block is split again into the two sides' changes of base,
// which merge unless they overlap.
func merge3(base, ours, theirs []byte) (merged []byte, ok bool) {
	switch {
	case bytes.Equal(ours, base):
		return theirs, true
	case bytes.Equal(theirs, base), bytes.Equal(ours, theirs):
		return ours, true
	case bytes.IndexByte(base, 0) >= 0, bytes.IndexByte(ours, 0) >= 0, bytes.IndexByte(theirs, 0) >= 0:
		return nil, false
	}
	ids := map[string]int{}
	var lines []string
	intern := func(text []byte) []int {
		var out []int
		for _, l := range textdiff.SplitLines(string(text)) {
			id, seen := ids[l]
			if !seen {
				id = len(lines)
				ids[l] = id
				lines = append(lines, l)
			}
			out = append(out, id)
		}
		return out
	}
	o, a, b := intern(base), intern(ours), intern(theirs)
	if !withinEdits(o, a, maxMergeWork/(len(o)+len(a)+1)) || !withinEdits(o, b, maxMergeWork/(len(o)+len(b)+1)) {
		return nil, false
	}
	blocks, ok := diff3Merge(a, o, b)
	if !ok {
		return nil, false
	}
	var out bytes.Buffer
	out.Grow(max(len(ours), len(theirs)))
	for _, blk := range blocks {
		part := blk.Ok
		if c := blk.Conflict; c != nil {
			if part, ok = mergeBlock(lines, c.A, c.O, c.B); !ok {
				return nil, false
			}
		}
		for _, id := range part {
			out.WriteString(lines[id])
		}
	}
	return out.Bytes(), true
}

// diff3Merge is diff3.Diff3Merge with Myers diffs; a panic in the
// library is a failed merge, not a failed sync.
func diff3Merge(a, o, b []int) (blocks []*diff3.Diff3MergeResult[int], ok bool) {
	defer func() {
		if recover() != nil {
			blocks, ok = nil, false
		}
	}()
	return diff3.Diff3MergeWithOptions(a, o, b, diff3.MergeOptions{Algorithm: diff3.DiffAlgorithmMyers, ExcludeFalseConflicts: true}), true
}

// withinEdits reports whether b is at most limit line insertions and
// deletions away from a (Myers' greedy search, cut off at limit: time
// (len(a)+len(b))·limit at most).
func withinEdits(a, b []int, limit int) bool {
	n, m := len(a), len(b)
	if max(n-m, m-n) > limit {
		return false
	}
	limit = min(limit, n+m) // no two texts are further apart
	// v[off+k] is the furthest x reached on diagonal k = x-y, -1 for none.
	off := limit + 1
	v := make([]int, 2*limit+3)
	for i := range v {
		v[i] = -1
	}
	v[off+1] = 0
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			x := -1
			if down := v[off+k+1]; down >= 0 && down-k <= m {
				x = down // one line of b inserted
			}
			if right := v[off+k-1]; right >= 0 && right+1 <= n && right+1 > x {
				x = right + 1 // one line of a deleted
			}
			if x < 0 {
				v[off+k] = -1
				continue
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return true
			}
		}
	}
	return false
}

// change is one side's change of base: lines [start, end) replaced by
// lines (start == end: lines inserted before line start).
type change struct {
	start, end int
	lines      []int
}

// mergeBlock merges a block diff3 found conflicting: the changes each
// side made to o apply together unless they overlap (share a line of o,
// or insert different lines at one place, or one inserts inside the
// other's range). A change both sides made alike applies once.
func mergeBlock(lines []string, a, o, b []int) ([]int, bool) {
	ca, cb := changesOf(lines, o, a), changesOf(lines, o, b)
	all := make([]change, 0, len(ca)+len(cb))
	all = append(all, ca...)
	for _, y := range cb {
		dup := false
		for _, x := range ca {
			switch {
			case x.start == y.start && x.end == y.end && slices.Equal(x.lines, y.lines):
				dup = true
			case overlap(x, y):
				return nil, false
			}
		}
		if !dup {
			all = append(all, y)
		}
	}
	// By start; at one start an insertion goes before a range.
	slices.SortFunc(all, func(x, y change) int { return cmp.Or(x.start-y.start, x.end-y.end) })
	var out []int
	pos := 0
	for _, c := range all {
		out = append(out, o[pos:c.start]...)
		out = append(out, c.lines...)
		pos = c.end
	}
	return append(out, o[pos:]...), true
}

// overlap reports whether two changes of base by different sides touch
// the same place.
func overlap(x, y change) bool {
	switch {
	case x.start == x.end && y.start == y.end:
		return x.start == y.start
	case x.start == x.end:
		return y.start < x.start && x.start < y.end
	case y.start == y.end:
		return x.start < y.start && y.start < x.end
	}
	return x.start < y.end && y.start < x.end
}

// changesOf lists the changes that turn o into x, by line ids.
func changesOf(lines []string, o, x []int) []change {
	text := func(ids []int) string {
		var s strings.Builder
		for _, id := range ids {
			s.WriteString(lines[id])
		}
		return s.String()
	}
	var out []change
	var cur *change
	oPos, xPos := 0, 0
	for _, p := range textdiff.Lines(text(o), text(x)) {
		n := len(p.Lines)
		switch {
		case p.Removed:
			if cur == nil {
				cur = &change{start: oPos, end: oPos}
			}
			oPos += n
			cur.end = oPos
		case p.Added:
			if cur == nil {
				cur = &change{start: oPos, end: oPos}
			}
			cur.lines = append(cur.lines, x[xPos:xPos+n]...)
			xPos += n
		default:
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			oPos += n
			xPos += n
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}
