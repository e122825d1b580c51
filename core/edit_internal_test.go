package core

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agenttools/agenttools/core/textdiff"
	"github.com/agenttools/agenttools/toolspec"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// checkApplied verifies an applied edit against its input, independently
// of how applyEdits found it: the output is the input with only the
// reported spans replaced; each span was valid UTF-8 and matches its
// edit's oldText (exactly, or after the same normalization the matcher
// uses); and no U+FFFD appears that was not in the file or the new text.
func checkApplied(t *testing.T, raw []byte, edits []toolspec.Replacement, res edited) {
	t.Helper()
	var rebuilt []byte
	at := 0
	spans := slices.Clone(res.replaced)
	for _, r := range spans {
		if r.start < at || r.end < r.start || r.end > len(raw) {
			t.Fatalf("spans out of order or range: %+v in %d bytes", spans, len(raw))
		}
		if !utf8.Valid(raw[r.start:r.end]) {
			t.Fatalf("a span covers bytes that are not UTF-8: %q", raw[r.start:r.end])
		}
		rebuilt = append(rebuilt, raw[at:r.start]...)
		rebuilt = append(rebuilt, r.with...)
		at = r.end
	}
	rebuilt = append(rebuilt, raw[at:]...)
	if !bytes.Equal(rebuilt, res.pieces.Join()) {
		t.Fatalf("bytes outside the replaced spans changed:\nin:  %q\nout: %q\nspans: %+v", raw, res.pieces.Join(), spans)
	}
	for _, r := range spans {
		text := toLF(string(raw[r.start:r.end]))
		found := false
		for _, e := range edits {
			old := toLF(e.OldText)
			if text == old || fuzzy(text) == fuzzy(old) {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("span %q matches no oldText of %q", text, edits)
		}
	}
	fffd := func(b []byte) int { return bytes.Count(b, []byte("\uFFFD")) }
	allowed := fffd(raw)
	for _, e := range edits {
		allowed += fffd([]byte(e.NewText))
	}
	if fffd(res.pieces.Join()) > allowed {
		t.Fatalf("the edit wrote replacement characters: %q", res.pieces.Join())
	}
}

// FuzzApplyEdits: for any file and edits, a successful edit changes only
// the spans it reports, each a match of an oldText; a failed one returns
// no bytes to write (so the tool writes nothing).
func FuzzApplyEdits(f *testing.F) {
	for _, seed := range []struct {
		content          string
		old1, new1, old2 string
	}{
		{"alpha\nbeta\ngamma\n", "beta", "BETA", ""},
		{"one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3", ""},
		{"\xef\xbb\xbffirst\nsecond\n", "second", "2nd", "first"},
		{"He said “hello” — it’s fine.   \n", `He said "hello" - it's fine.`, "bye", ""},
		{"caf\xe9 au lait\nprix\n", "prix", "price", "au"},
		{"a\r\nb\nc\rd", "b\nc", "B\nC\nD", ""},
		{"ﬁle ①② Ａｂｃ\ncafe\u0301\n", "file", "FILE", "café"},
		{"x\u2019y\u00a0 \n", "xy", "XY", "y \n"},
		{"😀👍🏽\n\t\ttab  \n", "tab", "TAB", "😀"},
	} {
		f.Add([]byte(seed.content), seed.old1, seed.new1, seed.old2, "second")
	}
	f.Fuzz(func(t *testing.T, content []byte, old1, new1, old2, new2 string) {
		// Edits arrive as JSON, so their texts are valid UTF-8; the file's
		// bytes are anything.
		old1, new1 = strings.ToValidUTF8(old1, "\uFFFD"), strings.ToValidUTF8(new1, "\uFFFD")
		old2, new2 = strings.ToValidUTF8(old2, "\uFFFD"), strings.ToValidUTF8(new2, "\uFFFD")
		edits := []toolspec.Replacement{{OldText: old1, NewText: new1}}
		if old2 != "" {
			edits = append(edits, toolspec.Replacement{OldText: old2, NewText: new2})
		}
		res, err := applyEdits(context.Background(), content, edits, "/workspace/f", "")
		if err != nil {
			if res.pieces != nil {
				t.Fatalf("a failed edit returned bytes to write: %v", err)
			}
			if _, ok := err.(editError); !ok {
				t.Fatalf("failure that is not an edit error: %T %v", err, err)
			}
			return
		}
		checkApplied(t, content, edits, res)
	})
}

func TestApplyEditsKeepsBytesAndEndings(t *testing.T) {
	cases := []struct {
		name, content string
		edits         []toolspec.Replacement
		want, err     string
	}{
		{"mixed endings: untouched lines keep theirs", "a\r\nb\nc\r\nd\n", []toolspec.Replacement{{OldText: "b", NewText: "B"}}, "a\r\nB\nc\r\nd\n", ""},
		{"new breaks take the ending of their line", "a\r\nb\nc\r\nd\n", []toolspec.Replacement{{OldText: "c", NewText: "c1\nc2"}}, "a\r\nb\nc1\r\nc2\r\nd\n", ""},
		{"replaced breaks keep their endings in order", "a\r\nb\nc\r\nd\n", []toolspec.Replacement{{OldText: "a\nb\nc", NewText: "1\n2\n3\n4"}}, "1\r\n2\n3\n4\r\nd\n", ""},
		{"CR only", "one\rtwo\rthree\r", []toolspec.Replacement{{OldText: "two", NewText: "2\n22"}}, "one\r2\r22\rthree\r", ""},
		{"no final newline stays so", "a\r\nb", []toolspec.Replacement{{OldText: "b", NewText: "b\nc"}}, "a\r\nb\r\nc", ""},
		{"BOM kept", "\xef\xbb\xbfone\ntwo\n", []toolspec.Replacement{{OldText: "two", NewText: "2"}}, "\xef\xbb\xbfone\n2\n", ""},
		{"Latin-1 bytes kept", "caf\xe9\nprix: 5\xa4\nend\n", []toolspec.Replacement{{OldText: "end", NewText: "END"}}, "caf\xe9\nprix: 5\xa4\nEND\n", ""},
		{"a span over invalid bytes is refused", "caf\xe9 au lait\n", []toolspec.Replacement{{OldText: "caf\uFFFD au", NewText: "coffee"}}, "", toolspec.MsgEditNotUTF8("", "/f")},
		{"an edit beside invalid bytes is fine", "caf\xe9 au lait\n", []toolspec.Replacement{{OldText: " au", NewText: " with"}}, "caf\xe9 with lait\n", ""},
		{"$ in newText is literal", "x = 1\n", []toolspec.Replacement{{OldText: "1", NewText: "$1 $& $$"}}, "x = $1 $& $$\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := applyEdits(context.Background(), []byte(c.content), c.edits, "/f", "")
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.pieces.Join()) != c.want {
				t.Errorf("wrote %q, want %q", res.pieces.Join(), c.want)
			}
			checkApplied(t, []byte(c.content), c.edits, res)
			if strings.Contains(res.before, "\r") || strings.Contains(afterText(res), "\r") {
				t.Errorf("the diff text is not LF-normalized: %q -> %q", res.before, afterText(res))
			}
		})
	}
}

// TestApplyEditsPlainLFMatchesLines: on valid text without "\r" (a BOM
// or not), applyEdits without the lines (parsedText.plainLF) answers as
// the general path with them: the same bytes, spans, texts and errors.
func TestApplyEditsPlainLFMatchesLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 6))
	pieces := []string{"a", "b", "\n", "\n", " ", "é", "“", "”", "–", "ﬁ", "x\n", "\t", "\u00a0"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	run := func(content []byte, edits []toolspec.Replacement, plain bool) (edited, error) {
		defer func(was bool) { plainLFEdits = was }(plainLFEdits)
		plainLFEdits = plain
		return applyEdits(context.Background(), content, edits, "/workspace/f", "")
	}
	for i := range 20000 {
		content := text(rng.IntN(40))
		if i%7 == 0 {
			content = bom + content
		}
		var edits []toolspec.Replacement
		for range 1 + rng.IntN(3) {
			old := text(1 + rng.IntN(4))
			if c := []rune(content); len(c) > 0 && rng.IntN(2) == 0 {
				at := rng.IntN(len(c))
				old = string(c[at:min(len(c), at+1+rng.IntN(6))])
			}
			edits = append(edits, toolspec.Replacement{OldText: old, NewText: text(rng.IntN(5))})
		}
		got, gotErr := run([]byte(content), edits, true)
		want, wantErr := run([]byte(content), edits, false)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !bytes.Equal(got.pieces.Join(), want.pieces.Join()) || got.before != want.before || !reflect.DeepEqual(got.spans, want.spans) ||
			got.fuzzy != want.fuzzy || !reflect.DeepEqual(got.replaced, want.replaced) {
			t.Fatalf("%q %q: plain LF gives %+v %v; the lines give %+v %v", content, edits, got, gotErr, want, wantErr)
		}
	}
}

// afterText is the LF-normalized text after the edit, put together
// piece by piece.
func afterText(r edited) string {
	var pieces []string
	at := 0
	for _, s := range r.spans {
		pieces = append(pieces, r.before[at:s.index], s.newText)
		at = s.index + s.length
	}
	return strings.Join(append(pieces, r.before[at:]), "")
}

// TestEditDiffMatchesWholeTexts: the diff of an applied edit, made from
// the text before and the spans (edited.diff), is the diff of the whole
// texts before and after, on random texts and edits.
func TestEditDiffMatchesWholeTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 7))
	pieces := []string{"a", "b", "\n", "\n", "\n\n", " ", "é", "x\n", "\r\n", "\r"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	tried := 0
	for tried < 5000 {
		content := text(rng.IntN(40))
		var edits []toolspec.Replacement
		for range 1 + rng.IntN(3) {
			old := text(1 + rng.IntN(3))
			if c := []rune(content); len(c) > 0 && rng.IntN(3) > 0 {
				at := rng.IntN(len(c))
				old = string(c[at:min(len(c), at+1+rng.IntN(8))])
			}
			edits = append(edits, toolspec.Replacement{OldText: old, NewText: text(rng.IntN(4))})
		}
		res, err := applyEdits(context.Background(), []byte(content), edits, "/workspace/f", "")
		if err != nil {
			continue
		}
		tried++
		after := afterText(res)
		parts, oldBreaks, newBreaks := res.diff()
		if want := textdiff.Diff(res.before, after); !reflect.DeepEqual(parts, want) {
			t.Fatalf("%q %q: diff\n%v\nof the whole texts\n%v", content, edits, parts, want)
		}
		if oldBreaks != strings.Count(res.before, "\n") || newBreaks != strings.Count(after, "\n") {
			t.Fatalf("%q %q: breaks %d, %d; the texts have %d, %d", content, edits, oldBreaks, newBreaks, strings.Count(res.before, "\n"), strings.Count(after, "\n"))
		}
	}
}

// TestUnchangedByMatchesPuttingTogether: unchangedBy says what comparing
// the new content, put together, with the old says, on random spans
// (many of which change nothing).
func TestUnchangedByMatchesPuttingTogether(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 8))
	alphabet := "ab"
	text := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		content := text(rng.IntN(8))
		var spans []span
		for at := 0; at < len(content); {
			at += rng.IntN(3)
			if at >= len(content) {
				break
			}
			n := rng.IntN(min(3, len(content)-at) + 1)
			with := content[at : at+n]
			if rng.IntN(2) == 0 {
				with = text(rng.IntN(3))
			}
			spans = append(spans, span{index: at, length: n, newText: with})
			at += n
		}
		want := afterText(edited{before: content, spans: spans}) == content
		if got := unchangedBy(content, spans); got != want {
			t.Fatalf("unchangedBy(%q, %+v) = %v, want %v", content, spans, got, want)
		}
	}
}

// FuzzFold: fold is strings.Map(foldRune, s), for any text (invalid
// UTF-8 included).
func FuzzFold(f *testing.F) {
	for _, s := range []string{"", "abc", "“hello” – it’s\u00a0fine\u3000", "\xff\xfe", "a\u2212b\u205f", "ﬁ😀\u2015", "x\xe2\x80", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := fold(s), strings.Map(foldRune, s); got != want {
			t.Fatalf("fold(%q) = %q, want %q", s, got, want)
		}
	})
}

// referenceLines is parseLines as it was, keeping every line whole (its
// bytes, text, ending and offsets), with the breaks found byte by byte.
func referenceLines(raw []byte) (lines []textLine, normalized, firstEnding string) {
	valid := utf8.Valid(raw)
	textAt, start := 0, 0
	add := func(end int, ending string) {
		l := textLine{raw: raw[start:end], ending: ending, rawAt: start, textAt: textAt, text: string(raw[start:end])}
		if !valid {
			l.text = DecodeText(l.raw, false)
		}
		lines = append(lines, l)
		textAt += len(l.text) + len(ending[:min(len(ending), 1)])
		start = end + len(ending)
	}
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] == '\n':
			add(i, "\n")
		case raw[i] == '\r' && i+1 < len(raw) && raw[i+1] == '\n':
			add(i, "\r\n")
			i++
		case raw[i] == '\r':
			add(i, "\r")
		}
	}
	add(len(raw), "")
	firstEnding = lines[0].ending
	if firstEnding == "" {
		firstEnding = "\n"
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		if l.ending != "" {
			b.WriteByte('\n')
		}
	}
	return lines, b.String(), firstEnding
}

// checkLines: parseLines keeps where each line starts, and the lines it
// gives back from that are those the old parseLines kept whole.
func checkLines(t *testing.T, raw []byte) {
	t.Helper()
	p := parseLines(raw)
	want, normalized, firstEnding := referenceLines(raw)
	if p.normalized != normalized || p.firstEnding != firstEnding || len(p.starts) != len(want) {
		t.Fatalf("%q: parseLines gives %q, %q, %d lines; the reference %q, %q, %d", raw, p.normalized, p.firstEnding, len(p.starts), normalized, firstEnding, len(want))
	}
	for i, w := range want {
		if got := p.line(i); !bytes.Equal(got.raw, w.raw) || got.text != w.text || got.ending != w.ending || got.rawAt != w.rawAt || got.textAt != w.textAt {
			t.Fatalf("%q: line %d is %+v, the reference's %+v", raw, i, got, w)
		}
		if j := p.lineAt(w.textAt); j != i {
			t.Fatalf("%q: lineAt(%d) = %d, want %d", raw, w.textAt, j, i)
		}
	}
}

// TestParseLinesMatchesReference: on random texts of line endings of
// every kind, invalid bytes among them, the lines parseLines gives back
// are the old parseLines's.
func TestParseLinesMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 12))
	pieces := []string{"a", "é", "\n", "\r\n", "\r", "\r\r\n", "\xff", "\xe2\x80", " ", ""}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkLines(t, []byte(b.String()))
	}
}

// FuzzParseLines: parseLines's lines are the reference's for any bytes.
func FuzzParseLines(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "\r\r\n\n", "x\xffy\rz\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkLines)
}
