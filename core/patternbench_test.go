package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// patternTree is a workspace of 300 files in 30 directories, each file
// 200 lines of text.
func patternTree(b *testing.B) *core.Executor {
	ws := vfs.New(memfs.New())
	var text strings.Builder
	for i := range 200 {
		fmt.Fprintf(&text, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	for d := range 30 {
		for f := range 10 {
			p := fmt.Sprintf("/workspace/dir%02d/file%02d.txt", d, f)
			if err := ws.WriteFile(b.Context(), p, []byte(text.String()), vfs.WriteOptions{CreateParents: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ex
}

// worstGlobs are the costliest globs of each shape that the
// argument cap allows (toolspec.WorkspaceMaxPathBytesDefault bytes).
func worstGlobs() map[string]string {
	limit := int(toolspec.WorkspaceMaxPathBytesDefault)
	nested := strings.Repeat("{a,", int(toolspec.WorkspaceMaxGlobDepthDefault)) + "b" + strings.Repeat("}", int(toolspec.WorkspaceMaxGlobDepthDefault))
	alts := make([]string, 0, limit/2)
	for i := 0; 2*len(alts)+2 < limit; i++ {
		alts = append(alts, string(rune('a'+i%26)))
	}
	return map[string]string{
		"stars":        strings.Repeat("*", limit),
		"starSegments": strings.Repeat("*a", limit/2),
		"questions":    strings.Repeat("?", limit),
		"globstarDirs": strings.Repeat("**/", limit/3),
		"braces":       "{" + strings.Join(alts, ",") + "}",
		"nestedBraces": strings.Repeat(nested, limit/len(nested)),
	}
}

// BenchmarkFindWorstPattern is find with the costliest glob of each shape
// within the argument cap, over 300 files.
func BenchmarkFindWorstPattern(b *testing.B) {
	ex := patternTree(b)
	for name, pattern := range worstGlobs() {
		b.Run(name, func(b *testing.B) {
			args := findArgs(toolspec.FindArgs{Path: "/workspace", Pattern: pattern})
			benchCall(b, ex, toolspec.ToolFind, args, func(out string) bool { return strings.Contains(out, `"entries":`) })
		})
	}
}

// BenchmarkGrepWorstQuery is grep with a 64 KiB query over 300 files of
// 200 lines: a regular expression of 16 Ki three-letter alternatives, and
// the same text as a literal.
func BenchmarkGrepWorstQuery(b *testing.B) {
	ex := patternTree(b)
	var alts []string
	for i := 0; len(alts)*4 < int(toolspec.GrepMaxQueryBytesDefault)-4; i++ {
		alts = append(alts, fmt.Sprintf("%c%c%c", 'a'+i%26, 'a'+i/26%26, 'A'+i/676%26))
	}
	regex := strings.Join(alts, "|")
	truth := true
	for _, c := range []struct {
		name string
		args toolspec.GrepArgs
	}{
		{"alternation", toolspec.GrepArgs{Path: "/workspace", Query: regex, Regex: &truth, Limit: new(int64(1000))}},
		{"literal", toolspec.GrepArgs{Path: "/workspace", Query: regex}},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchCall(b, ex, toolspec.ToolGrep, grepArgs(c.args), func(out string) bool { return strings.Contains(out, `"matches":`) })
		})
	}
}
