package core

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Find runs the find tool: the entries below path (the workspace root by
// default) whose path relative to it matches the glob pattern (all of
// them for an empty pattern), in pre-order with siblings in raw byte
// order, one page at a time (200 by default). Excluded directories are
// not walked; symbolic links are listed (type "symlink") and not
// entered. The walk stops as soon as the page is full. Failures are
// {"error": ...}.
func (e *Executor) Find(ctx context.Context, a toolspec.FindArgs) (toolspec.Output, error) {
	page, offset := pageOf(a.Limit, a.Offset, toolspec.FindPageDefault)
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return failure(err)
	}
	dir, err := e.searchDir(ctx, p)
	if err != nil {
		return failure(err)
	}
	res := toolspec.FindResult{Path: a.Path, Pattern: a.Pattern, Entries: []toolspec.FindEntry{}}
	// The page's paths are written one after another into a reused
	// buffer, which becomes one string that each entry's path is a part
	// of: one allocation for the page's paths rather than one per entry.
	buf := findBuffers.Get().(*findBuffer)
	defer buf.put()
	seen := int64(0)
	err = e.walk(ctx, dir, a.Pattern, globList(a.Exclude), func(en walkEntry) bool {
		if seen >= offset {
			if int64(len(res.Entries)) == page {
				res.NextOffset = new(offset + page)
				return false
			}
			if cap(res.Entries) == 0 {
				res.Entries = make([]toolspec.FindEntry, 0, min(page, findEntriesHeld))
			}
			buf.paths = en.appendPath(buf.paths)
			buf.ends = append(buf.ends, len(buf.paths))
			res.Entries = append(res.Entries, toolspec.FindEntry{Type: en.typ.String()})
		}
		seen++
		return true
	})
	if err != nil {
		return failure(err)
	}
	all, start := string(buf.paths), 0
	for i, end := range buf.ends {
		res.Entries[i].Path, start = all[start:end], end
	}
	res.Count = int64(len(res.Entries))
	return jsonOutput(res), nil
}

// A page is usually full: a find makes room for its entries (up to
// findEntriesHeld of them) at its first entry, rather than growing them.
const findEntriesHeld = 1024

// findBuffer is where a find writes its page's paths (see Find): the
// paths one after another, and where each ends.
type findBuffer struct {
	paths []byte
	ends  []int
}

// findBuffers keeps findBuffers (*findBuffer) for the next find, up to
// maxPooledFind bytes of paths.
var findBuffers = sync.Pool{New: func() any { return new(findBuffer) }}

const maxPooledFind = 1 << 20

// put empties b and gives it back for another find, unless it grew
// past maxPooledFind.
func (b *findBuffer) put() {
	if cap(b.paths) <= maxPooledFind {
		b.paths, b.ends = b.paths[:0], b.ends[:0]
		findBuffers.Put(b)
	}
}

// searchDir resolves the directory a find starts from.
func (e *Executor) searchDir(ctx context.Context, p string) (vfs.Location, error) {
	loc, err := e.ws.Resolve(ctx, p)
	if err != nil {
		return vfs.Location{}, err
	}
	if !loc.Info.IsDir() {
		return vfs.Location{}, errno.New(errno.ENOTDIR, toolspec.MsgNotDirectory(loc.Path), loc.Path)
	}
	return loc, nil
}

type walkEntry struct {
	shown string   // the path of dir as the tool reports it: below the path asked for
	dir   *vfs.Dir // the directory holding it, open while visit runs
	name  string   // its name in dir
	typ   vfs.FileType
}

// path is the entry's path as the tool reports it. It is made on
// demand: a walk that passes over most of what it visits (a page far
// from the first) allocates no path for those.
func (en walkEntry) path() string { return vfs.Join(en.shown, en.name) }

// appendPath appends the entry's path (see path) to b.
func (en walkEntry) appendPath(b []byte) []byte {
	b = append(b, en.shown...)
	if en.shown != "/" {
		b = append(b, '/')
	}
	return append(b, en.name...)
}

// The walk lists a directory in chunks of names (see vfs.Dir.Entries),
// from walkChunkMin up to walkChunkMax, doubling: a walk that stops early
// holds and sorts few names, a walk of a huge directory holds
// walkChunkMax at most.
const (
	walkChunkMin = 64
	walkChunkMax = 1 << 16
)

// walkHeldDirs is the span of the open directories a walk keeps: the
// starting directory, the walkHeldDirs nearest above the one it lists,
// and above those checkpoints at exponentially spaced distances (a
// directory whose depth is a multiple of walkHeldDirs^l while it lies
// within walkHeldDirs^(l+1) levels; see walkHeld). So a walk D levels
// deep holds about walkHeldDirs * log(D)/log(walkHeldDirs) open
// directories at most, and a directory it closed and comes back to is
// opened again from the nearest one still open, one name at a time,
// with those in between kept as the rule says: for any shape of tree
// the opening costs the store O(log D) names per entry walked at most,
// not the whole path each time. A variable for tests.
var walkHeldDirs = 64

// walkHeld reports whether a walk depth levels below its start keeps the
// directory i levels below the start (i <= depth) open.
func walkHeld(i, depth int) bool {
	if i == 0 || depth-i <= walkHeldDirs {
		return true
	}
	for span := walkHeldDirs; i%span == 0; span *= walkHeldDirs {
		if depth-i <= span*walkHeldDirs {
			return true
		}
		if span > depth/walkHeldDirs {
			break
		}
	}
	return false
}

// walkFrame is a directory on the walk's path from its start: its name
// in the directory above and its handle while the walk holds it open
// (nil otherwise).
type walkFrame struct {
	name string
	d    *vfs.Dir
}

// walkPath is the walk's path of directories from its start (frame 0,
// always open) to the one it lists.
type walkPath []walkFrame

// release closes, now that the walk went down to depth, the directories
// walkHeld no longer keeps: those that just left the nearest span or a
// checkpoint's span (at depth - span - 1 for span = walkHeldDirs^(l+1)).
func (p walkPath) release(depth int) {
	for span := walkHeldDirs; span < depth; span *= walkHeldDirs {
		if i := depth - span - 1; i > 0 && p[i].d != nil && !walkHeld(i, depth) {
			p[i].d.Close()
			p[i].d = nil
		}
		if span > depth/walkHeldDirs {
			break
		}
	}
}

// reopen opens the directory at depth again, from the nearest open one
// above it and one name at a time (each step refusing a link, so a
// directory swapped for a link meanwhile is ENOTDIR), keeping open the
// ones in between that walkHeld keeps. Errors as vfs.Dir.OpenDir's.
func (p walkPath) reopen(ctx context.Context, depth int) error {
	j := depth
	for p[j].d == nil {
		j--
	}
	cur, temp := p[j].d, false
	for i := j + 1; i <= depth; i++ {
		next, err := cur.OpenDir(ctx, p[i].name)
		if temp {
			cur.Close()
		}
		if err != nil {
			return err
		}
		cur, temp = next, true
		if i == depth || walkHeld(i, depth) {
			p[i].d, temp = next, false
		}
	}
	return nil
}

// walk visits the tree below dir in pre-order, siblings in raw byte
// order, calling visit for each entry whose relative path matches the
// glob include ("" matches all) and no exclusion. An excluded directory
// is not entered, nor one below which no path can match include; a
// symbolic link is not followed. The globs are matched by automata
// (globDFA) fed one name at a time from the state the directory's path
// left them in; the automata are kept between calls (globCache).
// visit returning false
// stops the walk. The walk goes through open directories (vfs.Dir), so
// each step costs the store one name, however deep, and it holds a
// chunk of each directory's names, not the whole directory. Below the
// start, a directory or file the host refuses, or that vanished or
// became something else meanwhile, is passed over (see unreadable), and
// so is an entry whose path is longer than a tool accepts (deviation
// pathLength), with all below it.
func (e *Executor) walk(ctx context.Context, dir vfs.Location, include string, exclude []string, visit func(walkEntry) bool) error {
	globs, key, err := e.globs.take(include, exclude)
	if err != nil {
		return err
	}
	defer e.globs.put(key, globs)
	inc, ex, exDirs := globs.inc, globs.ex, globs.exDirs
	top, err := e.ws.OpenDirReal(ctx, dir.Real)
	if err != nil {
		return err
	}
	path := walkPath{{d: top}}
	defer func() {
		for _, f := range path {
			if f.d != nil {
				f.d.Close()
			}
		}
	}()
	// visitDir walks the directory path[depth], shown at shown, the
	// automata at the states they reach reading its path (relative to
	// the start) and a "/".
	var visitDir func(shown string, depth int, at walkStates) (bool, error)
	visitDir = func(shown string, depth int, at walkStates) (bool, error) {
		after, chunk := "", walkChunkMin
		for {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			entries, err := path[depth].d.Entries(ctx, after, chunk)
			if unreadable(err) && depth > 0 {
				return true, nil // a directory the host will not list is passed over
			}
			if err != nil {
				return false, err
			}
			end := len(entries) < chunk
			for i, en := range entries {
				if err := ctx.Err(); err != nil {
					return false, err
				}
				d := path[depth].d
				child := walkEntry{shown: shown, dir: d, name: en.Name, typ: en.Type}
				if pathLen := len(shown) + 1 + len(en.Name) - boolInt(shown == "/"); int64(pathLen) > toolspec.WorkspaceMaxPathBytesDefault {
					// No call could name it or anything below it
					// (deviation pathLength); passing it over bounds
					// the walk's paths, so its cost stays linear.
					continue
				}
				var here walkStates
				if ex != nil {
					if here.ex = ex.feed(at.ex, en.Name); here.ex.match {
						continue
					}
				}
				if exDirs != nil && en.Type == vfs.TypeDir {
					if here.exDirs = exDirs.feed(at.exDirs, en.Name); here.exDirs.match {
						continue
					}
				}
				if inc != nil {
					here.inc = inc.feed(at.inc, en.Name)
				}
				if inc == nil || here.inc.match {
					if !visit(child) {
						return false, nil
					}
				}
				if en.Type != vfs.TypeDir {
					continue
				}
				var below walkStates
				if inc != nil {
					// Nothing below matches the include when it has
					// no instruction left after "/": the directory
					// is not entered.
					if below.inc = inc.feed(here.inc, "/"); len(below.inc.pcs) == 0 {
						continue
					}
				}
				if ex != nil {
					below.ex = ex.feed(here.ex, "/")
				}
				if exDirs != nil {
					below.exDirs = exDirs.feed(here.exDirs, "/")
				}
				sub, err := d.OpenDir(ctx, en.Name)
				if unreadable(err) {
					continue // a directory the host will not open is passed over
				}
				if err != nil {
					return false, err
				}
				path = append(path, walkFrame{name: en.Name, d: sub})
				path.release(depth + 1)
				more, err := visitDir(child.path(), depth+1, below)
				if c := path[depth+1].d; c != nil {
					c.Close()
				}
				path = path[:depth+1]
				if !more || err != nil {
					return false, err
				}
				if path[depth].d == nil && !(end && i == len(entries)-1) {
					if err := path.reopen(ctx, depth); err != nil {
						return unreadable(err), ignoreUnreadable(err)
					}
				}
			}
			if end {
				return true, nil
			}
			after, chunk = entries[len(entries)-1].Name, min(chunk*2, walkChunkMax)
		}
	}
	var start walkStates
	if inc != nil {
		start.inc = inc.start
	}
	if ex != nil {
		start.ex = ex.start
	}
	if exDirs != nil {
		start.exDirs = exDirs.start
	}
	_, err = visitDir(dir.Path, 0, start)
	return err
}

// walkStates are the states of a walk's automata (include, exclusions,
// directory exclusions) at a point of its relative paths; nil for an
// automaton the walk does not have.
type walkStates struct {
	inc, ex, exDirs *globState
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ignoreUnreadable is err, or nil when the walk passes over it.
func ignoreUnreadable(err error) error {
	if unreadable(err) {
		return nil
	}
	return err
}

// Grep runs the grep tool: the lines matching query (literal and
// case-sensitive unless regex or ignoreCase) in the file at path, or in
// the files below the directory at path (the workspace root by default)
// filtered by include and exclude globs, in find order; with context,
// the lines around each match. One page at a time (200 by default); the
// search stops once the page is full. Patterns are RE2 (deviation
// regexEngine). Failures are {"error": ...}.
func (e *Executor) Grep(ctx context.Context, a toolspec.GrepArgs) (toolspec.Output, error) {
	page, offset := pageOf(a.Limit, a.Offset, toolspec.GrepPageDefault)
	contextLines := int64(0)
	if a.Context != nil {
		contextLines = *a.Context
	}
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return failure(err)
	}
	loc, err := e.ws.Resolve(ctx, p)
	if err != nil {
		return failure(err)
	}
	plan, err := compileQuery(a.Query, a.Regex != nil && *a.Regex, a.IgnoreCase != nil && *a.IgnoreCase)
	if err != nil {
		return failure(err)
	}
	// Room for a page of matches (up to findEntriesHeld), rather than
	// growing it as they come.
	s := &scan{context: contextLines, budget: toolspec.GrepMaxResultBytesDefault, offset: offset, limit: page + 1, out: make([]toolspec.GrepMatch, 0, min(page+1, findEntriesHeld))}
	maxLine := int(toolspec.GrepMaxLineBytesDefault)
	if loc.Info.IsDir() {
		err = e.grepTree(ctx, loc, globOne(a.Include), globList(a.Exclude), plan, maxLine, grepScanChunk, s)
	} else if loc.Info.Type == vfs.TypeOther {
		err = errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(loc.Path), loc.Path)
	} else {
		sc := newLineScanner(plan, contextLines, maxLine, grepScanChunk)
		defer sc.release()
		_, err = e.scanFile(ctx, sc, func() (io.ReadCloser, error) { return e.ws.OpenResolved(ctx, loc.Real, 0) }, loc.Path, s)
	}
	if err != nil {
		return failure(err)
	}
	res := toolspec.GrepResult{Path: a.Path, Query: a.Query, Matches: s.out}
	switch {
	case int64(len(s.out)) > page:
		res.Matches = s.out[:page]
		res.NextOffset = new(offset + page)
	case s.full:
		res.NextOffset = new(offset + int64(len(s.out)))
	}
	res.Count = int64(len(res.Matches))
	return jsonOutput(res), nil
}

// unreadable reports a host refusal that a walk passes over rather than
// failing the whole search: permission denied, or a node that vanished
// or became something else while the walk went by (a directory replaced
// by a link or a file: ENOTDIR; a file by a link: ELOOP, or by a
// directory: EISDIR).
func unreadable(err error) bool {
	if err == nil {
		return false
	}
	switch errno.CodeOf(err) {
	case errno.EACCES, errno.EPERM, errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EISDIR:
		return true
	}
	return false
}

// scan is the state of one grep across files.
type scan struct {
	context  int64
	offset   int64
	limit    int64
	seen     int64
	accepted int64
	out      []toolspec.GrepMatch
	// bytes of line text the page holds so far; full once past budget
	// (toolspec.GrepMaxResultBytesDefault).
	bytes  int64
	budget int64
	full   bool
}

type pendingMatch struct {
	match     toolspec.GrepMatch
	remaining int64
}

// feed takes the next line a file's scanner shows (a match or context,
// in order) into the page, and reports whether to go on with the file;
// f.done is set once the search is complete (the page and the context
// of its last match are full).
func (s *scan) feed(f *fileScan, l grepLine) bool {
	if l.n != f.last+1 {
		f.before = f.before[:0] // lines were passed over: none is context
	}
	f.last = l.n
	text := l.text
	if l.cut {
		text = toolspec.MsgReadLineTruncated(text)
	}
	cl := toolspec.GrepContextLine{Line: l.n, Text: text, IsMatch: l.isMatch}
	for _, pm := range f.pending {
		pm.match.Context = append(pm.match.Context, cl)
		pm.remaining--
		s.bytes += int64(len(text))
	}
	for len(f.pending) > 0 && f.pending[0].remaining == 0 {
		s.out = append(s.out, f.pending[0].match)
		f.pending = f.pending[1:]
	}
	if s.accepted >= s.limit && len(f.pending) == 0 {
		f.done = true
		return false
	}
	if l.isMatch && s.accepted < s.limit && s.accepted > 0 && s.bytes >= s.budget {
		// The page holds as much text as one answer should; it ends
		// here and the next page starts at this match.
		s.full = true
		f.done = true
		return false
	}
	if l.isMatch {
		index := s.seen
		s.seen++
		if index >= s.offset && s.accepted < s.limit {
			s.bytes += int64(len(text))
			for _, b := range f.before {
				s.bytes += int64(len(b.Text))
			}
			m := toolspec.GrepMatch{Path: f.shown, Line: l.n, Text: text}
			if s.context > 0 {
				m.Context = append(append([]toolspec.GrepContextLine{}, f.before...), cl)
				f.pending = append(f.pending, &pendingMatch{m, s.context})
			} else {
				s.out = append(s.out, m)
			}
			s.accepted++
		}
	}
	if s.context > 0 {
		f.before = append(f.before, cl)
		if int64(len(f.before)) > s.context {
			f.before = f.before[1:]
		}
	}
	if s.accepted >= s.limit && len(f.pending) == 0 {
		f.done = true
		return false
	}
	return true
}

// fileScan is the state of the page within one file.
type fileScan struct {
	shown   string
	last    int64 // the number of the last line fed
	before  []toolspec.GrepContextLine
	pending []*pendingMatch
	done    bool
}

// finish ends a file once its lines are fed (or the page stopped them),
// and reports whether the search is complete.
func (s *scan) finish(f *fileScan) bool {
	if !f.done || s.full {
		for _, pm := range f.pending {
			s.out = append(s.out, pm.match)
		}
	}
	return f.done || s.accepted >= s.limit
}

// scanFile searches one file (open opens it) with sc and reports
// whether the search is complete (the page and the context of its last
// match are full).
func (e *Executor) scanFile(ctx context.Context, sc *lineScanner, open func() (io.ReadCloser, error), shown string, s *scan) (bool, error) {
	r, err := open()
	if err != nil {
		return false, err
	}
	defer r.Close()
	f := &fileScan{shown: shown}
	if err := sc.scan(ctx, r, func(l grepLine) bool { return s.feed(f, l) }); err != nil {
		return false, err
	}
	return s.finish(f), nil
}

// compileQuery builds the plan a query is searched with: the line
// matcher, a literal (the default) or an RE2 pattern, optionally
// ignoring case, and the finder in front of it.
func compileQuery(query string, isRegex, ignoreCase bool) (*grepPlan, error) {
	if !isRegex && !ignoreCase {
		return newGrepPlan(&queryMatcher{literal: query}, query, false, false, ""), nil
	}
	source, err := querySource(query, isRegex, ignoreCase)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(source)
	if err != nil {
		return nil, invalidRegex(err)
	}
	return newGrepPlan(&queryMatcher{re: re, insts: programSize(source)}, query, isRegex, ignoreCase, source), nil
}

// matchSlice is how much matching work, in program instructions times
// bytes of text (what RE2's automaton costs at most), runs between two
// looks at the context: tens of milliseconds.
const matchSlice = 1 << 22

// matchWhole is the most work a line may cost at worst and still be
// matched whole, as a string: a few tenths of a second. Matching a
// string is faster than reading runes (regexp skips to the pattern's
// literal prefix), so the lines of a common pattern (tens of
// instructions) are matched whole even at grep's 256 KiB line cap.
const matchWhole = 1 << 25

// queryMatcher matches lines against a grep query. A line whose
// matching may cost more than matchWhole (a long line and a large
// program: Go's automaton runs in time proportional to both) is read
// through a reader that looks at the context every matchSlice of work,
// so a cancelled call stops within the line; a cheaper line is matched
// whole, and the context is looked at once the lines matched since the
// last look cost matchSlice. One queryMatcher serves one call at a time.
type queryMatcher struct {
	literal string         // the query, when re is nil
	re      *regexp.Regexp // the compiled pattern, or nil
	insts   int            // the size of re's program, in instructions
	work    int            // the work done since the context was looked at
}

// match reports whether line matches, or ctx's error once ctx is done.
func (m *queryMatcher) match(ctx context.Context, line string) (bool, error) {
	if m.re == nil {
		return strings.Contains(line, m.literal), nil
	}
	cost := (len(line) + 1) * m.insts
	if cost <= matchWhole {
		if m.work += cost; m.work > matchSlice {
			m.work = 0
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		return m.re.MatchString(line), nil
	}
	if prefix, _ := m.re.LiteralPrefix(); prefix != "" && !strings.Contains(line, prefix) {
		return false, nil // every match begins with prefix
	}
	every := max(1, matchSlice/m.insts)
	r := ctxRunes{ctx: ctx, text: line, every: every, left: every}
	matched := m.re.MatchReader(&r)
	if r.err != nil {
		return false, r.err
	}
	return matched, nil
}

// matchBytes is match for a line given as its bytes, valid UTF-8.
func (m *queryMatcher) matchBytes(ctx context.Context, line []byte) (bool, error) {
	if m.re == nil {
		return bytes.Contains(line, []byte(m.literal)), nil
	}
	cost := (len(line) + 1) * m.insts
	if cost > matchWhole {
		return m.match(ctx, string(line))
	}
	if m.work += cost; m.work > matchSlice {
		m.work = 0
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
	return m.re.Match(line), nil
}

// ctxRunes reads the runes of text as regexp reads a string (a byte
// that is not UTF-8 is U+FFFD, one byte wide) and looks at ctx every
// so many runes: once ctx is done it ends the text with ctx's error.
type ctxRunes struct {
	ctx   context.Context
	text  string
	every int // runes between two looks at ctx
	left  int // runes before the next look
	err   error
}

func (r *ctxRunes) ReadRune() (rune, int, error) {
	if r.left--; r.left < 0 {
		r.left = r.every
		if r.err = r.ctx.Err(); r.err != nil {
			return 0, 0, r.err
		}
	}
	if r.text == "" {
		return 0, 0, io.EOF
	}
	c, size := utf8.DecodeRuneInString(r.text)
	r.text = r.text[size:]
	return c, size, nil
}

// programSize is the number of instructions of the program RE2 runs for
// source (as regexp.Compile builds it), or 1 when it cannot tell.
func programSize(source string) int {
	re, err := syntax.Parse(source, syntax.Perl)
	if err != nil {
		return 1
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 1
	}
	return max(1, len(prog.Inst))
}

// querySource is the RE2 source a regex or case-blind query is matched
// with: the query translated (translateRegex) or quoted, its
// alternatives sorted (sortAlternatives).
func querySource(query string, isRegex, ignoreCase bool) (string, error) {
	source := regexp.QuoteMeta(query)
	if isRegex {
		var err error
		if source, err = translateRegex(query); err != nil {
			return "", err
		}
	}
	if ignoreCase {
		source = "(?i)" + source
	}
	return sortAlternatives(source), nil
}

// sortAlternatives rewrites an RE2 pattern with the alternatives of every
// alternation in sorted order, which changes whether a line matches in
// no way (grep asks only that). RE2's parser factors the common prefixes
// of neighbouring alternatives, so sorted ones become a tree: a line is
// then matched with work per character that grows with how many
// alternatives share a prefix, not with how many there are ("abc|xyz|abd"
// tries 2 branches at a character, not 3; 16,000 words, 30 rather than
// 16,000). A pattern RE2 cannot parse is returned as it is.
func sortAlternatives(source string) string {
	if !strings.Contains(source, "|") {
		return source
	}
	re, err := syntax.Parse(source, syntax.Perl)
	if err != nil || !sortAlternations(re) {
		return source
	}
	return re.String()
}

// sortAlternations sorts the alternatives of each alternation in re by
// their RE2 source, and reports whether any moved.
func sortAlternations(re *syntax.Regexp) bool {
	moved := false
	for _, sub := range re.Sub {
		moved = sortAlternations(sub) || moved
	}
	if re.Op != syntax.OpAlternate {
		return moved
	}
	keys := make(map[*syntax.Regexp]string, len(re.Sub))
	for _, sub := range re.Sub {
		keys[sub] = sub.String()
	}
	less := func(a, b *syntax.Regexp) int { return strings.Compare(keys[a], keys[b]) }
	if slices.IsSortedFunc(re.Sub, less) {
		return moved
	}
	slices.SortStableFunc(re.Sub, less)
	return true
}

func invalidRegex(err error) error {
	reason := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	return errno.New(errno.EINVAL, toolspec.MsgGrepInvalidRegex(reason), "")
}

// jsSpace is JavaScript's \s as an RE2 class body.
const jsSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// jsNotSpace is JavaScript's \S as an RE2 class body: every character
// jsSpace leaves out, for use inside a class, where a negated class
// cannot nest.
const jsNotSpace = `\x00-\x08\x0e-\x1f\x21-\x9f\x{a1}-\x{167f}\x{1681}-\x{1fff}\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{fefe}\x{ff00}-\x{10ffff}`

// translateRegex reads a JavaScript regular expression as RE2: "."
// (outside character classes) and \s, \S (everywhere) take their
// JavaScript meaning, and \uXXXX becomes \x{XXXX}. Look-around and
// backreferences, which RE2 cannot run in linear time, are refused with
// a clear reason.
func translateRegex(p string) (string, error) {
	var out strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			next := p[i+1]
			switch {
			case next >= '1' && next <= '9':
				return "", errno.New(errno.EINVAL, toolspec.MsgGrepInvalidRegex(toolspec.MsgGrepBackreference(p[i:i+2])), "")
			case next == 'k' && i+2 < len(p) && p[i+2] == '<':
				return "", errno.New(errno.EINVAL, toolspec.MsgGrepInvalidRegex(toolspec.MsgGrepBackreference(`\k<`)), "")
			case next == 'u' && i+5 < len(p) && isHex(p[i+2:i+6]):
				out.WriteString(`\x{` + p[i+2:i+6] + `}`)
				i += 5
				continue
			case next == 's' && !inClass:
				out.WriteString("[" + jsSpace + "]")
			case next == 'S' && !inClass:
				out.WriteString("[^" + jsSpace + "]")
			case next == 's':
				out.WriteString(jsSpace)
			case next == 'S':
				out.WriteString(jsNotSpace)
			default:
				out.WriteByte(c)
				out.WriteByte(next)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			out.WriteByte(c)
		case c == '[':
			inClass = true
			out.WriteByte(c)
			// A "]" right after "[" or "[^" is literal in RE2, and closes
			// an empty class in JavaScript; keep it literal-safe.
		case c == '.':
			out.WriteString(anyChar)
		case c == '(' && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!")):
			return "", errno.New(errno.EINVAL, toolspec.MsgGrepInvalidRegex(toolspec.MsgGrepLookaround(p[i:i+3])), "")
		case c == '(' && (strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")):
			return "", errno.New(errno.EINVAL, toolspec.MsgGrepInvalidRegex(toolspec.MsgGrepLookaround(p[i:i+4])), "")
		default:
			out.WriteByte(c)
		}
	}
	translated := out.String()
	if _, err := regexp.Compile(translated); err != nil {
		// Word the complaint in the model's own pattern when it has one.
		if _, origErr := regexp.Compile(p); origErr != nil {
			return "", invalidRegex(origErr)
		}
		return "", invalidRegex(err)
	}
	return translated, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
