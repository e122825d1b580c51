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
	count      Count
	chunks     [][]byte
	chunkBytes int64
}

// Count measures a stream against the limits without keeping any of it:
// the bytes and lines pushed so far. The zero Count is not ready for
// use; NewCount makes one.
type Count struct {
	limits     Limits
	totalBytes int64
	newlines   int64
	endsInNL   bool
}

// NewCount returns an empty count for the limits.
func NewCount(l Limits) Count {
	return Count{limits: l, endsInNL: true}
}

// Add counts a chunk.
func (c *Count) Add(chunk []byte) {
	c.AddCounted(chunk, int64(bytes.Count(chunk, []byte{'\n'})))
}

// AddCounted counts a chunk whose newlines the caller has counted
// already: Add without a second pass over the chunk.
func (c *Count) AddCounted(chunk []byte, newlines int64) {
	if len(chunk) == 0 {
		return
	}
	c.totalBytes += int64(len(chunk))
	c.newlines += newlines
	c.endsInNL = chunk[len(chunk)-1] == '\n'
}

// mergeBytes is the largest chunk small pushes are joined into.
const mergeBytes = 32 << 10

// NewWindow returns an empty window for the limits.
func NewWindow(l Limits) *Window {
	return &Window{count: NewCount(l)}
}

// TotalBytes is how many bytes were pushed.
func (w *Window) TotalBytes() int64 { return w.count.TotalBytes() }

// TotalLines counts lines as an editor shows them (see Count.TotalLines).
func (w *Window) TotalLines() int64 { return w.count.TotalLines() }

// OverLimits says the stream is longer than the limits allow.
func (w *Window) OverLimits() bool { return w.count.OverLimits() }

// TotalBytes is how many bytes were pushed.
func (c *Count) TotalBytes() int64 { return c.totalBytes }

// TotalLines counts lines as an editor shows them: each newline ends a
// line, and text after the last newline is one more.
func (c *Count) TotalLines() int64 {
	if c.endsInNL {
		return c.newlines
	}
	return c.newlines + 1
}

// OverLimits says the stream is longer than the limits allow.
func (c *Count) OverLimits() bool {
	return c.totalBytes > c.limits.MaxBytes || c.TotalLines() > c.limits.MaxLines
}

// Push adds a chunk. The window keeps its own copy.
func (w *Window) Push(chunk []byte) {
	w.push(chunk, false)
}

// PushOwned adds a chunk the caller hands over: it never changes the
// chunk's bytes again, so the window keeps them as they are rather than
// copy them (a small chunk may still be copied onto the one before it).
// It returns how many newlines the chunk holds.
func (w *Window) PushOwned(chunk []byte) (newlines int64) {
	return w.push(chunk, true)
}

func (w *Window) push(chunk []byte, owned bool) (newlines int64) {
	if len(chunk) == 0 {
		return 0
	}
	newlines = int64(bytes.Count(chunk, []byte{'\n'}))
	w.count.AddCounted(chunk, newlines)
	// Small chunks join the last one, so a trickle of tiny writes is
	// held in few allocations. A kept chunk's capacity ends at its
	// length: joining onto it copies it, never writes past its end.
	switch n := len(w.chunks); {
	case n > 0 && int64(len(w.chunks[n-1])+len(chunk)) <= min(w.count.limits.MaxBytes, mergeBytes):
		w.chunks[n-1] = append(w.chunks[n-1], chunk...)
	case owned:
		w.chunks = append(w.chunks, chunk[:len(chunk):len(chunk)])
	default:
		w.chunks = append(w.chunks, bytes.Clone(chunk))
	}
	w.chunkBytes += int64(len(chunk))
	if w.OverLimits() {
		w.trim()
	}
	return newlines
}

// trim drops whole chunks from the front while at least 2 x MaxBytes
// stay, and cuts a chunk too big to drop to the part still needed.
func (w *Window) trim() {
	keep := w.count.limits.MaxBytes * 2
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
	return takeTail(window, w.TotalLines(), w.count.limits), false
}
