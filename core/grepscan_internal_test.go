package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// The reference the whole-buffer scanner is compared with: grep's
// former line by line search (eachLine decodes every line, the matcher
// runs on each), kept here unchanged but for its inputs.

// refScanFile searches the file r line by line with m and reports
// whether the search is complete (the page and the context of its last
// match are full).
func refScanFile(ctx context.Context, m *queryMatcher, r io.Reader, maxLine int64, shown string, s *scan) (bool, error) {
	var before []toolspec.GrepContextLine
	var pending []*pendingMatch
	done := false
	var matchErr error
	err := refEachLine(ctx, r, maxLine, func(n int64, text string, cut bool) bool {
		isMatch, err := m.match(ctx, text)
		if err != nil {
			matchErr = err
			return false
		}
		if cut {
			text = toolspec.MsgReadLineTruncated(text)
		}
		cl := toolspec.GrepContextLine{Line: n, Text: text, IsMatch: isMatch}
		for _, pm := range pending {
			pm.match.Context = append(pm.match.Context, cl)
			pm.remaining--
			s.bytes += int64(len(text))
		}
		for len(pending) > 0 && pending[0].remaining == 0 {
			s.out = append(s.out, pending[0].match)
			pending = pending[1:]
		}
		if s.accepted >= s.limit && len(pending) == 0 {
			done = true
			return false
		}
		if isMatch && s.accepted < s.limit && s.accepted > 0 && s.bytes >= s.budget {
			// The page holds as much text as one answer should; it ends
			// here and the next page starts at this match.
			s.full = true
			done = true
			return false
		}
		if isMatch {
			index := s.seen
			s.seen++
			if index >= s.offset && s.accepted < s.limit {
				s.bytes += int64(len(text))
				for _, b := range before {
					s.bytes += int64(len(b.Text))
				}
				m := toolspec.GrepMatch{Path: shown, Line: n, Text: text}
				if s.context > 0 {
					m.Context = append(append([]toolspec.GrepContextLine{}, before...), cl)
					pending = append(pending, &pendingMatch{m, s.context})
				} else {
					s.out = append(s.out, m)
				}
				s.accepted++
			}
		}
		before = append(before, cl)
		if int64(len(before)) > s.context {
			before = before[1:]
		}
		if s.accepted >= s.limit && len(pending) == 0 {
			done = true
			return false
		}
		return true
	})
	if err == nil {
		err = matchErr
	}
	if err != nil {
		return false, err
	}
	if !done || s.full {
		for _, pm := range pending {
			s.out = append(s.out, pm.match)
		}
	}
	if !done {
		done = s.accepted >= s.limit
	}
	return done, nil
}

// refLinesPerCheck is how often refEachLine looks at its context between
// reads: a chunk of short lines is tens of thousands of lines, each
// matched against the query.
const refLinesPerCheck = 64

// refEachLine calls fn with each line of r (numbered from 1, without its
// "\n"), decoded as the reference's streaming TextDecoder decodes it: a
// byte order mark is dropped at the start of the file only, and a last
// line without "\n" counts when it is not empty. A line longer than
// maxLine bytes is given in its first maxLine bytes (cut on a character
// boundary) with cut set, and the rest of it is read past, so memory
// stays bounded whatever the line's length. A cancelled ctx stops it
// within linesPerCheck lines, with ctx's error.
func refEachLine(ctx context.Context, r io.Reader, maxLine int64, fn func(n int64, text string, cut bool) bool) error {
	buf := make([]byte, readChunk)
	var partial []byte
	cut := false
	n := int64(1)
	keep := func(b []byte) {
		if room := maxLine - int64(len(partial)); room < int64(len(b)) {
			b = b[:max(room, 0)]
			cut = true
		}
		partial = append(partial, b...)
	}
	text := func() string {
		if cut {
			return validPrefix(partial, n == 1)
		}
		return DecodeText(partial, n == 1)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := r.Read(buf)
		chunk := buf[:k]
		for len(chunk) > 0 {
			nl := bytes.IndexByte(chunk, '\n')
			if nl < 0 {
				keep(chunk)
				break
			}
			keep(chunk[:nl])
			if n%refLinesPerCheck == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if !fn(n, text(), cut) {
				return nil
			}
			partial, cut = partial[:0], false
			n++
			chunk = chunk[nl+1:]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if t := text(); t != "" {
		fn(n, t, cut)
	}
	return nil
}

// grepPieces make up the random files: line ends of both kinds, text
// near the queries, bytes that are not UTF-8, U+FFFD itself, a byte
// order mark, characters that fold to ASCII letters, long runs.
var grepPieces = []string{
	"a", "b", "ab", "xyzzy", "XyZzY", "\r", "\n", "\n", "\n", "\r\n", "\n\n", "é", "É", "\xff", "\xe2\x82", "\xc3",
	"\ufffd", "\ufeff", "k", "K", "\u212a", "s", "ſ", "S", "2026-01-02T03:04:05Z", "T", "Z", ":", " ", "\t",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "xyzzy xyzzy xyzzy xyzzy xyzzy xyzzy",
}

// grepQueries are the queries tried: [query, regex, ignoreCase].
var grepQueries = []struct {
	query             string
	regex, ignoreCase bool
}{
	{"a", false, false}, {"ab", false, false}, {"xyzzy", false, false}, {"", false, false}, {"\r", false, false},
	{"\ufffd", false, false}, {"\ufeff", false, false}, {"a\nb", false, false}, {"zy x", false, false}, {"é", false, false},
	{"xyzzy", false, true}, {"k", false, true}, {"s", false, true}, {"é", false, true}, {"XYZ", false, true}, {"", false, true},
	{"a\nb", false, true}, {"\ufffd", false, true}, {"ab", false, true},
	{"xyzzy", true, false}, {"^a", true, false}, {"a$", true, false}, {"^$", true, false}, {"^.$", true, false},
	{`\x{fffd}`, true, false}, {"b+a", true, false}, {"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", true, false},
	{"(ab|xy)z", true, false}, {`a\nb`, true, false}, {"[^a]", true, false}, {`\bab\b`, true, false}, {"(?i)K", true, false},
	{"x.z", true, false}, {`\s$`, true, false}, {"é|b", true, false}, {"a{3}", true, false}, {`^\x{feff}`, true, false},
	{"xyzzy", true, true}, {"^É", true, true}, {"x.{0,3}y|ab?", true, false}, {"(?:é|K)z?yzz", true, false},
	{"[^a]{2}b", true, false}, {"zz(?i)Y", true, false},
}

// randomText is a file of random pieces.
func randomGrepText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(40) {
		b.WriteString(grepPieces[rng.IntN(len(grepPieces))])
	}
	return b.String()
}

// randomReader reads text in reads of random sizes, some of one byte.
func randomReader(rng *rand.Rand, text string) io.Reader {
	r := io.Reader(strings.NewReader(text))
	switch rng.IntN(3) {
	case 0:
		r = iotest.OneByteReader(r)
	case 1:
		r = iotest.HalfReader(r)
	}
	return r
}

// TestLineScannerAgreesWithLineByLine compares the whole-buffer
// scanner with the former line by line search on random files and
// queries: a search across several files with random context, offset,
// page size and byte budget must give the same page, the same counts
// and the same ending, with the chunk read at a time and the line cap
// small enough that matches straddle chunks and lines are cut, the
// buffer starting small enough to grow, and lines (cut, first, or not
// UTF-8) matched around their literals from a random length on.
func TestLineScannerAgreesWithLineByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2026))
	ctx := context.Background()
	defer func(n, w int) { scanBufferStart, windowedLine = n, w }(scanBufferStart, windowedLine)
	iterations := 20000
	if testing.Short() {
		iterations = 3000
	}
	for i := range iterations {
		q := grepQueries[rng.IntN(len(grepQueries))]
		plan, err := compileQuery(q.query, q.regex, q.ignoreCase)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		files := make([]string, 1+rng.IntN(3))
		for j := range files {
			files[j] = randomGrepText(rng)
		}
		contextLines := int64(rng.IntN(4))
		maxLine := 1 + rng.IntN(60)
		chunk := 1 + rng.IntN(80)
		newScan := func() *scan {
			return &scan{context: contextLines, budget: int64(1 + rng.IntN(200)), offset: int64(rng.IntN(4)), limit: int64(1 + rng.IntN(12)), out: []toolspec.GrepMatch{}}
		}
		want := newScan()
		got := *want
		got.out = []toolspec.GrepMatch{}
		scanBufferStart = 1 + rng.IntN(2*(maxLine+chunk)) // buffers grow as lines need
		windowedLine = rng.IntN(40)                       // lines matched around their literals
		sc := newLineScanner(plan, contextLines, maxLine, chunk)
		var wantDone, gotDone []bool
		for j, text := range files {
			shown := fmt.Sprint("/f", j)
			m := plan.m
			wd, werr := refScanFile(ctx, &m, randomReader(rng, text), int64(maxLine), shown, want)
			f := &fileScan{shown: shown}
			gerr := sc.scan(ctx, randomReader(rng, text), func(l grepLine) bool { return got.feed(f, l) })
			gd := gerr == nil && got.finish(f)
			if werr != nil || gerr != nil {
				t.Fatalf("%+v: errors %v, %v", q, werr, gerr)
			}
			wantDone, gotDone = append(wantDone, wd), append(gotDone, gd)
			if wd {
				break
			}
		}
		if !reflect.DeepEqual(want, &got) || !reflect.DeepEqual(wantDone, gotDone) {
			t.Fatalf("case %d: query %+v, context %d, maxLine %d, chunk %d, files %q:\nline by line %+v done %v\nwhole buffer %+v done %v",
				i, q, contextLines, maxLine, chunk, files, *want, wantDone, got, gotDone)
		}
	}
}

// TestLineScannerMatchesAtChunkEnds puts a match at every position
// around the ends of the chunks read, with lines before and after it
// and a last line without "\n", for each chunk size from 1 to 40 bytes
// and every query.
func TestLineScannerMatchesAtChunkEnds(t *testing.T) {
	ctx := context.Background()
	for _, q := range grepQueries {
		plan, err := compileQuery(q.query, q.regex, q.ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		for chunk := 1; chunk <= 40; chunk++ {
			for at := 0; at < 2*chunk; at++ {
				text := "line one\n" + strings.Repeat("-", at) + "xyzzy\nafter\n" + strings.Repeat("-", at) + "2026-01-02T03:04:05Z"
				want := &scan{context: 1, budget: 1 << 20, limit: 10, out: []toolspec.GrepMatch{}}
				got := *want
				got.out = []toolspec.GrepMatch{}
				m := plan.m
				if _, err := refScanFile(ctx, &m, strings.NewReader(text), 200, "/f", want); err != nil {
					t.Fatal(err)
				}
				f := &fileScan{shown: "/f"}
				if err := newLineScanner(plan, 1, 200, chunk).scan(ctx, strings.NewReader(text), func(l grepLine) bool { return got.feed(f, l) }); err != nil {
					t.Fatal(err)
				}
				got.finish(f)
				if !reflect.DeepEqual(want, &got) || q.query == "xyzzy" && len(got.out) != 1 {
					t.Fatalf("chunk %d, match at %d: line by line %+v, whole buffer %+v", chunk, at, *want, got)
				}
			}
		}
	}
}

// TestLineScannerStopsWhenCancelled: a cancelled search stops with the
// context's error, after the read that saw it.
func TestLineScannerStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	plan, err := compileQuery("x", false, false)
	if err != nil {
		t.Fatal(err)
	}
	r := cancellingReader{strings.NewReader(strings.Repeat("x\n", 20000)), cancel}
	err = newLineScanner(plan, 0, 100, grepScanChunk).scan(ctx, r, func(grepLine) bool { return true })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

type cancellingReader struct {
	r      io.Reader
	cancel func()
}

func (c cancellingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.cancel()
	return n, err
}

// TestTreeGrepAgreesWithLineByLine compares grep of a tree (files
// searched on all cores, the page filled in walk order) with the former
// search, file after file and line by line, on random trees: the same
// page, counts and ending, whatever the offset, page size, context and
// budget (small pages make files hand their lines over one by one),
// with files whose reads fail halfway: passed over when the host
// refuses (EACCES), the search failing otherwise (EIO) once it gets
// there.
func TestTreeGrepAgreesWithLineByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	for i := range shortOr(300, 60) {
		ws := vfs.New(failingReads{memfs.New()})
		for f := range 1 + rng.IntN(80) {
			text := maybeGrepText(rng)
			p := fmt.Sprintf("/workspace/d%d/f%02d", rng.IntN(4), f)
			switch rng.IntN(40) {
			case 0:
				p += "eio"
			case 1:
				p += "eacces"
			}
			writeTreeFile(t, ws, p, text)
		}
		compareTreeGrep(t, rng, i, ws)
	}
}

// compareTreeGrep checks, in case i, a tree grep of ws's /workspace
// against the former search, file after file and line by line, with a
// random query, page and scanner (see TestTreeGrepAgreesWithLineByLine).
func compareTreeGrep(t *testing.T, rng *rand.Rand, i int, ws *vfs.Workspace) {
	t.Helper()
	ctx := t.Context()
	e, err := New(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := ws.Resolve(ctx, "/workspace")
	if err != nil {
		t.Fatal(err)
	}
	q := grepQueries[rng.IntN(len(grepQueries))]
	plan, err := compileQuery(q.query, q.regex, q.ignoreCase)
	if err != nil {
		t.Fatal(err)
	}
	maxLine, chunk := 1+rng.IntN(60), 1+rng.IntN(80)
	want := &scan{context: int64(rng.IntN(3)), budget: int64(1 + rng.IntN(400)), offset: int64(rng.IntN(6)), limit: int64(1 + rng.IntN(30)), out: []toolspec.GrepMatch{}}
	got := *want
	got.out = []toolspec.GrepMatch{}
	var scanErr error
	err = e.walk(ctx, loc, "", nil, func(en walkEntry) bool {
		if en.typ != vfs.TypeFile {
			return true
		}
		r, err := en.dir.Open(ctx, en.name, 0)
		if err != nil {
			scanErr = err
			return false
		}
		defer r.Close()
		m := plan.m
		var done bool
		done, scanErr = refScanFile(ctx, &m, r, int64(maxLine), en.path(), want)
		if unreadable(scanErr) {
			scanErr = nil
		}
		return !done && scanErr == nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gotErr := e.grepTree(ctx, loc, "", nil, plan, maxLine, chunk, &got)
	if errno.CodeOf(scanErr) != errno.CodeOf(gotErr) || (scanErr == nil) != (gotErr == nil) {
		t.Fatalf("case %d: line by line %v, tree %v", i, scanErr, gotErr)
	}
	if scanErr != nil {
		return // the page of a failed search is not shown
	}
	if !reflect.DeepEqual(want, &got) {
		t.Fatalf("case %d: query %+v, maxLine %d, chunk %d:\nline by line %+v\ntree        %+v", i, q, maxLine, chunk, *want, got)
	}
}

// TestTreeGrepOverHostAgreesWithLineByLine is
// TestTreeGrepAgreesWithLineByLine over host trees, whose files the
// workers open themselves (vfs.Dir.OpenLater), some of them refused
// (mode 0, EACCES, when the tests do not run as root): the same page,
// in walk order.
func TestTreeGrepOverHostAgreesWithLineByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 15))
	for i := range shortOr(40, 10) {
		dir := t.TempDir()
		h, err := hostfs.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		ws := vfs.New(h)
		for f := range 1 + rng.IntN(120) {
			text := maybeGrepText(rng)
			rel := fmt.Sprintf("d%d/f%03d", rng.IntN(4), f)
			writeTreeFile(t, ws, "/workspace/"+rel, text)
			if rng.IntN(20) == 0 && os.Geteuid() != 0 {
				if err := os.Chmod(filepath.Join(dir, rel), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		compareTreeGrep(t, rng, i, ws)
		h.Close()
	}
}

// shortOr is full, or short with -short.
func shortOr(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// maybeGrepText is a random text for grep (randomGrepText), or, one
// time in three, an empty file's.
func maybeGrepText(rng *rand.Rand) string {
	if rng.IntN(3) > 0 {
		return randomGrepText(rng)
	}
	return ""
}

// writeTreeFile writes text to the file at p in ws, making its parents.
func writeTreeFile(t *testing.T, ws *vfs.Workspace, p, text string) {
	t.Helper()
	if err := ws.WriteFile(t.Context(), p, []byte(text), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
}

// failingReads is a store whose files named ...eio or ...eacces fail
// with that code once half their bytes are read.
type failingReads struct{ vfs.Store }

func (f failingReads) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	r, err := f.Store.Open(ctx, name, offset)
	if err != nil {
		return nil, err
	}
	var code errno.Code
	switch {
	case strings.HasSuffix(name, "eio"):
		code = errno.EIO
	case strings.HasSuffix(name, "eacces"):
		code = errno.EACCES
	default:
		return r, nil
	}
	b, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	return io.NopCloser(io.MultiReader(bytes.NewReader(b[:len(b)/2]), errReader{errno.New(code, "failing", name)})), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
