package core

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/textdiff"
)

// TestNumberedDiffMatchesReference compares numberedDiff, over Diff's
// runs (only the lines shown are cut out), with the version that trimmed
// every line of every part first, on random diffs with every context.
func TestNumberedDiffMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 5))
	words := []string{"a\n", "b\n", "c\n", "\n", "a", "dd\n"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for range 3000 {
		old := text(rng.IntN(40))
		new := old
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(new) + 1)
			j := min(len(new), i+rng.IntN(6))
			new = new[:i] + text(rng.IntN(3)) + new[j:]
		}
		runs, parts := textdiff.Diff(old, new), textdiff.Lines(old, new)
		for context := range 6 {
			gotDiff, gotFirst := numberedDiff(runs, strings.Count(old, "\n"), strings.Count(new, "\n"), context)
			wantDiff, wantFirst := referenceNumberedDiff(parts, old, new, context)
			if gotDiff != wantDiff || gotFirst != wantFirst {
				t.Fatalf("numberedDiff(%q, %q, %d) = %q, %d; the reference's %q, %d", old, new, context, gotDiff, gotFirst, wantDiff, wantFirst)
			}
		}
	}
}

// referenceNumberedDiff is numberedDiff as it was (every line of every
// part trimmed first): the reference of TestNumberedDiffMatchesReference.
// It is the reference's display diff: changed lines marked "-"
// and "+" with their line numbers, up to context unchanged lines around
// them, and "..." where unchanged lines are left out. It also returns the
// first changed line of the new text (0 when nothing changed).
func referenceNumberedDiff(parts []textdiff.Part, before, after string, context int) (string, int) {
	width := len(strconv.Itoa(max(strings.Count(before, "\n"), strings.Count(after, "\n")) + 1))
	num := func(n int) string {
		s := strconv.Itoa(n)
		return strings.Repeat(" ", max(0, width-len(s))) + s
	}
	gap := " " + strings.Repeat(" ", width) + " ..."
	var out []string
	oldLine, newLine, first := 1, 1, 0
	lastWasChange := false
	for i, part := range parts {
		raw := make([]string, len(part.Lines))
		for j, l := range part.Lines {
			raw[j] = strings.TrimSuffix(l, "\n")
		}
		if part.Added || part.Removed {
			if first == 0 {
				first = newLine
			}
			for _, line := range raw {
				if part.Added {
					out = append(out, "+"+num(newLine)+" "+line)
					newLine++
				} else {
					out = append(out, "-"+num(oldLine)+" "+line)
					oldLine++
				}
			}
			lastWasChange = true
			continue
		}
		emit := func(lines []string) {
			for _, line := range lines {
				out = append(out, " "+num(oldLine)+" "+line)
				oldLine++
				newLine++
			}
		}
		skip := func(n int) {
			out = append(out, gap)
			oldLine += n
			newLine += n
		}
		leading := lastWasChange
		trailing := i < len(parts)-1 && (parts[i+1].Added || parts[i+1].Removed)
		switch {
		case leading && trailing:
			if len(raw) <= context*2 {
				emit(raw)
			} else {
				emit(raw[:context])
				skip(len(raw) - context*2)
				emit(raw[len(raw)-context:])
			}
		case leading:
			emit(raw[:min(context, len(raw))])
			if n := len(raw) - context; n > 0 {
				skip(n)
			}
		case trailing:
			n := max(0, len(raw)-context)
			if n > 0 {
				skip(n)
			}
			emit(raw[n:])
		default:
			oldLine += len(raw)
			newLine += len(raw)
		}
		lastWasChange = false
	}
	return strings.Join(out, "\n"), first
}
