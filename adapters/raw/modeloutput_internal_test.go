package raw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/toolspec"
)

// referenceModelOutput is ModelOutput as it was before it copied core's
// JSON as it is: the whole object through core.MarshalJSON, which checks
// and compacts the value again. The tests below compare with it.
func referenceModelOutput(o toolspec.Output) (out []byte, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return marshal(struct {
		Type  toolspec.OutputKind `json:"type"`
		Value json.RawMessage     `json:"value"`
	}{o.Kind, Value(o)}), false
}

func modelOutput(o toolspec.Output) (out []byte, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return ModelOutput(o), false
}

func compareModelOutput(t *testing.T, o toolspec.Output) {
	t.Helper()
	got, gotPanic := modelOutput(o)
	want, wantPanic := referenceModelOutput(o)
	if gotPanic != wantPanic || !bytes.Equal(got, want) {
		t.Fatalf("%+v:\n got %q (panic %v)\nwant %q (panic %v)", o, got, gotPanic, want, wantPanic)
	}
}

var outputJSONSeeds = []string{
	`{}`, `[]`, `null`, `1`, `"a"`, `{"path":"/workspace/a.txt","content":"a\nb","startLine":1}`, ` {}`, `{} `, `{"a": 1}`, "{\"a\":\n1}", `[1, 2]`,
	`{"a":"\u2028"}`, `{"a":"\u2029x"}`, `{"a":"\ufffd"}`, `{"a":"\u202F"}`, `{"a":"\\u2028"}`, `{"a":"\u003c&>"}`, "{\"a\":\"\u2028<>\"}",
	`{"a":"x"`, `{"a" "x"}`, ``, `{}{}`, `{} x`, "{\"a\":\"\xff\"}", `{"a":1e400}`, `{"a":-0.0E+1}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

var outputTextSeeds = []string{"", "a", "alpha\nbeta", "<&>", "\u2028\u2029", "\ufffd", "\xff\xfe", "tab\there", `quote " back \ slash`, "\x00\x1f\x7f", "é€😀"}

func TestModelOutputMatchesReference(t *testing.T) {
	for _, s := range outputJSONSeeds {
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(s)})
	}
	for _, s := range outputTextSeeds {
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputText, Text: s})
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputErrorText, Text: s})
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputContent, Text: s})
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputContent, Text: s, Media: &toolspec.Media{MediaType: "image/png", Filename: s, Data: []byte(s)}})
		b, err := core.MarshalJSON(toolspec.ReadResult{Path: s, Content: s})
		if err != nil {
			t.Fatal(err)
		}
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputJSON, JSON: b})
	}
}

// TestModelOutputMatchesReferenceOnRandomOutputs: JSON that core writes
// (random results) takes the copying path, and the same JSON spaced out,
// escaped differently or cut short takes the other; both answer as the
// reference does.
func TestModelOutputMatchesReferenceOnRandomOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	pieces := []string{"a", "/", "\n", "\t", "\"", "\\", "<", "&", "\u2028", "\u2029", "\ufffd", "\xff", "é", "😀", " ", "\x01", "u2028", "\\u2028"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 5000 {
		var entries []toolspec.GrepMatch
		for range rng.IntN(5) {
			entries = append(entries, toolspec.GrepMatch{Path: str(), Line: rng.Int64N(1000), Text: str()})
		}
		b, err := core.MarshalJSON(toolspec.GrepResult{Path: str(), Query: str(), Count: int64(len(entries)), Matches: entries})
		if err != nil {
			t.Fatal(err)
		}
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputJSON, JSON: b})
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputText, Text: str()})
		// The same JSON, altered at one byte.
		m := append([]byte(nil), b...)
		i := rng.IntN(len(m) + 1)
		alt := []string{" ", "\n", "\\u2028", "\\ufffd", "\\u003c", "}", ",", "x", ""}[rng.IntN(9)]
		m = append(m[:i], append([]byte(alt), m[i:]...)...)
		if rng.IntN(4) == 0 {
			m = m[:rng.IntN(len(m)+1)]
		}
		compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputJSON, JSON: m})
	}
}

func FuzzModelOutput(f *testing.F) {
	for _, s := range outputJSONSeeds {
		f.Add(true, []byte(s))
	}
	for _, s := range outputTextSeeds {
		f.Add(false, []byte(s))
	}
	f.Fuzz(func(t *testing.T, isJSON bool, b []byte) {
		if isJSON {
			compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputJSON, JSON: b})
		} else {
			compareModelOutput(t, toolspec.Output{Kind: toolspec.OutputText, Text: string(b)})
		}
	})
}

// BenchmarkModelOutput: the model output of an ls page (200 entries) and
// of a positioned read (a page of 2000 lines), by ModelOutput and by the
// reference encoding it replaced.
func BenchmarkModelOutput(b *testing.B) {
	var entries []toolspec.LsEntry
	for i := range 200 {
		entries = append(entries, toolspec.LsEntry{Name: fmt.Sprintf("file-%04d.txt", i), Size: 12345, Mtime: 1700000000000, IsFile: true})
	}
	ls, _ := core.MarshalJSON(toolspec.LsResult{Path: "/workspace/d", Count: 200, Entries: entries})
	var lines strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&lines, "%d: lorem ipsum dolor sit amet, \"consectetur\" adipiscing elit\n", i)
	}
	read, _ := core.MarshalJSON(toolspec.ReadResult{Path: "/workspace/a.txt", Content: lines.String(), StartLine: 1, EndLine: 2000})
	for _, tc := range []struct {
		name string
		o    toolspec.Output
	}{
		{"ls", toolspec.Output{Kind: toolspec.OutputJSON, JSON: ls}},
		{"read", toolspec.Output{Kind: toolspec.OutputJSON, JSON: read}},
		{"text", toolspec.Output{Kind: toolspec.OutputText, Text: lines.String()}},
	} {
		b.Run(tc.name+"/new", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ModelOutput(tc.o)
			}
		})
		b.Run(tc.name+"/old", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				referenceModelOutput(tc.o)
			}
		})
	}
}
