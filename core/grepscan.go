package core

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	xunicode "golang.org/x/text/encoding/unicode"
)

// The grep scanner searches a file's bytes a buffer at a time, as
// ripgrep does, rather than line by line: a finder (a literal, the
// rarest literal a pattern requires, or a case-folded literal) skips to
// the next place a match may be, and only the line around it is decoded
// and matched as eachLine's line by line search would (its text, cut
// and byte order mark); line numbers are counted with bytes.Count
// between candidates. Lines are never allocated unless they are shown.

// grepLine is a line of a file a grep shows: a match, or a line of
// context around one. text is the line's decoded text (cut to the line
// cap when cut is set; the cut mark is not added).
type grepLine struct {
	n       int64
	text    string
	cut     bool
	isMatch bool
}

// grepScanChunk is how many bytes the scanner reads at a time.
const grepScanChunk = 256 << 10

// finder finds where in a buffer a match may be: next returns an index
// at or after from of b of a byte that belongs to a line that may
// match, or -1 when no line from from on can. It must never pass over a
// line whose text (decoded as eachLine decodes it, cut or not) matches.
// reset is called before each new buffer.
type finder interface {
	next(b []byte, from int) int
	reset()
	// clone returns a finder for another goroutine.
	clone() finder
}

// grepPlan is how one query is searched: the exact line matcher and the
// finder in front of it.
type grepPlan struct {
	m    queryMatcher // the exact line matcher (copied by each scanner)
	find finder       // nil: every line is a candidate
	// exact: a line the finder points into matches, when the line is
	// searched as its raw bytes (fastLine).
	exact bool
	// never: no line can match (a literal holding "\n").
	never bool
	// required holds literals every matching line's raw bytes contain
	// (cut or not, decoded or not: text holds no character its raw
	// bytes do not, but U+FFFD, which no literal here holds), looked for
	// in a candidate line before it is decoded or matched.
	required [][]byte
	// literal is the query's bytes for a case-sensitive literal.
	literal []byte
	// window is the most bytes a match of the pattern spans, when it is
	// bounded and the pattern asserts nothing about what is around a
	// match (no ^, $, \b): then every match lies within window bytes
	// of an occurrence of windowLit, and a long line is matched in
	// those stretches only. 0 when not.
	window    int
	windowLit []byte
	// rawNeedsValid: matching a line's raw bytes agrees with matching its
	// decoded text only when the bytes are valid UTF-8 (patterns, and a
	// literal that holds U+FFFD).
	rawNeedsValid bool
}

// newGrepPlan builds the plan for a compiled query.
func newGrepPlan(m *queryMatcher, query string, isRegex, ignoreCase bool, source string) *grepPlan {
	p := &grepPlan{m: *m}
	switch {
	case !isRegex && !ignoreCase:
		p.literal = []byte(query)
		switch {
		case query == "":
			// every line matches; no finder
		case bytes.IndexByte(p.literal, '\n') >= 0:
			p.never = true
		case bytes.Contains(p.literal, []byte("\uFFFD")):
			// U+FFFD also stands for bytes that are not UTF-8: match
			// each line, decoded when it is not valid.
			p.rawNeedsValid = true
		default:
			p.find = newLiteralFinder(p.literal)
			p.exact = true
			p.required = [][]byte{p.literal}
		}
	case !isRegex && ignoreCase:
		if f, exact := newFoldFinder(query); f != nil {
			p.find, p.exact = f, exact
		}
		if bytes.IndexByte([]byte(query), '\n') >= 0 {
			p.never = true
		}
		p.rawNeedsValid = true
	default:
		p.rawNeedsValid = true
		re, err := syntax.Parse(source, syntax.Perl)
		if err != nil {
			break
		}
		lits := requiredLiterals(re.Simplify())
		lits = slices.DeleteFunc(lits, func(l []byte) bool {
			return len(l) == 0 || bytes.Contains(l, []byte("\uFFFD")) || !utf8.Valid(l)
		})
		if len(lits) == 0 {
			break
		}
		best := 0
		for i, l := range lits {
			if literalScore(l) < literalScore(lits[best]) {
				best = i
			}
		}
		p.find = newLiteralFinder(lits[best])
		if w, ok := maxMatchBytes(re.Simplify()); ok && w <= windowMax {
			p.windowLit, p.window = lits[best], w
		}
		p.required = append(slices.Delete(slices.Clone(lits), best, best+1), lits[best])
	}
	return p
}

// windowMax is the widest match worth matching around a literal.
const windowMax = 1 << 10

// windowedLine is the length from which a line is matched around its
// literal's occurrences rather than whole, in bytes (a variable for
// tests).
var windowedLine = 4 << 10

// maxMatchBytes is the most bytes of UTF-8 a match of re spans, and
// whether that is bounded and re asserts nothing about the text around
// a match (no empty-width assertion).
func maxMatchBytes(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return 0, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return utf8.UTFMax * len(re.Rune), true
		}
		return len(string(re.Rune)), true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return utf8.RuneLen(min(re.Rune[len(re.Rune)-1], unicode.MaxRune)), true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxMatchBytes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		w, ok := maxMatchBytes(re.Sub[0])
		return w * re.Max, ok && w*re.Max <= windowMax
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			w, ok := maxMatchBytes(sub)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				total += w
			} else {
				total = max(total, w)
			}
			if total > windowMax {
				return 0, false
			}
		}
		return total, true
	}
	return 0, false // star, plus, and the empty-width assertions
}

// literalScore ranks a literal for a finder: lower is better (rarer).
// A longer literal is rarer; among equals, the one whose rarest byte is
// rarest.
func literalScore(l []byte) int {
	r := 255
	for _, c := range l {
		r = min(r, int(byteRank[c]))
	}
	return r - 32*min(len(l), 8)
}

// requiredLiterals returns literals every match of re contains (each of
// them; any may serve as a prefilter). Case-folded literals are left
// out.
func requiredLiterals(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return [][]byte{[]byte(string(re.Rune))}
	case syntax.OpCharClass:
		if len(re.Rune) == 2 && re.Rune[0] == re.Rune[1] {
			return [][]byte{[]byte(string(re.Rune[:1]))}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out [][]byte
		var run []byte
		flush := func() {
			if len(run) > 0 {
				out = append(out, run)
				run = nil
			}
		}
		for _, sub := range re.Sub {
			if lit := exactLiteral(sub); lit != nil {
				run = append(run, lit...)
				continue
			}
			flush()
			if sub.Op == syntax.OpBeginLine || sub.Op == syntax.OpEndLine || sub.Op == syntax.OpBeginText ||
				sub.Op == syntax.OpEndText || sub.Op == syntax.OpWordBoundary || sub.Op == syntax.OpNoWordBoundary || sub.Op == syntax.OpEmptyMatch {
				// zero-width: the literals on either side are adjacent,
				// but keeping them apart is still right.
				continue
			}
			out = append(out, requiredLiterals(sub)...)
		}
		flush()
		return out
	}
	return nil
}

// exactLiteral is the UTF-8 of a case-sensitive literal or one-rune
// class, or nil.
func exactLiteral(re *syntax.Regexp) []byte {
	switch {
	case re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0:
		return []byte(string(re.Rune))
	case re.Op == syntax.OpCharClass && len(re.Rune) == 2 && re.Rune[0] == re.Rune[1]:
		return []byte(string(re.Rune[:1]))
	}
	return nil
}

// literalFinder finds a literal by its rarest byte (memchr), then
// compares the whole literal around it.
type literalFinder struct {
	lit  []byte
	rare int // index in lit of its rarest byte
}

func newLiteralFinder(lit []byte) *literalFinder {
	f := &literalFinder{lit: lit}
	for i, c := range lit {
		if byteRank[c] < byteRank[lit[f.rare]] {
			f.rare = i
		}
	}
	return f
}

func (f *literalFinder) reset() {}

func (f *literalFinder) clone() finder { return f }

func (f *literalFinder) next(b []byte, from int) int {
	n, c := len(f.lit), f.lit[f.rare]
	for start := from; len(b)-start >= n; {
		i := bytes.IndexByte(b[start+f.rare:len(b)-n+f.rare+1], c)
		if i < 0 {
			return -1
		}
		at := start + i
		if bytes.Equal(b[at:at+n], f.lit) {
			return at
		}
		start = at + 1
	}
	return -1
}

// foldFinder finds the places a case-blind literal may match: the bytes
// that begin the case variants of one of its characters (the rarest),
// each looked for with memchr and remembered until passed. When every
// character of the query is ASCII and folds only to ASCII (not k or s,
// which fold to the Kelvin sign and the long s), the finder compares
// the whole query around the byte and is exact.
type foldFinder struct {
	query  []byte // lower-cased, when exact
	at     int    // index in the query of the character looked for
	set    []byte // bytes that begin its variants
	nextAt []int  // per byte of set: its next index in the buffer, -2 unknown, -1 none
	exact  bool
}

// newFoldFinder builds the finder for a case-blind literal query, or
// nil when the query is empty.
func newFoldFinder(query string) (*foldFinder, bool) {
	if query == "" {
		return nil, false
	}
	exact := true
	for i := 0; i < len(query); i++ {
		c := rune(query[i])
		if c >= utf8.RuneSelf {
			exact = false
			break
		}
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				exact = false
			}
		}
	}
	f := &foldFinder{exact: exact}
	bestScore := -1
	for i, c := range query {
		if c == utf8.RuneError {
			// U+FFFD also stands for bytes that are not UTF-8.
			continue
		}
		var set []byte
		add := func(r rune) {
			var enc [utf8.UTFMax]byte
			utf8.EncodeRune(enc[:], r)
			if bytes.IndexByte(set, enc[0]) < 0 {
				set = append(set, enc[0])
			}
		}
		add(c)
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			add(r)
		}
		score := 0
		for _, b := range set {
			score += 256 - int(byteRank[b])
		}
		score = 256*len(set) - score
		if bestScore < 0 || score < bestScore {
			bestScore, f.at, f.set = score, i, set
		}
	}
	if bestScore < 0 {
		return nil, false
	}
	if exact {
		f.query = bytes.ToLower([]byte(query))
	}
	f.nextAt = make([]int, len(f.set))
	f.reset()
	return f, exact
}

func (f *foldFinder) clone() finder {
	c := *f
	c.nextAt = make([]int, len(f.set))
	c.reset()
	return &c
}

func (f *foldFinder) reset() {
	for i := range f.nextAt {
		f.nextAt[i] = -2
	}
}

func (f *foldFinder) next(b []byte, from int) int {
	for {
		best := -1
		for i, c := range f.set {
			if f.nextAt[i] == -1 {
				continue
			}
			if f.nextAt[i] < from {
				f.nextAt[i] = bytes.IndexByte(b[from:], c)
				if f.nextAt[i] < 0 {
					continue
				}
				f.nextAt[i] += from
			}
			if best < 0 || f.nextAt[i] < best {
				best = f.nextAt[i]
			}
		}
		if best < 0 || !f.exact {
			return best
		}
		start := best - f.at
		if start >= from && start+len(f.query) <= len(b) && asciiFoldEqual(b[start:start+len(f.query)], f.query) {
			return start
		}
		from = best + 1
	}
}

// asciiFoldEqual reports whether b equals lower (ASCII, lower case)
// ignoring ASCII case.
func asciiFoldEqual(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// lineScanner searches files for one grep plan, a buffer at a time. It
// is used by one goroutine at a time and reused across files.
type lineScanner struct {
	plan    *grepPlan
	m       queryMatcher // this scanner's own matcher (its work counter)
	find    finder       // this scanner's own finder, or nil
	context int64        // lines of context around a match
	maxLine int          // bytes of a line searched and shown
	chunk   int          // bytes read at a time
	buf     []byte
	long    []byte // the kept start of a line longer than maxLine
	decoder *encoding.Decoder
	decoded []byte // a decoded line

	// per file
	ctx         context.Context
	yield       func(grepLine) bool
	n           int64 // the number of the next line to look at
	after       int64 // lines of context still to show after a match
	lastEmitted int64 // the number of the last line shown
	tail        []tailLine
	err         error
}

// tailLine is one of the last lines before the buffer being searched,
// kept for the context before a match.
type tailLine struct {
	n   int64
	raw []byte // at most maxLine bytes
	cut bool
}

func newLineScanner(plan *grepPlan, contextLines int64, maxLine, chunk int) *lineScanner {
	s := &lineScanner{plan: plan, m: plan.m, context: contextLines, maxLine: maxLine, chunk: chunk}
	if plan.find != nil {
		s.find = plan.find.clone()
	}
	return s
}

// scan reads r to its end and calls yield with each line of it that
// matches and each line of context around those, in order, stopping
// when yield returns false. Lines are numbered and decoded as eachLine
// numbers and decodes them. A cancelled ctx stops it with ctx's error
// (looked at between reads, and by the matcher while matching).
func (s *lineScanner) scan(ctx context.Context, r io.Reader, yield func(grepLine) bool) error {
	s.ctx, s.yield = ctx, yield
	s.n, s.after, s.lastEmitted, s.tail, s.err = 1, 0, 0, s.tail[:0], nil
	defer func() { s.ctx, s.yield = nil, nil }()
	if s.plan.never {
		// Still read the file, as a search would, so a failing read or a
		// cancelled call is reported alike.
		_, err := io.Copy(io.Discard, ctxReader{ctx, r})
		return err
	}
	// The buffer holds a line's start (up to maxLine bytes) and a chunk
	// read after it; it starts small and grows to that as lines need.
	need := s.chunk + s.maxLine + 1
	if s.buf == nil {
		s.buf = getScanBuffer(min(need, scanBufferStart))
	}
	buf := s.buf
	filled, scanned := 0, 0 // buf[:scanned] holds no "\n"
	eof := false
	for !eof {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(buf)-filled < s.chunk && len(buf) < need {
			grown := make([]byte, min(max(2*len(buf), filled+s.chunk), need))
			copy(grown, buf[:filled])
			buf, s.buf = grown, grown
		}
		k, err := r.Read(buf[filled:min(filled+s.chunk, len(buf))])
		filled += k
		if errors.Is(err, io.EOF) {
			eof = true
		} else if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for {
			if last := bytes.LastIndexByte(buf[scanned:filled], '\n'); last >= 0 {
				end := scanned + last + 1
				if !s.region(buf[:end]) {
					return s.err
				}
				filled = copy(buf, buf[end:filled])
			}
			scanned = filled
			if filled <= s.maxLine {
				break
			}
			// A line longer than the cap: keep its start, read past the
			// rest.
			s.long = append(s.long[:0], buf[:s.maxLine]...)
			filled, scanned = 0, 0
			found := false
			for !found && !eof {
				if err := ctx.Err(); err != nil {
					return err
				}
				k, err := r.Read(buf[:min(s.chunk, len(buf))])
				if errors.Is(err, io.EOF) {
					eof = true
				} else if err != nil {
					return err
				}
				if nl := bytes.IndexByte(buf[:k], '\n'); nl >= 0 {
					filled = copy(buf, buf[nl+1:k])
					found = true
				}
			}
			if (found || s.lineText(s.long, s.n, true) != "") && !s.line(s.long, true) {
				return s.err
			}
			s.keepTail(nil, s.long, true)
		}
	}
	if filled > 0 {
		raw := buf[:filled]
		if s.lineText(raw, s.n, false) != "" {
			s.line(raw, false)
		}
	}
	return s.err
}

// scanBuffers keeps the buffers of finished scanners for the next
// grep, which would otherwise spend much of its time clearing new ones.
var scanBuffers sync.Pool

// scanBufferStart is the size a scanner's buffer starts at, in bytes
// (a variable for tests).
var scanBufferStart = 64 << 10

// getScanBuffer returns a buffer of n bytes, a kept one when it fits.
func getScanBuffer(n int) []byte {
	if b, ok := scanBuffers.Get().(*[]byte); ok {
		if len(*b) >= n {
			return *b
		}
	}
	return make([]byte, n)
}

// release gives the scanner's buffer back for another scanner; the
// scanner may not be used after.
func (s *lineScanner) release() {
	if s.buf != nil {
		b := s.buf
		s.buf = nil
		scanBuffers.Put(&b)
	}
}

// region searches b, whole lines ending in "\n", and reports whether to
// go on.
func (s *lineScanner) region(b []byte) bool {
	f := s.find
	if f != nil {
		f.reset()
	}
	pos := 0
	for pos < len(b) {
		found := s.after == 0 && f != nil
		if found {
			at := f.next(b, pos)
			if at < 0 {
				s.n += int64(bytes.Count(b[pos:], newline))
				break
			}
			ls := pos
			if at > pos {
				ls += bytes.LastIndexByte(b[pos:at], '\n') + 1
			}
			s.n += int64(bytes.Count(b[pos:ls], newline))
			pos = ls
		}
		le := pos + bytes.IndexByte(b[pos:], '\n')
		raw := b[pos:le]
		cut := len(raw) > s.maxLine
		if cut {
			raw = raw[:s.maxLine]
		}
		if !s.lineIn(b, pos, raw, cut, found) {
			return false
		}
		pos = le + 1
	}
	s.keepTail(b, nil, false)
	return true
}

var newline = []byte{'\n'}

// line looks at a line that is not in a buffer of whole lines (a cut
// one, or the last one), and reports whether to go on.
func (s *lineScanner) line(raw []byte, cut bool) bool {
	return s.lineIn(nil, 0, raw, cut, false)
}

// lineIn looks at line s.n, raw (cut to maxLine when cut), which starts
// at ls in b when b is not nil (found: the finder pointed into it): it
// shows the line if it matches (with the context before it), or if it
// is context after a match. It reports whether to go on.
func (s *lineScanner) lineIn(b []byte, ls int, raw []byte, cut, found bool) bool {
	n := s.n
	s.n++
	isMatch, err := s.matches(raw, n, cut, found)
	if err != nil {
		s.err = err
		return false
	}
	switch {
	case isMatch:
		if s.context > 0 && !s.before(b, ls, n) {
			return false
		}
		s.after = s.context
		return s.show(raw, n, cut, true)
	case s.after > 0:
		s.after--
		return s.show(raw, n, cut, false)
	}
	return true
}

// before shows the lines of context before line n (which starts at ls
// in b, or follows the tail when b is nil) that were not shown yet.
func (s *lineScanner) before(b []byte, ls int, n int64) bool {
	first := max(s.lastEmitted+1, n-s.context, 1)
	if first >= n {
		return true
	}
	type span struct {
		raw []byte
		cut bool
	}
	lines := make([]span, n-first)
	k := n - 1
	for e := ls - 1; k >= first && b != nil && e >= 0; k-- {
		st := bytes.LastIndexByte(b[:e], '\n') + 1
		raw := b[st:e]
		cut := len(raw) > s.maxLine
		if cut {
			raw = raw[:s.maxLine]
		}
		lines[k-first] = span{raw, cut}
		e = st - 1
	}
	for ; k >= first; k-- {
		for _, t := range s.tail {
			if t.n == k {
				lines[k-first] = span{t.raw, t.cut}
			}
		}
	}
	for k := first; k < n; k++ {
		l := lines[k-first]
		if !s.show(l.raw, k, l.cut, false) {
			return false
		}
	}
	return true
}

// keepTail keeps the last context lines before the next buffer: those
// of b (whole lines), or the cut line long.
func (s *lineScanner) keepTail(b, long []byte, cut bool) {
	if s.context == 0 {
		return
	}
	add := func(n int64, raw []byte, cut bool) {
		if int64(len(s.tail)) == s.context {
			old := s.tail[0]
			copy(s.tail, s.tail[1:])
			s.tail[len(s.tail)-1] = tailLine{n, append(old.raw[:0], raw...), cut}
			return
		}
		s.tail = append(s.tail, tailLine{n, append([]byte(nil), raw...), cut})
	}
	if b == nil {
		add(s.n-1, long, cut)
		return
	}
	// The last lines of b, oldest first.
	e := len(b) - 1
	var starts []int
	for int64(len(starts)) < s.context && e >= 0 {
		st := bytes.LastIndexByte(b[:e], '\n') + 1
		starts = append(starts, st)
		e = st - 1
	}
	for i := len(starts) - 1; i >= 0; i-- {
		st := starts[i]
		le := st + bytes.IndexByte(b[st:], '\n')
		raw, cut := b[st:le], le-st > s.maxLine
		if cut {
			raw = raw[:s.maxLine]
		}
		add(s.n-1-int64(i), raw, cut)
	}
}

// show passes a line on, decoded, and reports whether to go on.
func (s *lineScanner) show(raw []byte, n int64, cut, isMatch bool) bool {
	s.lastEmitted = n
	return s.yield(grepLine{n: n, text: s.lineText(raw, n, cut), cut: cut, isMatch: isMatch})
}

// matchAround matches a long line's text in the stretches around the
// occurrences of the plan's window literal that a match may span
// (stretches that overlap are matched as one), which finds a match
// exactly when matching the whole line would (see grepPlan.window).
func (s *lineScanner) matchAround(text []byte) (bool, error) {
	lit, w := s.plan.windowLit, s.plan.window
	for from := 0; from < len(text); {
		i := bytes.Index(text[from:], lit)
		if i < 0 {
			return false, nil
		}
		occ := from + i
		lo, hi := max(0, occ-w), min(len(text), occ+len(lit)+w)
		for {
			j := bytes.Index(text[occ+1:], lit)
			if j < 0 || occ+1+j-w > hi {
				break
			}
			occ += 1 + j
			hi = min(len(text), occ+len(lit)+w)
		}
		if ok, err := s.m.matchBytes(s.ctx, text[lo:hi]); ok || err != nil {
			return ok, err
		}
		from = occ + 1
	}
	return false, nil
}

// decode is lineText's bytes: raw itself (without a leading byte order
// mark on line 1) when it is valid UTF-8, else the decoded text in a
// buffer the scanner reuses.
func (s *lineScanner) decode(raw []byte, n int64, cut bool) []byte {
	if cut {
		// validPrefix: the longest valid prefix, dropping at most the 3
		// bytes of a character the cut split.
		for end := len(raw); end >= max(0, len(raw)-3); end-- {
			if utf8.Valid(raw[:end]) {
				raw = raw[:end]
				break
			}
		}
	}
	if n == 1 && bytes.HasPrefix(raw, []byte(bom)) {
		raw = raw[len(bom):]
	}
	if utf8.Valid(raw) {
		return raw
	}
	if s.decoder == nil {
		s.decoder = xunicode.UTF8.NewDecoder()
	}
	s.decoder.Reset()
	// Each byte becomes at most one U+FFFD (3 bytes).
	if need := 3 * len(raw); cap(s.decoded) < need {
		s.decoded = make([]byte, need)
	}
	k, _, _ := s.decoder.Transform(s.decoded[:cap(s.decoded)], raw, true)
	return s.decoded[:k]
}

// lineText is the text of line n as eachLine gives it.
func (s *lineScanner) lineText(raw []byte, n int64, cut bool) string {
	if cut {
		return validPrefix(raw, n == 1)
	}
	return DecodeText(raw, n == 1)
}

// matches reports whether line n (raw, cut when cut; found: the finder
// pointed into it) matches: on its raw bytes when they decode to
// themselves, else on its text.
func (s *lineScanner) matches(raw []byte, n int64, cut, found bool) (bool, error) {
	p := s.plan
	for _, r := range p.required {
		if !bytes.Contains(raw, r) {
			return false, nil
		}
	}
	if n == 1 || cut || (p.rawNeedsValid && !utf8.Valid(raw)) {
		text := s.decode(raw, n, cut)
		if p.window > 0 && len(text) >= windowedLine {
			return s.matchAround(text)
		}
		return s.m.matchBytes(s.ctx, text)
	}
	if p.exact && found {
		return true, nil
	}
	if s.m.re == nil {
		return bytes.Contains(raw, p.literal), nil
	}
	return s.m.matchBytes(s.ctx, raw)
}

// ctxReader reads r, failing with ctx's error once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// byteRank ranks bytes by how often they occur in source code (Go's own
// tree): 0 is the rarest, 255 the most common. Finders look for a
// literal's rarest byte.
var byteRank = [256]uint8{
	254, 187, 181, 179, 172, 155, 168, 145, 162, 251, 247, 133, 144, 131, 152, 177,
	158, 127, 119, 132, 134, 124, 125, 122, 136, 118, 86, 99, 109, 90, 83, 139,
	255, 174, 223, 140, 167, 159, 166, 161, 231, 229, 180, 171, 242, 186, 234, 230,
	250, 235, 228, 218, 221, 204, 215, 197, 212, 200, 225, 173, 165, 222, 160, 97,
	156, 232, 195, 206, 203, 216, 188, 182, 193, 207, 151, 164, 199, 198, 190, 205,
	201, 178, 211, 217, 214, 183, 189, 176, 191, 170, 153, 185, 202, 184, 95, 219,
	150, 246, 220, 240, 237, 253, 238, 226, 224, 245, 154, 196, 239, 227, 248, 243,
	233, 157, 249, 244, 252, 236, 210, 192, 241, 213, 169, 209, 175, 208, 56, 91,
	149, 105, 92, 146, 137, 138, 79, 42, 102, 163, 38, 147, 94, 143, 117, 43,
	113, 116, 53, 61, 121, 45, 8, 60, 57, 6, 21, 39, 34, 9, 14, 32,
	104, 16, 13, 4, 41, 12, 2, 80, 73, 111, 129, 26, 40, 51, 0, 1,
	66, 31, 10, 5, 65, 20, 62, 107, 74, 101, 64, 11, 30, 7, 47, 59,
	148, 135, 130, 100, 106, 78, 110, 85, 93, 84, 52, 25, 88, 29, 58, 15,
	81, 68, 67, 55, 23, 77, 76, 22, 71, 72, 24, 63, 19, 3, 17, 37,
	128, 96, 98, 87, 48, 44, 27, 54, 142, 123, 35, 120, 75, 33, 28, 70,
	114, 50, 36, 115, 69, 18, 89, 82, 108, 126, 46, 49, 141, 112, 103, 194,
}
