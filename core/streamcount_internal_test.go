package core

import (
	"math/rand/v2"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// checkStreamCounts pushes chunks through a stream, which counts each
// chunk's newlines once (in its decoded text), and checks after every
// chunk that its raw count and its window's count are what counting
// each on its own gives: the raw bytes as they came (the former way),
// the decoded text as it went to the window.
func checkStreamCounts(t *testing.T, chunks [][]byte, l execbackend.Limits) {
	t.Helper()
	e := &Executor{ws: vfs.New(memfs.New()), exec: &execTool{}}
	s := newStream(e, l, &spillNames{backend: "b", id: "exec-1"}, toolspec.MsgExecStreamStdout)
	raw, text := execbackend.NewCount(l), execbackend.NewCount(l)
	var d streamDecoder
	for i, c := range chunks {
		raw.Add(c)
		text.Add(d.decode(c))
		s.push(c)
		if s.raw != raw || s.text.w.TotalLines() != text.TotalLines() || s.text.w.TotalBytes() != text.TotalBytes() {
			t.Fatalf("after chunk %d of %q: raw %+v, want %+v; window %d lines %d bytes, want %d, %d",
				i, chunks, s.raw, raw, s.text.w.TotalLines(), s.text.w.TotalBytes(), text.TotalLines(), text.TotalBytes())
		}
	}
	s.discard()
}

// streamAlphabet is what random output is made of: newlines, ASCII, the
// pieces of valid and broken UTF-8, a BOM.
var streamAlphabet = [][]byte{
	[]byte("\n"), []byte("a"), []byte("line\n"), []byte("\r\n"), []byte("\xEF\xBB\xBF"),
	[]byte("€"), []byte("\xE2"), []byte("\x82"), []byte("\xAC"), []byte("\xF0\x9F"), []byte("\x98\x80"),
	[]byte("\xFF"), []byte("\xC0\x80"), []byte("\xED\xA0\x80"), []byte("\n\xE2\x82"),
}

// TestStreamCountsNewlinesOnce: on random output cut into random
// chunks, counting each chunk's newlines once gives the counts that
// counting the raw bytes and the decoded text apart gave.
func TestStreamCountsNewlinesOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 5))
	for range 2000 {
		var out []byte
		for range rng.IntN(40) {
			out = append(out, streamAlphabet[rng.IntN(len(streamAlphabet))]...)
		}
		var chunks [][]byte
		for len(out) > 0 {
			n := min(len(out), 1+rng.IntN(8))
			chunks = append(chunks, out[:n])
			out = out[n:]
		}
		l := execbackend.Limits{MaxBytes: 1 + int64(rng.IntN(30)), MaxLines: 1 + int64(rng.IntN(6))}
		checkStreamCounts(t, chunks, l)
	}
}

// FuzzStreamCounts is TestStreamCountsNewlinesOnce on any output, cut
// where the fuzzer says.
func FuzzStreamCounts(f *testing.F) {
	f.Add([]byte("\xEF\xBB\xBFa\nb\xE2\x82\n\xFF\n"), []byte{3, 1, 4})
	f.Add([]byte("line\nline\n"), []byte{5})
	f.Fuzz(func(t *testing.T, out, cuts []byte) {
		var chunks [][]byte
		for _, c := range cuts {
			n := min(len(out), int(c%16))
			chunks = append(chunks, out[:n])
			out = out[n:]
		}
		chunks = append(chunks, out)
		checkStreamCounts(t, chunks, execbackend.Limits{MaxBytes: 8, MaxLines: 2})
	})
}
