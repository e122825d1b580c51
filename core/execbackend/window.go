package execbackend

import (
	"bytes"
	"unicode/utf8"
)

// Limits say how much of the end of a stream is kept: at most MaxLines
// lines and MaxBytes bytes, whichever is hit first.
type Limits struct {
	MaxLines int64
	MaxBytes int64
}

// Tail is the end of an output that fits the limits, and where it sits.
type Tail struct {
	// Bytes are the kept bytes; they start on a character boundary.
	Bytes []byte
	// FirstLine and LastLine number the kept lines, from 1.
	FirstLine, LastLine int64
	// PartialLine says the kept bytes start inside their first line,
	// which happens only when the last line alone is too long.
	PartialLine bool
}

// takeTail keeps the end of window (the end of an output of totalLines
// lines) that fits the limits, as the reference does: whole lines where
// it can, cutting into the last line only when that line alone is too
// long.
func takeTail(window []byte, totalLines int64, l Limits) Tail {
	end := len(window)
	if end > 0 && window[end-1] == '\n' {
		end-- // a trailing newline ends the last line
	}
	start := max(0, len(window)-int(l.MaxBytes))
	for start < len(window) && !utf8.RuneStart(window[start]) {
		start++
	}
	lines := int64(1)
	cut := start
	for i := end - 1; i >= start; i-- {
		if window[i] != '\n' {
			continue
		}
		if lines == l.MaxLines {
			cut = i + 1
			break
		}
		lines++
	}
	if cut > 0 && window[cut-1] != '\n' {
		// Drop the partial first line unless it is the only line kept.
		if next := bytes.IndexByte(window[cut:], '\n'); next >= 0 && cut+next < end {
			cut += next + 1
			lines--
		}
	}
	return Tail{
		Bytes:       window[cut:],
		FirstLine:   totalLines - lines + 1,
		LastLine:    totalLines,
		PartialLine: cut > 0 && window[cut-1] != '\n',
	}
}

// Window holds the end of a stream in bounded memory: everything until
// the stream passes the limits, then a rolling end of 2 to 4 times
// MaxBytes, which always covers what takeTail keeps.
type Window struct {
	limits     Limits
	chunks     [][]byte
	chunkBytes int64
	totalBytes int64
	newlines   int64
	endsInNL   bool
}

// mergeBytes is the largest chunk small pushes are joined into.
const mergeBytes = 32 << 10

// NewWindow returns an empty window for the limits.
func NewWindow(l Limits) *Window {
	return &Window{limits: l, endsInNL: true}
}

// TotalBytes is how many bytes were pushed.
func (w *Window) TotalBytes() int64 { return w.totalBytes }

// TotalLines counts lines as an editor shows them: each newline ends a
// line, and text after the last newline is one more.
func (w *Window) TotalLines() int64 {
	if w.endsInNL {
		return w.newlines
	}
	return w.newlines + 1
}

// OverLimits says the stream is longer than the limits allow.
func (w *Window) OverLimits() bool {
	return w.totalBytes > w.limits.MaxBytes || w.TotalLines() > w.limits.MaxLines
}

// Push adds a chunk. The window keeps its own copy.
func (w *Window) Push(chunk []byte) {
	if len(chunk) == 0 {
		return
	}
	w.totalBytes += int64(len(chunk))
	w.newlines += int64(bytes.Count(chunk, []byte{'\n'}))
	w.endsInNL = chunk[len(chunk)-1] == '\n'
	// Small chunks join the last one, so a trickle of tiny writes is
	// held in few allocations.
	if n := len(w.chunks); n > 0 && int64(len(w.chunks[n-1])+len(chunk)) <= min(w.limits.MaxBytes, mergeBytes) {
		w.chunks[n-1] = append(w.chunks[n-1], chunk...)
	} else {
		w.chunks = append(w.chunks, bytes.Clone(chunk))
	}
	w.chunkBytes += int64(len(chunk))
	if w.OverLimits() {
		w.trim()
	}
}

// trim drops whole chunks from the front while at least 2 x MaxBytes
// stay, and cuts a chunk too big to drop to the part still needed.
func (w *Window) trim() {
	keep := w.limits.MaxBytes * 2
	if w.chunkBytes <= keep*2 {
		return
	}
	for len(w.chunks) > 1 && w.chunkBytes-int64(len(w.chunks[0])) >= keep {
		w.chunkBytes -= int64(len(w.chunks[0]))
		w.chunks = w.chunks[1:]
	}
	if w.chunkBytes > keep*2 {
		w.chunks[0] = bytes.Clone(w.chunks[0][w.chunkBytes-keep:])
		w.chunkBytes = keep
	}
}

// Read returns everything while the stream fits the limits (whole is
// true), else the tail that fits.
func (w *Window) Read() (tail Tail, whole bool) {
	window := bytes.Join(w.chunks, nil)
	if !w.OverLimits() {
		return Tail{Bytes: window}, true
	}
	return takeTail(window, w.TotalLines(), w.limits), false
}
