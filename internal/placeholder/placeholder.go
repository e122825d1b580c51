// Package placeholder reads the placeholders of the spec's texts, {name}
// and {name|format}. The generator (internal/toolgen) turns a text into Go
// code with it and package toolspec renders an overlay's description with
// it at run time, so that both read a text the same way.
//
// It imports only the standard library: package toolspec, which runs in
// every agent, imports it.
package placeholder

import (
	"regexp"
	"strings"
)

// Segment is a piece of a text: a literal (Arg empty), or a placeholder
// for the argument Arg, written with Format ("" for the argument's plain
// form).
type Segment struct {
	Literal string
	Arg     string
	Format  string
}

// Formats are the formats a placeholder may carry, each with the type of
// argument it takes ("int" or "string"): kb (bytes as whole KB, read's
// description), size (bytes as the reference's formatSize), json (a
// string quoted as JSON.stringify does), mode (a Unix file mode in octal).
var Formats = map[string]string{"kb": "int", "size": "int", "json": "string", "mode": "int"}

// FormatUnits are the units of the argument a format writes, for the
// formats that need one: kb and size write a count of bytes.
var FormatUnits = map[string]string{"kb": "bytes", "size": "bytes"}

// re matches one placeholder: an argument name of ASCII letters and
// digits, then an optional lower-case format after '|'.
var re = regexp.MustCompile(`\{([A-Za-z0-9]+)(\|[a-z]+)?\}`)

// Parse splits text into its literals and placeholders, in order. A brace
// that does not open a well-formed placeholder stays in a literal (see
// Stray). The format is not checked against Formats.
func Parse(text string) []Segment {
	var out []Segment
	rest := text
	for {
		loc := re.FindStringSubmatchIndex(rest)
		if loc == nil {
			if rest != "" {
				out = append(out, Segment{Literal: rest})
			}
			return out
		}
		if loc[0] > 0 {
			out = append(out, Segment{Literal: rest[:loc[0]]})
		}
		s := Segment{Arg: rest[loc[2]:loc[3]]}
		if loc[4] >= 0 {
			s.Format = rest[loc[4]+1 : loc[5]]
		}
		out = append(out, s)
		rest = rest[loc[1]:]
	}
}

// Stray is the first brace of segs' literals, '{' or '}', with the
// literal it is in; ok is false when there is none. Such a brace is a
// placeholder that is not well formed ("{", "{maxLines|KB}", "{a b}").
func Stray(segs []Segment) (brace byte, literal string, ok bool) {
	for _, s := range segs {
		if s.Arg == "" {
			if i := strings.IndexAny(s.Literal, "{}"); i >= 0 {
				return s.Literal[i], s.Literal, true
			}
		}
	}
	return 0, "", false
}
