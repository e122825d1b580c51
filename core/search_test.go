package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

func findArgs(a toolspec.FindArgs) string {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func grepArgs(a toolspec.GrepArgs) string {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// findPaths runs find and returns the entries' paths relative to dir,
// with a "/" after directories.
func findPaths(t *testing.T, ex *core.Executor, a toolspec.FindArgs) []string {
	t.Helper()
	out := call(t, ex, toolspec.ToolFind, findArgs(a))
	var res toolspec.FindResult
	if out.Kind != toolspec.OutputJSON || json.Unmarshal(out.JSON, &res) != nil || res.Entries == nil {
		t.Fatalf("find %+v: %+v", a, viewOf(out))
	}
	if res.Count != int64(len(res.Entries)) {
		t.Errorf("count %d for %d entries", res.Count, len(res.Entries))
	}
	paths := []string{}
	for _, e := range res.Entries {
		p := strings.TrimPrefix(e.Path, a.Path+"/")
		if e.Type == vfs.TypeDir.String() {
			p += "/"
		}
		paths = append(paths, p)
	}
	return paths
}

// TestFindGlobDialect checks the reference's glob dialect. The expected
// lists are what the reference answers for the same tree, except where
// ? meets a character outside the BMP (deviation globQuestionMark).
func TestFindGlobDialect(t *testing.T) {
	files := map[string]string{}
	for _, f := range []string{"a.ts", "a.txt", "b.js", "c.ts", "src/a.ts", "src/deep/b.ts", "xab", "x1/zb",
		"é.txt", "😀.txt", "ab.txt", "[abc].txt", "{a.ts", "{a}.ts", "back\\slash", "line\nbreak"} {
		files["/workspace/"+f] = "x\n"
	}
	ex := newExec(t, core.Options{}, files)
	all := []string{"[abc].txt", "a.ts", "a.txt", "ab.txt", "b.js", "back\\slash", "c.ts", "line\nbreak", "src/", "src/a.ts", "src/deep/",
		"src/deep/b.ts", "x1/", "x1/zb", "xab", "{a.ts", "{a}.ts", "é.txt", "😀.txt"}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"", all},
		{"**", slices.DeleteFunc(slices.Clone(all), func(p string) bool { return strings.Contains(p, "\n") })}, // ** is JavaScript's ".*"
		{"**/*", all},
		{"*", []string{"[abc].txt", "a.ts", "a.txt", "ab.txt", "b.js", "back\\slash", "c.ts", "line\nbreak", "src/", "x1/", "xab", "{a.ts", "{a}.ts", "é.txt", "😀.txt"}},
		{"*.ts", []string{"a.ts", "c.ts", "{a.ts", "{a}.ts"}},
		{"*.TS", []string{}},
		{"**/*.ts", []string{"a.ts", "c.ts", "src/a.ts", "src/deep/b.ts", "{a.ts", "{a}.ts"}},
		{"*/**/*.ts", []string{"src/a.ts", "src/deep/b.ts"}},
		{"src/**", []string{"src/a.ts", "src/deep/", "src/deep/b.ts"}},
		{"src/*", []string{"src/a.ts", "src/deep/"}},
		{"src/**/b.ts", []string{"src/deep/b.ts"}},
		{"src", []string{"src/"}},
		{"**/", []string{}},
		{"x**b", []string{"x1/zb", "xab"}},
		{"a.t?", []string{"a.ts"}},
		{"?.txt", []string{"a.txt", "é.txt", "😀.txt"}}, // the reference: not 😀.txt
		{"??.txt", []string{"ab.txt"}},                 // the reference: also 😀.txt
		{"{a,b}.*", []string{"a.ts", "a.txt", "b.js"}},
		{"{a,{b,c}}.{ts,js}", []string{"a.ts", "b.js", "c.ts"}},
		{"{,src/}a.ts", []string{"a.ts", "src/a.ts"}},
		{"{a.ts", []string{"{a.ts"}},
		{"{a}.ts", []string{"{a}.ts"}},
		{"[abc].txt", []string{"[abc].txt"}},
		{"back\\slash", []string{"back\\slash"}},
		{"a.ts|b.js", []string{}},
		{"(a).ts", []string{}},
		{"line*", []string{"line\nbreak"}}, // * and ? match a line break, as [^/] does in JavaScript
		{"line?break", []string{"line\nbreak"}},
		{"line**", []string{}}, // ** does not cross a line break, like JavaScript's ".*"
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			got := findPaths(t, ex, toolspec.FindArgs{Path: "/workspace", Pattern: tt.pattern, Limit: ptr(int64(1000))})
			if !slices.Equal(got, tt.want) {
				t.Errorf("find %q:\n got %q\nwant %q", tt.pattern, got, tt.want)
			}
		})
	}
}

// TestFindPaging: entries page in walk order, nextOffset continues.
func TestFindPaging(t *testing.T) {
	ex := newExec(t, core.Options{}, map[string]string{"/workspace/a": "", "/workspace/b/c": "", "/workspace/d": ""})
	entry := func(p string, typ vfs.FileType) toolspec.FindEntry {
		return toolspec.FindEntry{Path: p, Type: typ.String()}
	}
	tests := []struct {
		args toolspec.FindArgs
		want toolspec.FindResult
	}{
		{toolspec.FindArgs{Path: "/workspace", Pattern: "**", Limit: ptr(int64(2))}, toolspec.FindResult{Path: "/workspace", Pattern: "**", Count: 2,
			Entries: []toolspec.FindEntry{entry("/workspace/a", vfs.TypeFile), entry("/workspace/b", vfs.TypeDir)}, NextOffset: ptr(int64(2))}},
		{toolspec.FindArgs{Path: "/workspace", Pattern: "**", Limit: ptr(int64(2)), Offset: ptr(int64(2))}, toolspec.FindResult{Path: "/workspace", Pattern: "**", Count: 2,
			Entries: []toolspec.FindEntry{entry("/workspace/b/c", vfs.TypeFile), entry("/workspace/d", vfs.TypeFile)}}},
		{toolspec.FindArgs{Path: "/workspace", Pattern: "**", Offset: ptr(int64(9))}, toolspec.FindResult{Path: "/workspace", Pattern: "**", Entries: []toolspec.FindEntry{}}},
		{toolspec.FindArgs{Path: "/workspace/./b/", Pattern: "*"}, toolspec.FindResult{Path: "/workspace/./b/", Pattern: "*", Count: 1,
			Entries: []toolspec.FindEntry{entry("/workspace/b/c", vfs.TypeFile)}}},
	}
	for _, tt := range tests {
		checkOutput(t, call(t, ex, toolspec.ToolFind, findArgs(tt.args)), jsonOut(tt.want))
	}
	checkOutput(t, call(t, ex, toolspec.ToolFind, `{"path":"/workspace/nope","pattern":"*"}`), errJSON(toolspec.MsgNoSuchPath("/workspace/nope")))
	checkOutput(t, call(t, ex, toolspec.ToolFind, `{"path":"/workspace/a","pattern":"*"}`), errJSON(toolspec.MsgNotDirectory("/workspace/a")))
}

// TestExcludePrunes: an excluded directory is not read at all, by find
// or by grep.
func TestExcludePrunes(t *testing.T) {
	spy := &spyStore{Store: memfs.New()}
	ex := newExecOn(t, spy, core.Options{}, map[string]string{
		"/workspace/node_modules/pkg/index.js": "needle\n",
		"/workspace/.git/config":               "needle\n",
		"/workspace/src/.git/HEAD":             "needle\n",
		"/workspace/src/a.js":                  "needle\n",
	})
	forbidden := []string{"workspace/node_modules", "workspace/node_modules/pkg", "workspace/.git", "workspace/src/.git"}
	tests := []struct {
		name    string
		exclude toolspec.StringList
	}{
		{"dir/** patterns", toolspec.StringList{"node_modules/**", "**/.git/**"}},
		{"directory names", toolspec.StringList{"node_modules", "**/.git"}},
		{"one group", toolspec.StringList{"{node_modules,**/.git}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spy.reset()
			got := findPaths(t, ex, toolspec.FindArgs{Path: "/workspace", Pattern: "**", Exclude: tt.exclude})
			if want := []string{"src/", "src/a.js"}; !slices.Equal(got, want) {
				t.Errorf("find: got %q, want %q", got, want)
			}
			for _, d := range forbidden {
				if slices.Contains(spy.listed(), d) {
					t.Errorf("find listed the excluded %s (listed %q)", d, spy.listed())
				}
			}

			spy.reset()
			out := call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: "/workspace", Query: "needle", Exclude: tt.exclude}))
			checkOutput(t, out, jsonOut(toolspec.GrepResult{Path: "/workspace", Query: "needle", Count: 1,
				Matches: []toolspec.GrepMatch{{Path: "/workspace/src/a.js", Line: 1, Text: "needle"}}}))
			if opened := spy.opened(); !slices.Equal(opened, []string{"workspace/src/a.js"}) {
				t.Errorf("grep opened %q, want only workspace/src/a.js", opened)
			}
			for _, d := range forbidden {
				if slices.Contains(spy.listed(), d) {
					t.Errorf("grep listed the excluded %s (listed %q)", d, spy.listed())
				}
			}
		})
	}

	// A file named explicitly is searched whatever exclude says, as in the
	// reference.
	out := call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: "/workspace/.git/config", Query: "needle", Exclude: toolspec.StringList{"**"}}))
	checkOutput(t, out, jsonOut(toolspec.GrepResult{Path: "/workspace/.git/config", Query: "needle", Count: 1,
		Matches: []toolspec.GrepMatch{{Path: "/workspace/.git/config", Line: 1, Text: "needle"}}}))
}

// TestSearchStopsEarly: a full page ends the walk; the rest of the tree
// is neither listed nor read.
func TestSearchStopsEarly(t *testing.T) {
	spy := &spyStore{Store: memfs.New()}
	files := map[string]string{}
	for d := range 10 {
		for f := range 10 {
			files[fmt.Sprintf("/workspace/d%d/f%d", d, f)] = "x\n"
		}
	}
	ex := newExecOn(t, spy, core.Options{}, files)

	spy.reset()
	out := call(t, ex, toolspec.ToolFind, findArgs(toolspec.FindArgs{Path: "/workspace", Pattern: "**", Limit: ptr(int64(1))}))
	checkOutput(t, out, jsonOut(toolspec.FindResult{Path: "/workspace", Pattern: "**", Count: 1,
		Entries: []toolspec.FindEntry{{Path: "/workspace/d0", Type: vfs.TypeDir.String()}}, NextOffset: ptr(int64(1))}))
	if n := len(spy.listed()); n > 2 {
		t.Errorf("find limit 1 listed %d directories of 11 (%q); want at most 2", n, spy.listed())
	}

	spy.reset()
	out = call(t, ex, toolspec.ToolFind, findArgs(toolspec.FindArgs{Path: "/workspace", Pattern: "d1/*", Limit: ptr(int64(1))}))
	checkOutput(t, out, jsonOut(toolspec.FindResult{Path: "/workspace", Pattern: "d1/*", Count: 1,
		Entries: []toolspec.FindEntry{{Path: "/workspace/d1/f0", Type: vfs.TypeFile.String()}}, NextOffset: ptr(int64(1))}))
	if n := len(spy.listed()); n > 3 {
		t.Errorf("find d1/* limit 1 listed %d directories (%q); want at most 3", n, spy.listed())
	}

	spy.reset()
	out = call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: "/workspace", Query: "x", Limit: ptr(int64(1))}))
	checkOutput(t, out, jsonOut(toolspec.GrepResult{Path: "/workspace", Query: "x", Count: 1,
		Matches: []toolspec.GrepMatch{{Path: "/workspace/d0/f0", Line: 1, Text: "x"}}, NextOffset: ptr(int64(1))}))
	if n := len(spy.opened()); n > 2 {
		t.Errorf("grep limit 1 opened %d files of 100 (%q); want at most 2", n, spy.opened())
	}
}

// TestGrepPaging: context lines, limit, offset and nextOffset, as the
// reference answers them for the same files.
func TestGrepPaging(t *testing.T) {
	ex := newExec(t, core.Options{}, map[string]string{
		"/workspace/g.txt":   "a\nmatch 1\nb\nc\nmatch 2\nmatch 3\nd\n",
		"/workspace/m/a.txt": "x1\ny\nx2\n",
		"/workspace/m/b.txt": "x3\nx4\n",
	})
	const g = "/workspace/g.txt"
	cl := func(line int64, text string, isMatch bool) toolspec.GrepContextLine {
		return toolspec.GrepContextLine{Line: line, Text: text, IsMatch: isMatch}
	}
	m1 := toolspec.GrepMatch{Path: g, Line: 2, Text: "match 1", Context: []toolspec.GrepContextLine{cl(1, "a", false), cl(2, "match 1", true), cl(3, "b", false)}}
	m2 := toolspec.GrepMatch{Path: g, Line: 5, Text: "match 2", Context: []toolspec.GrepContextLine{cl(4, "c", false), cl(5, "match 2", true), cl(6, "match 3", true)}}
	m3 := toolspec.GrepMatch{Path: g, Line: 6, Text: "match 3", Context: []toolspec.GrepContextLine{cl(5, "match 2", true), cl(6, "match 3", true), cl(7, "d", false)}}
	x := func(file string, line int64, text string) toolspec.GrepMatch {
		return toolspec.GrepMatch{Path: "/workspace/m/" + file, Line: line, Text: text}
	}
	tests := []struct {
		name string
		args toolspec.GrepArgs
		want toolspec.GrepResult
	}{
		{"context 1", toolspec.GrepArgs{Path: g, Query: "match", Context: ptr(int64(1))},
			toolspec.GrepResult{Path: g, Query: "match", Count: 3, Matches: []toolspec.GrepMatch{m1, m2, m3}}},
		{"context 1, limit 2", toolspec.GrepArgs{Path: g, Query: "match", Context: ptr(int64(1)), Limit: ptr(int64(2))},
			toolspec.GrepResult{Path: g, Query: "match", Count: 2, Matches: []toolspec.GrepMatch{m1, m2}, NextOffset: ptr(int64(2))}},
		{"context 1, limit 2, offset 2", toolspec.GrepArgs{Path: g, Query: "match", Context: ptr(int64(1)), Limit: ptr(int64(2)), Offset: ptr(int64(2))},
			toolspec.GrepResult{Path: g, Query: "match", Count: 1, Matches: []toolspec.GrepMatch{m3}}},
		{"context 2 overlapping", toolspec.GrepArgs{Path: g, Query: "match 1", Context: ptr(int64(2))},
			toolspec.GrepResult{Path: g, Query: "match 1", Count: 1, Matches: []toolspec.GrepMatch{{Path: g, Line: 2, Text: "match 1",
				Context: []toolspec.GrepContextLine{cl(1, "a", false), cl(2, "match 1", true), cl(3, "b", false), cl(4, "c", false)}}}}},
		{"context 0 has no context", toolspec.GrepArgs{Path: g, Query: "match 3", Context: ptr(int64(0))},
			toolspec.GrepResult{Path: g, Query: "match 3", Count: 1, Matches: []toolspec.GrepMatch{{Path: g, Line: 6, Text: "match 3"}}}},
		{"across files, limit 2", toolspec.GrepArgs{Path: "/workspace/m", Query: "x", Limit: ptr(int64(2))},
			toolspec.GrepResult{Path: "/workspace/m", Query: "x", Count: 2, Matches: []toolspec.GrepMatch{x("a.txt", 1, "x1"), x("a.txt", 3, "x2")}, NextOffset: ptr(int64(2))}},
		{"across files, offset 2", toolspec.GrepArgs{Path: "/workspace/m", Query: "x", Limit: ptr(int64(2)), Offset: ptr(int64(2))},
			toolspec.GrepResult{Path: "/workspace/m", Query: "x", Count: 2, Matches: []toolspec.GrepMatch{x("b.txt", 1, "x3"), x("b.txt", 2, "x4")}}},
		{"context at a file's end", toolspec.GrepArgs{Path: "/workspace/m", Query: "x", Limit: ptr(int64(1)), Offset: ptr(int64(1)), Context: ptr(int64(1))},
			toolspec.GrepResult{Path: "/workspace/m", Query: "x", Count: 1, Matches: []toolspec.GrepMatch{{Path: "/workspace/m/a.txt", Line: 3, Text: "x2",
				Context: []toolspec.GrepContextLine{cl(2, "y", false), cl(3, "x2", true)}}}, NextOffset: ptr(int64(2))}},
		{"include", toolspec.GrepArgs{Path: "/workspace", Query: "x", Include: toolspec.StringList{"**/b.*"}},
			toolspec.GrepResult{Path: "/workspace", Query: "x", Count: 2, Matches: []toolspec.GrepMatch{x("b.txt", 1, "x3"), x("b.txt", 2, "x4")}}},
		{"include list", toolspec.GrepArgs{Path: "/workspace", Query: "x", Include: toolspec.StringList{"m/a.txt", " ", "m/b.txt"}, Limit: ptr(int64(3))},
			toolspec.GrepResult{Path: "/workspace", Query: "x", Count: 3, Matches: []toolspec.GrepMatch{x("a.txt", 1, "x1"), x("a.txt", 3, "x2"), x("b.txt", 1, "x3")}, NextOffset: ptr(int64(3))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, call(t, ex, toolspec.ToolGrep, grepArgs(tt.args)), jsonOut(tt.want))
		})
	}
}

// TestGrepRegex: JavaScript's meaning of ".", \s, \S and \uXXXX carried
// over to RE2, checked against the reference's answers. One difference
// stays (deviation regexEngine): RE2 matches characters, so "." and \S
// match 😀, where the reference's non-Unicode RegExp sees two UTF-16
// code units and does not.
func TestGrepRegex(t *testing.T) {
	// One line per probe character c, "a" c "b".
	probes := []string{"\r", "x", "\u00a0", "\v", "\t", " ", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f",
		"\u205f", "\u3000", "\ufeff", "\u200b", "\u180e", "\ufffd", "😀", "\x00", "\x1f", "!", "é"}
	var content strings.Builder
	for _, c := range probes {
		content.WriteString("a" + c + "b\n")
	}
	content.WriteString("A\n")
	const path = "/workspace/r.txt"
	ex := newExec(t, core.Options{}, map[string]string{path: content.String()})
	lineOf := func(c string) int64 { return int64(slices.Index(probes, c) + 1) }
	spaces := []string{"\r", "\u00a0", "\v", "\t", " ", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"}
	var nonSpaces []string
	for _, c := range probes {
		if !slices.Contains(spaces, c) {
			nonSpaces = append(nonSpaces, c)
		}
	}
	lines := func(cs ...string) []int64 {
		var out []int64
		for _, c := range cs {
			out = append(out, lineOf(c))
		}
		slices.Sort(out)
		return out
	}
	notLineBreaks := slices.DeleteFunc(slices.Clone(probes), func(c string) bool { return c == "\r" || c == "\u2028" || c == "\u2029" })
	tests := []struct {
		query      string
		ignoreCase bool
		want       []int64
	}{
		{"a.b", false, lines(notLineBreaks...)},
		{`a\sb`, false, lines(spaces...)},
		{`a[\s]b`, false, lines(spaces...)},
		{`a[^\S]b`, false, lines(spaces...)},
		{`a\Sb`, false, lines(nonSpaces...)},
		{`a[\S]b`, false, lines(nonSpaces...)},
		{`a[^\s]b`, false, lines(nonSpaces...)},
		{`a[\sx]b`, false, lines(append([]string{"x"}, spaces...)...)},
		{`a[\S\r]b`, false, lines(append([]string{"\r"}, nonSpaces...)...)},
		{`\u0041`, false, []int64{int64(len(probes) + 1)}},
		{`a\u00A0b`, false, lines("\u00a0")},
		{`^A$`, false, []int64{int64(len(probes) + 1)}},
		{`a[.]b`, false, nil},
		{`a\.b`, false, nil},
		{`a\\.b`, false, nil},
		{`A\Sb`, true, lines(nonSpaces...)},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			out := call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: path, Query: tt.query, Regex: ptr(true), IgnoreCase: ptr(tt.ignoreCase), Limit: ptr(int64(1000))}))
			var res toolspec.GrepResult
			if out.Kind != toolspec.OutputJSON || json.Unmarshal(out.JSON, &res) != nil || res.Matches == nil {
				t.Fatalf("grep: %+v", viewOf(out))
			}
			var got []int64
			for _, m := range res.Matches {
				got = append(got, m.Line)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("grep %q matched lines %v, want %v", tt.query, got, tt.want)
			}
		})
	}

	// Without regex, the query is literal, with or without ignoreCase.
	checkOutput(t, call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: path, Query: "A.B", IgnoreCase: ptr(true)})),
		jsonOut(toolspec.GrepResult{Path: path, Query: "A.B", Matches: []toolspec.GrepMatch{}}))
	checkOutput(t, call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: path, Query: "AXB", IgnoreCase: ptr(true)})),
		jsonOut(toolspec.GrepResult{Path: path, Query: "AXB", Count: 1, Matches: []toolspec.GrepMatch{{Path: path, Line: lineOf("x"), Text: "axb"}}}))
}

// TestGrepRefusesPatterns: what RE2 cannot run in linear time is refused
// with a reason (deviation regexEngine), and an invalid pattern says why.
func TestGrepRefusesPatterns(t *testing.T) {
	ex := newExec(t, core.Options{}, map[string]string{"/workspace/a.txt": "ab\n"})
	tests := []struct {
		query string
		want  string
	}{
		{"a(?=b)", toolspec.MsgGrepLookaround("(?=")},
		{"(?=b)", toolspec.MsgGrepLookaround("(?=")},
		{"a(?!c)", toolspec.MsgGrepLookaround("(?!")},
		{"(?<=a)b", toolspec.MsgGrepLookaround("(?<=")},
		{"(?<!c)b", toolspec.MsgGrepLookaround("(?<!")},
		{`(a)\1`, toolspec.MsgGrepBackreference(`\1`)},
		{`(a)(b)\2`, toolspec.MsgGrepBackreference(`\2`)},
		{`(?<x>a)\k<x>`, toolspec.MsgGrepBackreference(`\k<`)},
		{"(", "missing closing ): `(`"},
		{"a**", "invalid nested repetition operator: `**`"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			out := call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: "/workspace", Query: tt.query, Regex: ptr(true)}))
			checkOutput(t, out, errJSON(toolspec.MsgGrepInvalidRegex(tt.want)))
		})
	}

	// The same text is fine as a literal, and escaped or in a class.
	for _, q := range []string{`\(?=b\)`, `[(]?=b`, `(?:a)b`, `(?<name>a)b`, `\\1`} {
		out := call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: "/workspace", Query: q, Regex: ptr(true)}))
		if out.IsError() {
			t.Errorf("grep %q: %s", q, out.JSON)
		}
	}
	out := call(t, ex, toolspec.ToolGrep, grepArgs(toolspec.GrepArgs{Path: "/workspace", Query: "(?=b)"}))
	checkOutput(t, out, jsonOut(toolspec.GrepResult{Path: "/workspace", Query: "(?=b)", Matches: []toolspec.GrepMatch{}}))
}

// TestGrepCatastrophicPattern: a pattern that backtracking engines take
// exponential time over finishes; the deadline only keeps a regression
// from hanging the test run.
func TestGrepCatastrophicPattern(t *testing.T) {
	ex := newExec(t, core.Options{}, map[string]string{"/workspace/a.txt": strings.Repeat("a", 10000) + "!\n"})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for _, q := range []string{"(a+)+$", "(a|aa)+$", "(a*)*b"} {
		out, err := ex.Call(ctx, toolspec.ToolGrep, []byte(grepArgs(toolspec.GrepArgs{Path: "/workspace/a.txt", Query: q, Regex: ptr(true)})))
		if err != nil {
			t.Fatalf("grep %q: %v", q, err)
		}
		checkOutput(t, out, jsonOut(toolspec.GrepResult{Path: "/workspace/a.txt", Query: q, Matches: []toolspec.GrepMatch{}}))
	}
}
