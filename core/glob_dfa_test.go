package core

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// compileGlob compiles a glob's RE2 translation with regexp, as find
// matched globs before the automaton: the reference the automaton is
// tested against.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	source, err := globRegexp(pattern)
	if err != nil {
		return nil, err
	}
	compiled, err := regexp.Compile(source)
	if err != nil {
		return nil, errno.New(errno.EINVAL, toolspec.MsgInvalidGlob(strings.TrimPrefix(err.Error(), "error parsing regexp: ")), "")
	}
	return compiled, nil
}

// Pieces of random globs and names: every character the dialect gives a
// meaning to, the line breaks "*" and "**" stop at, "/" and its
// neighbours, a character of two and of three bytes, a byte that is not
// UTF-8 and the character regexp reads it as.
var (
	globPieces = []string{"a", "b", "é", "*", "**", "**/", "/**", "?", "{", "}", ",", "/", ".", "\n", "\r", "\u2028", "[", "]", "\\", "\ufffd", "{a,b}", "{,x}", ".go", "€"}
	namePieces = []string{"a", "b", "é", "/", ".", "\n", "\r", "\u2028", "\u2029", "x", "\xff", "\xe2\x82", "\ufffd", "go", "{", "}", ",", "*", "?", "[", "\\", "€", "ab"}
)

func randomText(rng *rand.Rand, pieces []string, max int) string {
	var b strings.Builder
	for range rng.IntN(max + 1) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// sampleGlobs are globs of the kinds models write and of the dialect's
// corners.
var sampleGlobs = []string{
	"**/*.go", "**/*.none", "*.go", "src/**", "src/**/*.ts", "**", "*", "?", "**/", "a/**/b", "**/test/**",
	"*.{js,ts}", "{src,lib}/**/*.{js,jsx,ts,tsx}", "{a,{b,c}}", "a{,b}", "{a}", "a{b", "a}b", "{a,b",
	"**/{a,b}/**/*.md", "***", "****/x", "**{**,x}**", "a/**/**/b", "?.?", "[ab]", "a\\*", "é?", "**/.*",
	"x/**", "**/node_modules/**", "**/*_test.go", "{**/a,b/**}", "*/", "/a", "a//b",
}

// TestGlobDFAMatchesRegexp checks the automaton against regexp running
// the same translation, on globs of every shape the pieces make and on
// names that hit their corners: kept states, states past the budget
// (none kept), names fed in pieces as the walk feeds them, and several
// globs as one.
func TestGlobDFAMatchesRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	patterns := append([]string{}, sampleGlobs...)
	for range 3000 {
		patterns = append(patterns, randomText(rng, globPieces, 8))
	}
	names := []string{"", "a", "a.go", "src/a.ts", "a/b", "a\nb", "x/y/z.md", "\xff", "\ufffd", "a/", "/"}
	for range 300 {
		names = append(names, randomText(rng, namePieces, 8))
	}
	checked := 0
	for _, p := range patterns {
		re, err := compileGlob(p)
		parsed, perr := parseGlob(p)
		if (err == nil) != (perr == nil) || err != nil && err.Error() != perr.Error() {
			t.Fatalf("%q: compileGlob error %v, parseGlob error %v", p, err, perr)
		}
		if err != nil {
			continue
		}
		kept, err := globMatcher([]*syntax.Regexp{parsed})
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		unkept, _ := globMatcher([]*syntax.Regexp{parsed})
		unkept.budget = 0
		for _, name := range names {
			want := re.MatchString(name)
			if got := kept.matches(name); got != want {
				t.Fatalf("%q (RE2 %s) on %q: automaton %v, regexp %v", p, re, name, got, want)
			}
			if got := unkept.matches(name); got != want {
				t.Fatalf("%q (RE2 %s) on %q, no state kept: automaton %v, regexp %v", p, re, name, got, want)
			}
			// In pieces, as the walk feeds a path: cut before and
			// after each "/".
			s := kept.start
			for rest := name; rest != ""; {
				i := strings.IndexByte(rest, '/')
				if i < 0 {
					i = len(rest)
				}
				s = kept.feed(kept.feed(s, rest[:i]), rest[i:min(i+1, len(rest))])
				rest = rest[min(i+1, len(rest)):]
			}
			if s.match != want {
				t.Fatalf("%q on %q fed in pieces: automaton %v, regexp %v", p, name, s.match, want)
			}
			checked++
		}
	}
	// Several globs as one: a name matches when any does.
	for range 500 {
		var res []*regexp.Regexp
		var parsed []*syntax.Regexp
		for range 1 + rng.IntN(4) {
			p := patterns[rng.IntN(len(patterns))]
			re, err := compileGlob(p)
			if err != nil {
				continue
			}
			pre, _ := parseGlob(p)
			res, parsed = append(res, re), append(parsed, pre)
		}
		if len(parsed) == 0 {
			continue
		}
		d, err := globMatcher(parsed)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			want := false
			for _, re := range res {
				want = want || re.MatchString(name)
			}
			if got := d.matches(name); got != want {
				t.Fatalf("%v on %q: automaton %v, regexp %v", res, name, got, want)
			}
		}
	}
	t.Logf("%d glob × name pairs", checked)
}

// TestGlobDFADeadMeansNoMatch checks what the walk's pruning relies on:
// after a directory's path and "/", a state with no instruction left
// matches no path below.
func TestGlobDFADeadMeansNoMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	for _, p := range sampleGlobs {
		re, err := compileGlob(p)
		if err != nil {
			continue
		}
		parsed, _ := parseGlob(p)
		d, _ := globMatcher([]*syntax.Regexp{parsed})
		for range 300 {
			dir := randomText(rng, []string{"a", "b", "src", "test", "node_modules", "x", ".", "é"}, 3)
			if dir == "" {
				continue
			}
			dead := len(d.feed(d.start, dir+"/").pcs) == 0
			for range 30 {
				name := randomText(rng, []string{"a", "b", "/", "x.go", ".md", "src", "test", "node_modules", "z.ts", "é"}, 4)
				if name == "" {
					continue // an entry's name is never empty
				}
				below := dir + "/" + name
				if dead && re.MatchString(below) {
					t.Fatalf("%q: nothing is left after %q/, yet %q matches", p, dir, below)
				}
			}
		}
	}
}

// FuzzGlobDFA holds the automaton to regexp on any glob and name.
func FuzzGlobDFA(f *testing.F) {
	for _, p := range sampleGlobs {
		f.Add(p, "src/a/b.go")
	}
	f.Add("**/*.{go,\n}", "a\n/b.go")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 {
			return
		}
		re, err := compileGlob(pattern)
		if err != nil {
			return
		}
		parsed, err := parseGlob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		d, err := globMatcher([]*syntax.Regexp{parsed})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := d.matches(name), re.MatchString(name); got != want {
			t.Fatalf("%q on %q: automaton %v, regexp %v", pattern, name, got, want)
		}
	})
}

// TestWalkMatchesNaiveFilter checks find's walk (automata fed name by
// name, subtrees it cannot match pruned) against the plain reading of
// its contract on random trees: every entry in pre-order, siblings in
// byte order, matched whole against regexp's translation of each glob,
// an excluded entry (and, for "x/**", an excluded directory x) left out
// with all below it.
func TestWalkMatchesNaiveFilter(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(14, 3))
	parts := []string{"a", "b", "src", "test", "x.go", "y.ts", "node_modules", ".hidden", "é", "a\nb", "lib"}
	for tree := range 25 {
		ws := vfs.New(memfs.New())
		for range 40 {
			var p strings.Builder
			p.WriteString("/workspace")
			for range 1 + rng.IntN(4) {
				p.WriteString("/" + parts[rng.IntN(len(parts))])
			}
			err := ws.WriteFile(ctx, p.String(), []byte("x"), vfs.WriteOptions{CreateParents: true})
			if err != nil && !errors.Is(err, fs.ErrExist) && errno.CodeOf(err) != errno.EISDIR && errno.CodeOf(err) != errno.ENOTDIR {
				t.Fatal(err)
			}
		}
		if err := ws.Symlink(ctx, "src", "/workspace/link"); err != nil {
			t.Fatal(err)
		}
		e, err := New(ws, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Every path below /workspace, in the walk's order, with its kind.
		type entry struct {
			rel string
			typ vfs.FileType
		}
		var all []entry
		var list func(dir, rel string)
		list = func(dir, rel string) {
			infos, err := ws.ReadDir(ctx, dir, 0, -1)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range infos {
				all = append(all, entry{rel + i.Name, i.Type})
				if i.Type == vfs.TypeDir {
					list(dir+"/"+i.Name, rel+i.Name+"/")
				}
			}
		}
		list("/workspace", "")
		for range 40 {
			include := sampleGlobs[rng.IntN(len(sampleGlobs))]
			if rng.IntN(3) == 0 {
				include = randomText(rng, append([]string{"src", "test", "node_modules", "x.go"}, globPieces...), 5)
			}
			var exclude []string
			for range rng.IntN(3) {
				exclude = append(exclude, sampleGlobs[rng.IntN(len(sampleGlobs))])
			}
			inc, err := compileGlob(include)
			if err != nil {
				continue
			}
			var want []string
			skip := "" // a directory excluded with all below it
			for _, en := range all {
				if skip != "" && strings.HasPrefix(en.rel, skip) {
					continue
				}
				skip = ""
				excluded := false
				for _, x := range exclude {
					re, _ := compileGlob(x)
					excluded = excluded || re.MatchString(en.rel)
					if strings.HasSuffix(x, "/**") && len(x) > 3 && en.typ == vfs.TypeDir {
						dir, _ := compileGlob(x[:len(x)-3])
						excluded = excluded || dir.MatchString(en.rel)
					}
				}
				if excluded {
					skip = en.rel + "/"
					continue
				}
				if include == "" || inc.MatchString(en.rel) {
					want = append(want, "/workspace/"+en.rel)
				}
			}
			limit := int64(100000)
			out, err := e.Find(ctx, toolspec.FindArgs{Path: "/workspace", Pattern: include, Exclude: exclude, Limit: &limit})
			if err != nil {
				t.Fatal(err)
			}
			var res toolspec.FindResult
			if err := json.Unmarshal(out.JSON, &res); err != nil {
				t.Fatalf("%s: %v", out.JSON, err)
			}
			var got []string
			for _, en := range res.Entries {
				got = append(got, en.Path)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("tree %d, find %q excluding %q:\n got %q\nwant %q", tree, include, exclude, got, want)
			}
			// A page of it, from an offset: the walk passes over the
			// entries before it and stops once the page is full.
			pageLimit, offset := int64(1+rng.IntN(5)), int64(rng.IntN(len(want)+2))
			out, err = e.Find(ctx, toolspec.FindArgs{Path: "/workspace", Pattern: include, Exclude: exclude, Limit: &pageLimit, Offset: &offset})
			if err != nil {
				t.Fatal(err)
			}
			res = toolspec.FindResult{}
			if err := json.Unmarshal(out.JSON, &res); err != nil {
				t.Fatalf("%s: %v", out.JSON, err)
			}
			got = got[:0]
			for _, en := range res.Entries {
				got = append(got, en.Path)
			}
			wantPage := want[min(int(offset), len(want)):]
			wantPage = wantPage[:min(len(wantPage), int(pageLimit))]
			if !slices.Equal(got, wantPage) || (res.NextOffset != nil) != (int(offset+pageLimit) < len(want)) {
				t.Fatalf("tree %d, find %q excluding %q, %d from %d:\n got %q (next %v)\nwant %q", tree, include, exclude, pageLimit, offset, got, res.NextOffset, wantPage)
			}
		}
	}
}

// TestGlobDFAAnchors checks "^" and "$" where a glob's translation never
// puts them (inside alternations, before more text): the automaton
// honours them as regexp does, so it stays right for any program it
// accepts.
func TestGlobDFAAnchors(t *testing.T) {
	for _, source := range []string{`(?:^|x)a`, `a(?:$|b)`, `a$b|ab`, `(?:x^)?a`, `^^a$$`, `a*(?:$|/)`, `(?:a$)*`} {
		re := regexp.MustCompile(`^(?:` + source + `)$`)
		parsed, err := syntax.Parse(source, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		d, err := newGlobDFA([]*syntax.Regexp{parsed})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"", "a", "xa", "ab", "b", "a/", "aa", "aa/", "xxa", "a$b"} {
			if got, want := d.matches(name), re.MatchString(name); got != want {
				t.Errorf("%s on %q: automaton %v, regexp %v", source, name, got, want)
			}
		}
	}
}
