package core

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agenttools/agenttools/core/textdiff"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// diffContext is how many unchanged lines the diff and the patch show
// around a change, as in the reference.
const diffContext = 4

// Edit runs the edit tool, as the reference 0.8.0 does: every oldText is
// matched against the original file (exactly, or normalized: see
// matchEdits), all edits apply together or none does, and the result
// carries a numbered display diff and a unified patch (4 lines of
// context). The file keeps its mode, its byte order mark and its line
// endings. It is read, matched and written under the path's lock, and
// never overwrites a change another writer (another process too) made
// after the read: the edits are then matched again on the new content
// (vfs.Workspace.Update), and the call fails with updateConflict when the
// file keeps changing.
//
// Where ours is better than the reference (declared deviations): bytes
// that are not UTF-8 are never rewritten (an edit whose span covers them
// is refused), each untouched line keeps its own line ending, and the
// result says fuzzyMatch when a normalized match was used. A refused edit
// leaves the file byte for byte as it was. Failures are {"error": ...}.
func (e *Executor) Edit(ctx context.Context, a toolspec.EditArgs) (toolspec.Output, error) {
	// One call scope: a store may answer this call's repeated lookups of
	// a path from what it read first (vfs.WithCallScope).
	ctx = vfs.WithCallScope(ctx)
	if len(a.Edits) == 0 {
		return errorJSON(toolspec.MsgEditNoEdits), nil
	}
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return failure(err)
	}
	unlock, err := e.ws.Lock(ctx, e.ws.LockKey(ctx, p, true), false)
	if err != nil {
		return toolspec.Output{}, err
	}
	defer unlock()
	info, err := e.ws.Stat(ctx, p)
	if isMissing(err) || err == nil && info.Type != vfs.TypeFile {
		return errorJSON(toolspec.MsgEditFileNotFound(a.Path)), nil
	}
	if err != nil {
		return failure(err)
	}
	// A path spelled as a directory ("f.txt/") reads the file, but its
	// write fails as the reference's does, once the edits matched.
	var writeErr error
	if vfs.NamesDirectory(p) {
		writeErr = e.ws.CheckWrite(ctx, p, vfs.WriteOptions{CreateParents: true})
	}
	// Read, match and write without losing a change another writer (a
	// process too) makes meanwhile: when the file changed after it was
	// read, the edits are matched again on the new content.
	// The result is made inside fn: applyEdits reads raw in place (see
	// parseText), so nothing of it may be used once fn returned; the
	// pieces fn returns are parts of raw too, which the store writes
	// before it lets go of raw (vfs.PieceUpdater).
	var result toolspec.EditResult
	err = e.ws.UpdatePieces(ctx, p, e.s.editMaxBytes, func(raw []byte, _ vfs.Info) (vfs.Pieces, error) {
		r, err := applyEdits(ctx, raw, a.Edits, a.Path, e.s.prefix)
		if err != nil {
			return nil, err
		}
		if writeErr != nil {
			return nil, writeErr
		}
		result = e.editResult(a, r)
		return r.pieces, nil
	})
	var tooLarge *vfs.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return errorJSON(toolspec.MsgEditFileTooLarge(e.s.prefix, tooLarge.Size, e.s.editMaxBytes)), nil
	case isMissing(err):
		return errorJSON(toolspec.MsgEditFileNotFound(a.Path)), nil
	case err != nil:
		return failure(err)
	}
	return jsonOutput(result), nil
}

// editResult builds the reference's result: the diff and the patch of
// the LF-normalized text, unless the edits replace more lines than
// maxDiffLines (then empty, with diffTruncated), each cut to maxDiffBytes.
func (e *Executor) editResult(a toolspec.EditArgs, res edited) toolspec.EditResult {
	out := toolspec.EditResult{Path: a.Path, EditsApplied: int64(len(a.Edits)), FuzzyMatch: res.fuzzy}
	replaced := int64(0)
	for _, ed := range a.Edits {
		replaced += int64(max(strings.Count(ed.OldText, "\n"), strings.Count(ed.NewText, "\n")) + 1)
	}
	if replaced > e.s.editMaxDiffLines {
		out.DiffTruncated = true
		return out
	}
	parts, oldBreaks, newBreaks := res.diff()
	diff, first := numberedDiff(parts, oldBreaks, newBreaks, diffContext)
	patch := textdiff.PatchOf(a.Path, parts, diffContext)
	var cutDiff, cutPatch bool
	out.Diff, cutDiff = cutUTF8(diff, e.s.editMaxDiffBytes)
	out.Patch, cutPatch = cutUTF8(patch, e.s.editMaxDiffBytes)
	out.DiffTruncated = cutDiff || cutPatch
	if first > 0 {
		out.FirstChangedLine = new(int64(first))
	}
	return out
}

// cutUTF8 shortens s to at most max bytes, ending on a whole character.
func cutUTF8(s string, max int64) (string, bool) {
	if int64(len(s)) <= max {
		return s, false
	}
	end := int(max)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end], true
}

// edited is an applied edit: the bytes to write, and the LF-normalized
// text before with the spans that change it, which the diff and the patch
// show. before may be the file's bytes themselves (see parseText).
type edited struct {
	// pieces are the bytes to write, one after another: the original
	// bytes around the replaced spans (parts of the file's bytes, not
	// copies) and each replacement, so that the new content is never
	// held whole beside the old.
	pieces vfs.Pieces
	before string
	spans  []span
	fuzzy  bool
	// replaced are the spans of the original bytes that changed, in
	// order, with their replacement bytes.
	replaced []replacement
}

type replacement struct {
	start, end int
	with       []byte
}

// diff is the line diff of the LF-normalized text before and after the
// edit (textdiff.Diff of the two), with the number of line breaks of
// each. The text after is never put together: it is given to the diff
// as the pieces of the text before around the spans' new texts, and
// those pieces are the text before's own memory, which the diff does not
// compare again.
func (r edited) diff() (runs []textdiff.Run, oldBreaks, newBreaks int) {
	after := make([]string, 0, 2*len(r.spans)+1)
	at := 0
	for _, s := range r.spans {
		after = append(after, r.before[at:s.index], s.newText)
		at = s.index + s.length
	}
	after = append(after, r.before[at:])
	runs = textdiff.DiffPieces(r.before, after)
	for _, run := range runs {
		if !run.Added {
			oldBreaks += run.Lines
		}
		if !run.Removed {
			newBreaks += run.Lines
		}
	}
	// Every line ends in a break but a last one without.
	if r.before != "" && r.before[len(r.before)-1] != '\n' {
		oldBreaks--
	}
	for i := len(after) - 1; i >= 0; i-- {
		if after[i] != "" {
			if after[i][len(after[i])-1] != '\n' {
				newBreaks--
			}
			break
		}
	}
	return runs, oldBreaks, newBreaks
}

// textLine is one line of the file: its bytes, its decoded text, its
// ending ("\n", "\r\n", "\r", or "" for a last line without one), and
// where it starts in the bytes and in the LF-normalized text.
type textLine struct {
	raw    []byte
	text   string
	ending string
	rawAt  int
	textAt int
}

// parsedText is a file's text cut into lines at "\n", "\r\n" and a lone
// "\r" (as the reference's normalization reads them), with the text
// every line break made "\n" and the file's first line ending. Of each
// line it keeps only where it starts (line gives the rest, from the
// bytes and the text), so that the lines of a large file cost two words
// each, not a copy of the file.
type parsedText struct {
	raw         []byte
	starts      []lineStart
	normalized  string
	firstEnding string
	plainLF     bool
}

// lineStart is where a line starts in the bytes and in the LF text.
type lineStart struct{ rawAt, textAt int }

// line is the i-th line. Every line but the last ends in a break; the
// last has none (it is empty when the text ends in one).
func (p *parsedText) line(i int) textLine {
	st := p.starts[i]
	rawEnd, textEnd, ending := len(p.raw), len(p.normalized), ""
	if i+1 < len(p.starts) {
		rawEnd, textEnd, ending = p.starts[i+1].rawAt, p.starts[i+1].textAt-1, "\n"
		// A line holds no "\r" or "\n" of its own: those before the next
		// line are its ending.
		switch {
		case p.raw[rawEnd-1] == '\r':
			ending = "\r"
		case rawEnd-2 >= st.rawAt && p.raw[rawEnd-2] == '\r':
			ending = "\r\n"
		}
	}
	return textLine{raw: p.raw[st.rawAt : rawEnd-len(ending)], text: p.normalized[st.textAt:textEnd], ending: ending, rawAt: st.rawAt, textAt: st.textAt}
}

// lineAt is the index of the line that holds offset of the LF text.
func (p *parsedText) lineAt(offset int) int {
	i, found := slices.BinarySearchFunc(p.starts, offset, func(l lineStart, off int) int { return l.textAt - off })
	if !found {
		i--
	}
	return i
}

// parsedText of a valid text with no "\r" holds no lines (plainLF): each
// line is then where it is in the text, and ends in "\n". Its texts are
// raw itself, not a copy (see viewString): raw must stay unchanged while
// they are used.
func parseText(raw []byte) parsedText {
	if plainLFEdits && utf8.Valid(raw) && bytes.IndexByte(raw, '\r') < 0 {
		return parsedText{raw: raw, normalized: viewString(raw), firstEnding: "\n", plainLF: true}
	}
	return parseLines(raw)
}

// viewString is b as a string, without copying it: an edit reads a file
// of up to edit.maxBytes (64 MiB and more) and a copy would double what
// it holds. The caller keeps b unchanged while the string or a part of it
// is in use; edit's texts are used only inside vfs.Workspace.Update's fn,
// where the store does not touch the bytes it handed over, and what the
// tool returns is built anew from them.
func viewString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// plainLFEdits turns on parsedText.plainLF; tests turn it off to compare
// with the general path.
var plainLFEdits = true

// parseLines cuts text into its lines.
func parseLines(raw []byte) parsedText {
	p := parsedText{raw: raw, starts: make([]lineStart, 0, bytes.Count(raw, []byte("\n"))+1)}
	// Valid text is its own LF text where it has no "\r"; otherwise the
	// LF text is written line by line.
	valid := utf8.Valid(raw)
	plain := valid && bytes.IndexByte(raw, '\r') < 0
	var b strings.Builder
	if !plain {
		b.Grow(len(raw))
	}
	textAt := 0
	for at := 0; ; {
		i := bytes.IndexAny(raw[at:], "\r\n")
		end, ending := len(raw), ""
		if i >= 0 {
			end, ending = at+i, "\n"
			if raw[end] == '\r' {
				ending = "\r"
				if end+1 < len(raw) && raw[end+1] == '\n' {
					ending = "\r\n"
				}
			}
		}
		p.starts = append(p.starts, lineStart{rawAt: at, textAt: textAt})
		if p.firstEnding == "" {
			p.firstEnding = ending
		}
		n := end - at
		if !plain {
			if valid {
				b.Write(raw[at:end])
			} else {
				text := DecodeText(raw[at:end], false)
				b.WriteString(text)
				n = len(text)
			}
			if ending != "" {
				b.WriteByte('\n')
			}
		}
		textAt += n + min(len(ending), 1)
		if i < 0 {
			break
		}
		at = end + len(ending)
	}
	if p.firstEnding == "" {
		p.firstEnding = "\n"
	}
	p.normalized = b.String()
	if plain {
		p.normalized = viewString(raw) // already LF-only text
	}
	return p
}

// applyEdits applies the edits to a file's bytes, or returns the
// reference's error and changes nothing. It is pure, but gives up with
// the context's error when ctx ends. The result's pieces and texts are
// parts of raw: raw must stay unchanged while they are used (written).
// prefix is the tool set's, with which its errors name other tools.
func applyEdits(ctx context.Context, raw []byte, edits []toolspec.Replacement, path string, prefix toolspec.ToolPrefix) (edited, error) {
	body, _ := bytes.CutPrefix(raw, []byte(bom))
	parsed := parseText(body)
	before := parsed.normalized
	spans, err := matchEdits(ctx, before, edits, path)
	if err != nil {
		return edited{}, err
	}
	res := edited{before: before, spans: spans}
	toRaw := func(offset int) int {
		if parsed.plainLF {
			return offset
		}
		l := parsed.line(parsed.lineAt(offset))
		return l.rawAt + rawOffset(l.raw, offset-l.textAt)
	}
	// The BOM, when there is one, stays in the first piece: offsets in
	// body are shifted by it.
	shift := len(raw) - len(body)
	res.pieces = make(vfs.Pieces, 0, 2*len(spans)+1)
	at := 0
	for _, s := range spans {
		start, end := toRaw(s.index), toRaw(s.index+s.length)
		if !utf8.Valid(body[start:end]) {
			if len(edits) == 1 {
				return edited{}, editError(toolspec.MsgEditNotUTF8(prefix, path))
			}
			return edited{}, editError(toolspec.MsgEditNotUTF8At(prefix, int64(s.edit), path))
		}
		with := []byte(s.newText) // every line of plain LF text ends in "\n"
		if !parsed.plainLF {
			with = []byte(withEndings(s, &parsed))
		}
		res.pieces = append(res.pieces, raw[at:start+shift], with)
		res.replaced = append(res.replaced, replacement{start: start + shift, end: end + shift, with: with})
		at = end + shift
		res.fuzzy = res.fuzzy || s.fuzzy
	}
	res.pieces = append(res.pieces, raw[at:])
	return res, nil
}

// withEndings writes a span's new text with real line endings: its n-th
// line break takes the ending of the n-th line break it replaces; breaks
// beyond those take the last ending replaced, or, when the span replaced
// none, the ending of the line it sits in (the file's first ending when
// that line has none).
func withEndings(s span, p *parsedText) string {
	if !strings.Contains(s.newText, "\n") {
		return s.newText
	}
	var replaced []string
	base := ""
	// Lines before the one s starts in end before it.
	for i := p.lineAt(s.index); i < len(p.starts); i++ {
		l := p.line(i)
		nl := l.textAt + len(l.text) // where the line's "\n" sits in the text
		if l.textAt <= s.index && s.index <= nl {
			base = l.ending
		}
		if l.ending != "" && nl >= s.index && nl < s.index+s.length {
			replaced = append(replaced, l.ending)
		}
		if l.textAt > s.index+s.length {
			break
		}
	}
	if len(replaced) > 0 {
		base = replaced[len(replaced)-1]
	}
	if base == "" {
		base = p.firstEnding
	}
	var b strings.Builder
	parts := strings.Split(s.newText, "\n")
	for i, part := range parts {
		if i > 0 {
			if i-1 < len(replaced) {
				b.WriteString(replaced[i-1])
			} else {
				b.WriteString(base)
			}
		}
		b.WriteString(part)
	}
	return b.String()
}

// numberedDiff is the reference's display diff: changed lines marked "-"
// and "+" with their line numbers, up to context unchanged lines around
// them, and "..." where unchanged lines are left out. It also returns the
// first changed line of the new text (0 when nothing changed).
// oldBreaks and newBreaks are the numbers of "\n" in the two texts.
func numberedDiff(runs []textdiff.Run, oldBreaks, newBreaks int, context int) (string, int) {
	width := len(strconv.Itoa(max(oldBreaks, newBreaks) + 1))
	num := func(n int) string {
		s := strconv.Itoa(n)
		return strings.Repeat(" ", max(0, width-len(s))) + s
	}
	gap := " " + strings.Repeat(" ", width) + " ..."
	var out []string
	oldLine, newLine, first := 1, 1, 0
	lastWasChange := false
	for i, run := range runs {
		if run.Added || run.Removed {
			if first == 0 {
				first = newLine
			}
			for _, l := range textdiff.SplitLines(run.Text) {
				l = strings.TrimSuffix(l, "\n")
				if run.Added {
					out = append(out, "+"+num(newLine)+" "+l)
					newLine++
				} else {
					out = append(out, "-"+num(oldLine)+" "+l)
					oldLine++
				}
			}
			lastWasChange = true
			continue
		}
		// Of a shared run only up to context lines at each end are shown:
		// those alone are cut out of it.
		n := run.Lines
		head, tail := run.Head(context), run.Tail(context)
		line := func(j int) string {
			if j < len(head) {
				return strings.TrimSuffix(head[j], "\n")
			}
			return strings.TrimSuffix(tail[j-(n-len(tail))], "\n")
		}
		emit := func(from, to int) {
			for j := from; j < to; j++ {
				out = append(out, " "+num(oldLine)+" "+line(j))
				oldLine++
				newLine++
			}
		}
		skip := func(k int) {
			out = append(out, gap)
			oldLine += k
			newLine += k
		}
		leading := lastWasChange
		trailing := i < len(runs)-1 && (runs[i+1].Added || runs[i+1].Removed)
		switch {
		case leading && trailing:
			if n <= context*2 {
				emit(0, n)
			} else {
				emit(0, context)
				skip(n - context*2)
				emit(n-context, n)
			}
		case leading:
			emit(0, min(context, n))
			if k := n - context; k > 0 {
				skip(k)
			}
		case trailing:
			k := max(0, n-context)
			if k > 0 {
				skip(k)
			}
			emit(k, n)
		default:
			oldLine += n
			newLine += n
		}
		lastWasChange = false
	}
	return strings.Join(out, "\n"), first
}
