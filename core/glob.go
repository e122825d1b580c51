package core

import (
	"regexp"
	"strings"
	"unicode/utf8"
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

func compileGlob(pattern string) *regexp.Regexp {
	return regexp.MustCompile("^" + globSource(pattern) + "$")
}

func globSource(pattern string) string {
	var re strings.Builder
	for i := 0; i < len(pattern); {
		c := pattern[i]
		if c == '{' {
			if parts, end, ok := braceAlternatives(pattern, i); ok {
				re.WriteString("(?:")
				for j, p := range parts {
					if j > 0 {
						re.WriteByte('|')
					}
					re.WriteString(globSource(p))
				}
				re.WriteByte(')')
				i = end + 1
				continue
			}
		}
		switch {
		case c == '*' && strings.HasPrefix(pattern[i:], "**/"):
			re.WriteString("(?:" + anyChar + "*/)?")
			i += 3
		case c == '*' && strings.HasPrefix(pattern[i:], "**"):
			re.WriteString(anyChar + "*")
			i += 2
		case c == '*':
			re.WriteString("[^/]*")
			i++
		case c == '?':
			re.WriteString("[^/]")
			i++
		default:
			_, size := utf8.DecodeRuneInString(pattern[i:])
			re.WriteString(regexp.QuoteMeta(pattern[i : i+size]))
			i += size
		}
	}
	return re.String()
}

// braceAlternatives reads the group opening at open: its top-level
// alternatives and the index of its closing brace. A group with one
// alternative, or no closing brace, is not a group.
func braceAlternatives(pattern string, open int) ([]string, int, bool) {
	var parts []string
	depth, start := 0, open+1
	for i := open + 1; i < len(pattern); i++ {
		switch pattern[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				parts = append(parts, pattern[start:i])
				return parts, i, len(parts) > 1
			}
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, pattern[start:i])
				start = i + 1
			}
		}
	}
	return nil, 0, false
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

// exclusion is one exclude pattern. "x/**" also excludes the directory x
// itself, so the walk never enters it.
type exclusion struct {
	re      *regexp.Regexp
	dirOnly bool
}

func exclusions(globs []string) []exclusion {
	var out []exclusion
	for _, g := range globs {
		if g == "" {
			continue
		}
		out = append(out, exclusion{re: compileGlob(g)})
		if strings.HasSuffix(g, "/**") && len(g) > 3 {
			out = append(out, exclusion{re: compileGlob(g[:len(g)-3]), dirOnly: true})
		}
	}
	return out
}
