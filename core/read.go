package core

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// readChunk is how many bytes read takes from the store at a time.
const readChunk = 64 << 10

// Read runs the read tool, as the reference 0.8.0 does. A text file is
// read line by line from the start, or from a byte continuation, and
// stops at the line cap (limit, or the maxLines option) or the byte cap
// (maxBytes), whichever comes first, so memory stays bounded whatever the
// file's size. Work is bounded too: a line that is not shown (too long
// for the cap, or past the page) is read only as far as decides that, at
// most the byte cap (or the lineTruncation length) and one byte more,
// however long the line is. What cannot be bounded is what the answer
// depends on: the lines before offset when no byteOffset is given, and
// the rest of a line the lineTruncation option shows cut, looked through
// for its newline so the lines after it are numbered and continued
// right. Line numbers are the reference's JavaScript numbers (see jsAdd).
// The model gets the content alone when the read is complete, not empty
// and not positioned (no offset or byteOffset), and the toolspec.ReadResult
// object otherwise, with nextOffset and nextByteOffset when truncated.
// An image or PDF is a content output (a text part and the bytes); a
// binary file is described, not read: classifying it reads at most the
// mediaSniffBytes option's bytes. Failures are error text.
func (e *Executor) Read(ctx context.Context, a toolspec.ReadArgs) (toolspec.Output, error) {
	// One call scope: a store may answer this call's repeated lookups of
	// a path from what it read first (vfs.WithCallScope).
	ctx = vfs.WithCallScope(ctx)
	res, err := e.read(ctx, a)
	if err != nil {
		if cancelled(err) {
			return toolspec.Output{}, err
		}
		// A failure the reference throws rather than returns: the path
		// could not be looked up or read at all.
		recordThrown(ctx, err)
		return errorText(err.Error()), nil
	}
	record(ctx, res.object())
	return res.modelOutput(a, e.s.maxModelBytes), nil
}

// readResult is what read returns before it is rendered for the model:
// a text read, a media read (with its bytes), or an {"error"} the
// reference returns rather than throws.
type readResult struct {
	text  *toolspec.ReadResult
	media *toolspec.ReadMediaResult
	data  []byte
	fail  string
}

// object is the result as the reference's read returns it.
func (r readResult) object() any {
	switch {
	case r.text != nil:
		return r.text
	case r.media != nil:
		m := *r.media
		if m.Kind != string(kindBinary) && r.data != nil {
			m.Data = new(base64.StdEncoding.EncodeToString(r.data))
		}
		return m
	}
	return toolspec.ErrorResult{Error: r.fail}
}

// modelOutput renders the result as the reference's read does: bare text
// for a complete, unpositioned, non-empty read; the object otherwise; an
// image or PDF as a text part and a file part.
func (r readResult) modelOutput(a toolspec.ReadArgs, maxModelBytes int64) toolspec.Output {
	switch {
	case r.text != nil:
		positioned := a.Offset != nil || a.ByteOffset != nil
		if r.text.Truncated || r.text.Content == "" || positioned {
			return jsonOutput(r.text)
		}
		return textOutput(r.text.Content)
	case r.media == nil:
		return errorText(r.fail)
	case r.media.Kind == string(kindBinary):
		return jsonOutput(r.media)
	case r.media.SizeBytes > maxModelBytes:
		return errorText(toolspec.MsgReadMediaTooLarge(r.media.Path, r.media.MediaType, r.media.SizeBytes, maxModelBytes))
	case r.data == nil:
		return errorText(toolspec.MsgReadCouldNotReadBytes(r.media.Path))
	}
	return toolspec.Output{
		Kind:  toolspec.OutputContent,
		Text:  toolspec.MsgReadMediaRead(r.media.Path, r.media.MediaType, r.media.SizeBytes),
		Media: &toolspec.Media{MediaType: r.media.MediaType, Filename: r.media.Name, Path: r.media.Path, Data: r.data},
	}
}

func failed(msg string) (readResult, error) { return readResult{fail: msg}, nil }

func (e *Executor) read(ctx context.Context, a toolspec.ReadArgs) (readResult, error) {
	present := func(name string) (int64, bool) {
		switch {
		case name == "offset" && a.Offset != nil:
			return *a.Offset, true
		case name == "byteOffset" && a.ByteOffset != nil:
			return *a.ByteOffset, true
		case name == "limit" && a.Limit != nil:
			return *a.Limit, true
		}
		return 0, false
	}
	if msg := checkRules(toolspec.ReadRules, present); msg != "" {
		return failed(msg)
	}
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return readResult{}, err
	}
	info, err := e.ws.Stat(ctx, p)
	if isMissing(err) || err == nil && info.Type != vfs.TypeFile {
		return failed(toolspec.MsgReadFileNotFound(a.Path))
	}
	if err != nil {
		return readResult{}, err
	}
	startByte := int64(0)
	if a.ByteOffset != nil {
		startByte = *a.ByteOffset
	}
	kind := plainText
	if startByte == 0 {
		if kind, err = e.detectMedia(ctx, a.Path, p); err != nil {
			return readResult{}, err
		}
	}
	if kind.kind != kindText {
		return e.readMedia(ctx, a.Path, p, info.Size, kind)
	}
	return e.readText(ctx, a, p, info.Size, startByte)
}

func (e *Executor) readMedia(ctx context.Context, given, p string, size int64, kind media) (readResult, error) {
	res := &toolspec.ReadMediaResult{
		Kind:      string(kind.kind),
		Path:      given,
		Name:      baseName(given),
		MediaType: kind.mediaType,
		SizeBytes: size,
	}
	if kind.kind == kindBinary {
		res.Unsupported = true
		return readResult{media: res}, nil
	}
	if size > e.s.maxModelBytes {
		return readResult{media: res}, nil
	}
	r, _, err := e.ws.Open(ctx, p, 0)
	if isMissing(err) {
		return failed(toolspec.MsgReadCouldNotReadBytes(given))
	}
	if err != nil {
		return readResult{}, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, e.s.maxModelBytes+1))
	if err != nil {
		return readResult{}, err
	}
	if len(data) == 0 {
		return failed(toolspec.MsgReadEmptyAttachment(given))
	}
	res.SizeBytes = int64(len(data))
	if res.SizeBytes > e.s.maxModelBytes {
		return readResult{media: res}, nil
	}
	return readResult{media: res, data: data}, nil
}

// lineReader collects the lines of one text read.
//
// Line numbers are counted as the reference counts them, in float64
// (see jsAdd). A line is decided before its end once it is known to
// reach past settleBytes: no more of it can change how it renders, so
// when it is not shown (the page is full, or it does not fit) the read
// stops there instead of scanning the rest of it; when it is shown (cut
// by the lineTruncation option), the rest of it is only looked through
// for its newline.
type lineReader struct {
	e         *Executor
	startLine int64
	lineCap   int64
	current   int64
	// content is the page so far: the lines shown, rendered and joined
	// by "\n", written in place (no string per line, no join at the
	// end), made with room for contentCap bytes at the first; lines
	// counts them.
	content     []byte
	contentCap  int64
	lines       int64
	outBytes    int64
	first       int64 // first line emitted, 0 before any
	truncated   bool
	overflow    bool
	nextByte    int64
	keepBytes   int64
	settleBytes int64
	kept        []byte
	actual      int64
	lineStart   int64
	settled     bool // the current line was processed before its end
}

// jsAdd is a + b as the reference computes line numbers: on float64
// numbers, so that past 2^53 a sum rounds to an even number as in
// JavaScript (2^53 - 1 + 2 is 2^53) and no answer holds a number a JSON
// client cannot represent exactly. a and b are numbers float64 holds.
func jsAdd(a, b int64) int64 { return int64(float64(a) + float64(b)) }

func (e *Executor) readText(ctx context.Context, a toolspec.ReadArgs, p string, size, startByte int64) (readResult, error) {
	lr := &lineReader{e: e, startLine: 1, current: 1, lineStart: startByte}
	if a.Offset != nil {
		lr.startLine = *a.Offset
	}
	if startByte != 0 {
		lr.current = lr.startLine
	}
	lr.lineCap = e.s.maxLines
	if a.Limit != nil && *a.Limit < lr.lineCap {
		lr.lineCap = *a.Limit
	}
	lr.keepBytes = e.s.maxBytes + 1
	switch {
	case e.s.truncBytes > 0:
		lr.keepBytes = min(e.s.truncBytes, lr.keepBytes)
	case e.s.truncChars > 0:
		lr.keepBytes = min(e.s.truncChars*4, lr.keepBytes)
	}
	// Past both, a line renders the same however long it is: what is
	// kept stops growing, and the option's comparison with the line's
	// length has its final answer.
	lr.settleBytes = max(lr.keepBytes, e.s.truncBytes)
	r, _, err := e.ws.Open(ctx, p, startByte)
	if err != nil {
		return readResult{}, err
	}
	defer r.Close()
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	buf := *bp
	// Room for a page of the default byte limit, or the whole file when
	// it is smaller, made at the first line shown: such a page is never
	// copied as it grows (a larger limit grows the buffer as lines
	// come), and a read that shows no line makes none.
	lr.contentCap = max(0, min(e.s.maxBytes, size-startByte, toolspec.ReadMaxBytesDefault))
	abs := startByte
	done := false
	// A plain page (no truncation option, no numbers) takes runs of
	// whole lines at once (see run).
	plain := e.s.truncBytes <= 0 && e.s.truncChars <= 0 && !e.s.includeLineNumbers
	for !done {
		if err := ctx.Err(); err != nil {
			return readResult{}, err
		}
		n, err := r.Read(buf)
		chunk := buf[:n]
		runs := plain
		for cursor := 0; cursor < len(chunk); {
			if runs && lr.actual == 0 && !lr.settled && abs+int64(cursor) != 0 && lr.current >= lr.startLine && lr.current < 1<<52 {
				k := lr.run(chunk[cursor:])
				if k == 0 {
					// Line by line for the rest of the chunk: a run
					// that fails is not tried again at each line.
					runs = false
					continue
				}
				cursor += k
				after := abs + int64(cursor)
				lr.lineStart = after
				if lr.lines >= lr.lineCap && after < size {
					lr.truncated, lr.nextByte, done = true, after, true
					break
				}
				continue
			}
			nl := bytes.IndexByte(chunk[cursor:], '\n')
			if nl < 0 {
				lr.append(chunk[cursor:])
				done = lr.settle()
				break
			}
			after := abs + int64(cursor+nl+1)
			if !lr.whole(chunk[cursor : cursor+nl]) {
				done = true
				break
			}
			lr.lineStart = after
			cursor += nl + 1
			if lr.lines >= lr.lineCap && after < size {
				lr.truncated, lr.nextByte, done = true, after, true
				break
			}
		}
		abs += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return readResult{}, err
		}
	}
	if !done && lr.actual > 0 {
		lr.finish()
	}
	if lr.overflow {
		return failed(toolspec.MsgReadLineTooLong(lr.current, e.s.maxBytes))
	}
	if lr.first == 0 {
		seen := jsAdd(lr.current, -1)
		switch {
		case size == 0:
			return readResult{text: &toolspec.ReadResult{Path: a.Path, Content: "", StartLine: 1, EndLine: 0, TotalLines: new(int64(0))}}, nil
		case startByte > 0:
			return failed(toolspec.MsgReadByteOffsetBeyondEnd(startByte))
		case a.Offset != nil && lr.startLine > max(1, seen):
			return failed(toolspec.MsgReadOffsetBeyondEnd(*a.Offset, seen))
		}
	}
	start := lr.first
	if start == 0 {
		start = lr.startLine
	}
	end := jsAdd(jsAdd(start, lr.lines), -1)
	res := &toolspec.ReadResult{
		Path: a.Path,
		// The page's buffer is not written again: the string can be it.
		Content:   viewString(lr.content),
		StartLine: start,
		EndLine:   end,
		Truncated: lr.truncated,
	}
	if lr.truncated {
		res.NextOffset, res.NextByteOffset = new(jsAdd(end, 1)), new(lr.nextByte)
	} else {
		res.TotalLines = new(jsAdd(lr.current, -1))
	}
	return readResult{text: res}, nil
}

// readBuffers holds the buffers (*[]byte of readChunk bytes) read takes
// a file's bytes into, so that a read makes none.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// run puts on a plain page (see readText) the whole lines at the start
// of b that it takes as they are, at once, and returns the bytes they
// span with their newlines (0 for none): as many as the page's line and
// byte caps take, when together they are valid UTF-8 (so each is, and
// decodes to itself). A line that does not fit, and the rest when the
// run is not valid, are left to be processed one by one, as is the
// first line of the file (a byte order mark is dropped from it) and a
// line before the page or numbered past 2^52 (the caller sees to
// those). The answer is what processing each line would make.
func (lr *lineReader) run(b []byte) int {
	lines, out, end := lr.lines, lr.outBytes, 0
	for lines < lr.lineCap {
		nl := bytes.IndexByte(b[end:], '\n')
		if nl < 0 {
			break
		}
		size := int64(nl)
		if lines > 0 {
			size++
		}
		if out+size > lr.e.s.maxBytes {
			break
		}
		lines, out, end = lines+1, out+size, end+nl+1
	}
	if end == 0 || !utf8.Valid(b[:end-1]) {
		return 0
	}
	if lr.content == nil {
		lr.content = make([]byte, 0, lr.contentCap)
	}
	if lr.lines > 0 {
		lr.content = append(lr.content, '\n')
	}
	lr.content = append(lr.content, b[:end-1]...)
	if lr.first == 0 {
		lr.first = lr.current
	}
	lr.current += lines - lr.lines // below 2^53: as jsAdd one line at a time
	lr.lines, lr.outBytes = lines, out
	return end
}

// whole ends the current line with its last bytes b, as append and
// finish would. A line that lies whole in one chunk is processed from
// the chunk, not copied into kept first; false stops the read.
func (lr *lineReader) whole(b []byte) bool {
	if lr.actual > 0 || lr.settled {
		lr.append(b)
		return lr.finish()
	}
	return lr.process(b[:min(int64(len(b)), lr.keepBytes)], int64(len(b)))
}

// append adds bytes of the current line, keeping at most keepBytes of it.
func (lr *lineReader) append(b []byte) {
	lr.actual += int64(len(b))
	if room := lr.keepBytes - int64(len(lr.kept)); room > 0 {
		b = b[:min(int64(len(b)), room)]
		if need := len(lr.kept) + len(b); need > cap(lr.kept) && need > 64<<10 {
			// A long line: grow four times over, up to all that is kept
			// of a line (one step for the default limit), rather than
			// doubling and copying each time.
			lr.kept = append(make([]byte, 0, min(lr.keepBytes, int64(need)*4)), lr.kept...)
		}
		lr.kept = append(lr.kept, b...)
	}
}

// finish ends the current line; false stops the read.
func (lr *lineReader) finish() bool {
	ok := lr.settled || lr.process(lr.kept, lr.actual)
	lr.kept, lr.actual, lr.settled = lr.kept[:0], 0, false
	return ok
}

// settle processes the current line before its end when the rest of it
// cannot change the answer: the page already holds its lines, or the
// line reaches past settleBytes. It reports whether the read stops
// there (the line is not shown); otherwise the line is taken as it
// renders now and the rest of it is passed over up to its newline.
func (lr *lineReader) settle() bool {
	if lr.settled || lr.current < lr.startLine ||
		lr.actual <= lr.settleBytes && lr.lines < lr.lineCap {
		return false
	}
	lr.settled = true
	return !lr.process(lr.kept, lr.actual)
}

func (lr *lineReader) process(kept []byte, actual int64) bool {
	if lr.current < lr.startLine {
		lr.current = jsAdd(lr.current, 1)
		return true
	}
	if lr.lines >= lr.lineCap {
		lr.truncated, lr.nextByte = true, lr.lineStart
		return false
	}
	line := lr.renderBytes(kept, actual)
	size := int64(len(line))
	if lr.lines > 0 {
		size++
	}
	if lr.lines == 0 && size > lr.e.s.maxBytes {
		lr.overflow = true
		return false
	}
	if lr.outBytes+size > lr.e.s.maxBytes {
		lr.truncated, lr.nextByte = true, lr.lineStart
		return false
	}
	if lr.first == 0 {
		lr.first = lr.current
	}
	if lr.content == nil {
		lr.content = make([]byte, 0, lr.contentCap)
	}
	if lr.lines > 0 {
		lr.content = append(lr.content, '\n')
	}
	lr.content = append(lr.content, line...)
	lr.lines++
	lr.outBytes += size
	lr.current = jsAdd(lr.current, 1)
	return true
}

// renderBytes is the line as render renders it, as bytes valid until the
// next line is kept. A plain line (no truncation option, no numbers) is
// its decoded bytes: kept itself when it is valid UTF-8, no copy made.
func (lr *lineReader) renderBytes(kept []byte, actual int64) []byte {
	if s := lr.e.s; s.truncBytes <= 0 && s.truncChars <= 0 && !s.includeLineNumbers {
		return decodeBytes(kept, lr.lineStart == 0)
	}
	return []byte(lr.render(kept, actual))
}

// render decodes a line, shortens it as the lineTruncation option says,
// and numbers it when includeLineNumbers is set.
func (lr *lineReader) render(kept []byte, actual int64) string {
	s := lr.e.s
	atFileStart := lr.lineStart == 0
	var line string
	switch {
	case s.truncBytes > 0 && actual > s.truncBytes:
		line = toolspec.MsgReadLineTruncated(validPrefix(kept[:min(int64(len(kept)), s.truncBytes)], atFileStart))
	case s.truncChars > 0:
		line = DecodeText(kept, atFileStart)
		if chars := []rune(line); int64(len(chars)) > s.truncChars || actual != int64(len(kept)) {
			line = toolspec.MsgReadLineTruncated(string(chars[:min(int64(len(chars)), s.truncChars)]))
		}
	default:
		line = DecodeText(kept, atFileStart)
	}
	if s.includeLineNumbers {
		line = toolspec.MsgReadLineNumbered(lr.current, line)
	}
	return line
}

// validPrefix drops up to three trailing bytes to end on a whole
// character, as the reference does when a byte limit splits one; bytes
// that are invalid anyway are decoded with replacement characters.
func validPrefix(b []byte, stripBOM bool) string {
	for end := len(b); end >= max(0, len(b)-3); end-- {
		if utf8.Valid(b[:end]) {
			return DecodeText(b[:end], stripBOM)
		}
	}
	return DecodeText(b, stripBOM)
}
