package core

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// The reference's glob dialect, matched against a path relative to the
// searched directory:
//
//	*      any run of characters within one path segment
//	**     any run of characters across segments; "**/" also matches no
//	       segment at all ("**/*.ts" matches "a.ts")
//	?      one character other than "/" (one Unicode character; the
//	       reference counts UTF-16 code units: deviation globQuestionMark)
//	{a,b}  either alternative; groups nest; a brace without a top-level
//	       comma or without its closing brace is literal
//
// Every other character is literal, "[", "]" and "\" included. Like the
// reference's JavaScript patterns, "*" and "**" do not cross a line
// break (\n, \r, U+2028, U+2029) in a name.

// anyChar is JavaScript's "." without the s flag.
const anyChar = `[^\n\r\x{2028}\x{2029}]`

// globRegexp is the RE2 source of a glob, anchored at both ends. A run of
// stars becomes at most two quantified pieces, so the matcher's work per
// character of a name does not grow with the run's length.
func globRegexp(pattern string) (string, error) {
	g := globParser{pattern: pattern, groups: braceGroups(pattern)}
	var re strings.Builder
	re.WriteString("^")
	if err := g.source(&re, 0, len(pattern), 0); err != nil {
		return "", err
	}
	re.WriteString("$")
	return re.String(), nil
}

// parseGlob parses a glob's RE2 translation (globRegexp) as regexp
// would compile it. It fails, rather than panics, when the braces nest
// deeper than toolspec.WorkspaceMaxGlobDepthDefault or RE2 refuses the
// translation, with the words regexp.Compile's failure has; it runs in
// time linear in the pattern's length.
func parseGlob(pattern string) (*syntax.Regexp, error) {
	source, err := globRegexp(pattern)
	if err != nil {
		return nil, err
	}
	re, err := syntax.Parse(source, syntax.Perl)
	if err != nil {
		return nil, errno.New(errno.EINVAL, toolspec.MsgInvalidGlob(strings.TrimPrefix(err.Error(), "error parsing regexp: ")), "")
	}
	return re, nil
}

// globMatcher is the automaton that matches a path when any of the
// parsed globs (parseGlob) matches it; nil for none.
func globMatcher(globs []*syntax.Regexp) (*globDFA, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	d, err := newGlobDFA(globs)
	if err != nil {
		return nil, errno.New(errno.EINVAL, toolspec.MsgInvalidGlob(err.Error()), "")
	}
	return d, nil
}

// braceGroup is a brace pair that forms alternatives: the index of its
// closing brace and of its top-level commas.
type braceGroup struct {
	end    int
	commas []int
}

// braceGroups matches braces in one pass, as the reference reads them:
// a "{" pairs with the first "}" at which the braces between balance. A
// pair with no top-level comma is not a group; an unclosed "{" and a
// stray "}" are literal.
func braceGroups(p string) map[int]braceGroup {
	type open struct {
		at     int
		commas []int
	}
	var stack []open
	groups := map[int]braceGroup{}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			stack = append(stack, open{at: i})
		case ',':
			if len(stack) > 0 {
				stack[len(stack)-1].commas = append(stack[len(stack)-1].commas, i)
			}
		case '}':
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(top.commas) > 0 {
				groups[top.at] = braceGroup{end: i, commas: top.commas}
			}
		}
	}
	return groups
}

type globParser struct {
	pattern string
	groups  map[int]braceGroup
}

// The RE2 pieces of "**/" and "**". A run of them matches what one
// piece matches: anyRun when the run holds a "**" not followed by "/"
// (anyChar takes "/", so anyRun swallows an anyDirs beside it), else
// anyDirs. source writes that one piece for the run ("****", "**/**/",
// "****/" repeated).
const (
	anyDirs = "(?:" + anyChar + "*/)?"
	anyRun  = anyChar + "*"
)

// source writes the RE2 source for pattern[from:to].
func (g globParser) source(re *strings.Builder, from, to, depth int) error {
	p := g.pattern
	run := "" // the piece standing for the run of "**/" and "**" just read
	for i := from; i < to; {
		c := p[i]
		switch {
		case c == '*' && strings.HasPrefix(p[i:to], "**/"):
			if run == "" {
				run = anyDirs
			}
			i += 3
			continue
		case c == '*' && strings.HasPrefix(p[i:to], "**"):
			run = anyRun
			i += 2
			continue
		}
		re.WriteString(run)
		run = ""
		if group, ok := g.groups[i]; ok && c == '{' && group.end < to {
			if int64(depth) >= toolspec.WorkspaceMaxGlobDepthDefault {
				return errno.New(errno.EINVAL, toolspec.MsgInvalidGlob(toolspec.MsgGlobTooDeep(toolspec.WorkspaceMaxGlobDepthDefault)), "")
			}
			re.WriteString("(?:")
			start := i + 1
			for _, comma := range append(group.commas, group.end) {
				if start > i+1 {
					re.WriteByte('|')
				}
				if err := g.source(re, start, comma, depth+1); err != nil {
					return err
				}
				start = comma + 1
			}
			re.WriteByte(')')
			i = group.end + 1
			continue
		}
		switch {
		case c == '*':
			re.WriteString("[^/]*")
			i++
		case c == '?':
			re.WriteString("[^/]")
			i++
		default:
			_, size := utf8.DecodeRuneInString(p[i:to])
			re.WriteString(regexp.QuoteMeta(p[i : i+size]))
			i += size
		}
	}
	re.WriteString(run)
	return nil
}

// globList is the list form of an include or exclude argument, blank
// patterns dropped; nil when nothing is left.
func globList(l []string) []string {
	var out []string
	for _, g := range l {
		if strings.TrimFunc(g, isJSSpace) != "" {
			out = append(out, g)
		}
	}
	return out
}

// globOne joins several include patterns into one group, as the reference
// does.
func globOne(l []string) string {
	l = globList(l)
	switch len(l) {
	case 0:
		return ""
	case 1:
		return l[0]
	}
	return "{" + strings.Join(l, ",") + "}"
}

// exclusions compiles exclude patterns into two automata: ex matches a
// path any pattern matches; dirs matches a directory that "x/**"
// excludes as well, x itself, so the walk never enters it. Either is
// nil when it has nothing to match. Failures are compileGlob's, the
// first pattern's first.
func exclusions(globs []string) (ex, dirs *globDFA, err error) {
	var all, dirOnly []*syntax.Regexp
	for _, g := range globs {
		if g == "" {
			continue
		}
		re, err := parseGlob(g)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, re)
		if strings.HasSuffix(g, "/**") && len(g) > 3 {
			re, err := parseGlob(g[:len(g)-3])
			if err != nil {
				return nil, nil, err
			}
			dirOnly = append(dirOnly, re)
		}
	}
	if ex, err = globMatcher(all); err != nil {
		return nil, nil, err
	}
	if dirs, err = globMatcher(dirOnly); err != nil {
		return nil, nil, err
	}
	return ex, dirs, nil
}
