package execbackend

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMerge3(t *testing.T) {
	cases := []struct {
		name, base, ours, theirs string
		want                     string // "" with conflict
		conflict                 bool
	}{
		{name: "adjacent lines (the issue's example)", base: "alpha\nbeta\n", ours: "alpha\nBETA\n", theirs: "ALPHA\nbeta\n", want: "ALPHA\nBETA\n"},
		{name: "distant lines", base: "a\nb\nc\nd\ne\n", ours: "A\nb\nc\nd\ne\n", theirs: "a\nb\nc\nd\nE\n", want: "A\nb\nc\nd\nE\n"},
		{name: "same line", base: "a\nb\n", ours: "A1\nb\n", theirs: "A2\nb\n", conflict: true},
		{name: "same change on both sides", base: "a\nb\nc\n", ours: "A\nb\nC\n", theirs: "A\nb\nc\n", want: "A\nb\nC\n"},
		{name: "insertions at one place", base: "a\nb\n", ours: "a\nx\nb\n", theirs: "a\ny\nb\n", conflict: true},
		{name: "insertion next to a change", base: "a\nb\nc\n", ours: "a\nnew\nb\nc\n", theirs: "a\nb\nC\n", want: "a\nnew\nb\nC\n"},
		{name: "deletion and change of one line", base: "a\nb\nc\n", ours: "a\nc\n", theirs: "a\nB\nc\n", conflict: true},
		{name: "CRLF kept", base: "one\r\ntwo\r\nthree\r\n", ours: "ONE\r\ntwo\r\nthree\r\n", theirs: "one\r\ntwo\r\nTHREE\r\n", want: "ONE\r\ntwo\r\nTHREE\r\n"},
		{name: "mixed endings kept", base: "a\r\nb\nc\r\n", ours: "a\r\nb\nC\r\n", theirs: "A\r\nb\nc\r\n", want: "A\r\nb\nC\r\n"},
		{name: "no final newline kept", base: "a\nb\nc", ours: "A\nb\nc", theirs: "a\nb\nC", want: "A\nb\nC"},
		{name: "final newline added on one side", base: "a\nb\nc", ours: "A\nb\nc", theirs: "a\nb\nc\n", want: "A\nb\nc\n"},
		{name: "empty base, different content", base: "", ours: "x\n", theirs: "y\n", conflict: true},
		{name: "empty base, same content", base: "", ours: "x\n", theirs: "x\n", want: "x\n"},
		{name: "ours unchanged: theirs as is, NUL too", base: "a\x00b", ours: "a\x00b", theirs: "c\x00d", want: "c\x00d"},
		{name: "theirs unchanged", base: "a\x00b", ours: "z\x00", theirs: "a\x00b", want: "z\x00"},
		{name: "not text", base: "a\nb\x00\n", ours: "A\nb\x00\n", theirs: "a\nB\x00\n", conflict: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := merge3([]byte(c.base), []byte(c.ours), []byte(c.theirs))
			if ok == c.conflict || ok && string(got) != c.want {
				t.Errorf("merge3 = %q, %v; want %q, %v", got, ok, c.want, !c.conflict)
			}
		})
	}
}

// A merge too costly to compute (two complete rewrites of a large file)
// is a conflict, at once.
func TestMerge3Budget(t *testing.T) {
	var base, ours, theirs strings.Builder
	for i := range 20000 {
		base.WriteString("line " + string(rune('a'+i%26)) + "\n")
		ours.WriteString("ours " + string(rune('a'+i%26)) + "\n")
		theirs.WriteString("theirs " + string(rune('a'+i%26)) + "\n")
	}
	if _, ok := merge3([]byte(base.String()), []byte(ours.String()), []byte(theirs.String())); ok {
		t.Error("two rewrites merged")
	}
}

// withinEdits agrees with the textbook count of insertions and
// deletions.
func TestWithinEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seq := func() []int {
		s := make([]int, r.IntN(12))
		for i := range s {
			s[i] = r.IntN(3)
		}
		return s
	}
	for range 2000 {
		a, b := seq(), seq()
		d := editDistance(a, b)
		for limit := 0; limit <= 25; limit++ {
			if got := withinEdits(a, b, limit); got != (d <= limit) {
				t.Fatalf("withinEdits(%v, %v, %d) = %v; distance %d", a, b, limit, got, d)
			}
		}
	}
}

func editDistance(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
		for j := range dp[i] {
			switch {
			case i == 0:
				dp[i][j] = j
			case j == 0:
				dp[i][j] = i
			case a[i-1] == b[j-1]:
				dp[i][j] = dp[i-1][j-1]
			default:
				dp[i][j] = 1 + min(dp[i-1][j], dp[i][j-1])
			}
		}
	}
	return dp[len(a)][len(b)]
}

// Scattered changes to a large file with many repeated lines merge (they
// are well within the budget).
func TestMerge3LargeFile(t *testing.T) {
	lines := make([]string, 200000)
	for i := range lines {
		switch i % 4 {
		case 0:
			lines[i] = "\n"
		case 1:
			lines[i] = "}\n"
		default:
			lines[i] = "line " + strconv.Itoa(i) + "\n"
		}
	}
	edit := func(at map[int]string) []byte {
		out := slices.Clone(lines)
		for i, l := range at {
			out[i] = l
		}
		return []byte(strings.Join(out, ""))
	}
	ours := map[int]string{}
	theirs := map[int]string{}
	both := map[int]string{}
	for k := range 50 {
		ours[k*4000+2] = "ours\n"
		theirs[k*4000+2002] = "theirs\n"
		both[k*4000+2], both[k*4000+2002] = "ours\n", "theirs\n"
	}
	got, ok := merge3(edit(nil), edit(ours), edit(theirs))
	if !ok || string(got) != string(edit(both)) {
		t.Errorf("merge of scattered changes: ok %v, equal %v", ok, string(got) == string(edit(both)))
	}
}
