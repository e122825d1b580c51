package core

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/toolspec"
)

// argTools are the decoders of every tool, exec with every parameter
// (two backends, one callable), with a fresh argument struct each.
func argTools() []struct {
	d    argDecoder
	args func() any
} {
	newArgs := map[string]func() any{
		toolspec.ToolRead:   func() any { return new(toolspec.ReadArgs) },
		toolspec.ToolLs:     func() any { return new(toolspec.LsArgs) },
		toolspec.ToolFind:   func() any { return new(toolspec.FindArgs) },
		toolspec.ToolGrep:   func() any { return new(toolspec.GrepArgs) },
		toolspec.ToolWrite:  func() any { return new(toolspec.WriteArgs) },
		toolspec.ToolEdit:   func() any { return new(toolspec.EditArgs) },
		toolspec.ToolDelete: func() any { return new(toolspec.DeleteArgs) },
		toolspec.ToolExec:   func() any { return new(toolspec.ExecArgs) },
	}
	var out []struct {
		d    argDecoder
		args func() any
	}
	for _, info := range toolspec.Tools {
		d := argDecoder{tool: info.Name, params: info.Params, rules: info.Rules}
		if info.Name == toolspec.ToolExec {
			d.params, d.enums = toolspec.ExecParams, map[string][]string{"backend": {"a", "b"}}
		}
		if newArgs[info.Name] == nil {
			continue
		}
		out = append(out, struct {
			d    argDecoder
			args func() any
		}{d, newArgs[info.Name]})
	}
	return out
}

// compareDecoders decodes text with argDecoder and with the reference
// (oldArgDecoder) and reports any difference: accepted by one only, a
// different error text or problem list, a different struct.
func compareDecoders(t *testing.T, d argDecoder, newArgs func() any, text []byte) {
	t.Helper()
	gotArgs, wantArgs := newArgs(), newArgs()
	got := d.decode(text, gotArgs)
	want := oldArgDecoder(d).oldDecode(text, wantArgs)
	switch {
	case (got == nil) != (want == nil):
		t.Fatalf("%s %q: error %v, the reference's %v", d.tool, text, got, want)
	case got != nil:
		if got.Error() != want.Error() {
			t.Fatalf("%s %q: error\n%s\nthe reference's\n%s", d.tool, text, got, want)
		}
		var g, w *ArgumentsError
		if errors.As(got, &g) != errors.As(want, &w) || g != nil && !reflect.DeepEqual(g.Problems, w.Problems) {
			t.Fatalf("%s %q: problems %#v, the reference's %#v", d.tool, text, got, want)
		}
	default:
		if !reflect.DeepEqual(gotArgs, wantArgs) {
			t.Fatalf("%s %q: arguments\n%#v\nthe reference's\n%#v", d.tool, text, gotArgs, wantArgs)
		}
	}
}

// argSeeds are argument texts, valid and hostile, for every tool.
var argSeeds = []string{
	``, ` `, " \t\r\n", "\v", "\u00a0", "\ufeff{}", "\u00a0{}", `{}`, ` {} `, `{}x`, `{} x`, `{}{}`, `{}  ` + strings.Repeat("z", 60),
	`[]`, `42`, `42x`, `01`, `-`, `-x`, `1.`, `1.x`, `1e`, `1e+`, `1ex`, `1.5.`, `null`, `nul`, `nulx`, `true`, `truex`, `"a"`, `"a"x`, `"\u12G4"`,
	`{`, `{"`, `{"a`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1 "b":2}`, `{1:2}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`,
	`{"path":"/workspace/a.txt"}`, `{"path":"/workspace/a.txt","path":1}`, `{"path":1,"path":"/workspace/a.txt"}`,
	`{"path":"\/workspace\/a\u002etxt"}`, `{"path":"\ud800"}`, `{"path":"\ud800\udc00"}`, `{"path":"\udc00\ud800"}`, `{"path":"\ud800\u0041"}`, `{"path":"\ud800\\u0041"}`,
	`{"path":"\ud83d\ude00x"}`, `{"path":"a\'b"}`, `{"path":"a\qb"}`, `{"path":"a` + "\x01" + `b"}`, `{"path":"a` + "\x7f" + `b"}`, `{"pâth":é}`, `{"path":"é€😀"}`,
	`{"path":"<>&\u2028"}`, `{"path":"/w","offset":1.0,"limit":1e3,"byteOffset":-0}`, `{"path":"/w","offset":2.5}`, `{"path":"/w","offset":1e-7}`,
	`{"path":"/w","offset":1e400}`, `{"path":"/w","offset":-1e400}`, `{"path":"/w","offset":9007199254740992}`, `{"path":"/w","offset":9007199254740991}`,
	`{"path":"/w","offset":0}`, `{"path":"/w","byteOffset":21}`, `{"path":"/w","byteOffset":21,"offset":3}`, `{"path":"/w","limit":"2"}`, `{"path":null}`,
	`{"extra":1,"limit":"2","offset":0}`, `{"zeta":1,"alpha":true,"zeta":2}`, `{"` + strings.Repeat("k", 50) + `":1}`, `{"\u0070ath":"/w"}`, `{"Path":"/w"}`,
	`{"pattern":"*.go"}`, `{"pattern":"*","path":"/workspace/src","exclude":"x","limit":5,"offset":3}`, `{"pattern":"*","exclude":["a","b"]}`, `{"pattern":"*","exclude":[]}`,
	`{"pattern":"*","exclude":[1,null,["x"],{}]}`, `{"pattern":"*","exclude":5}`, `{"query":"a","include":["` + strings.Repeat("x", 5000) + `"]}`,
	`{"query":"a","ignoreCase":true,"regex":false,"context":3}`, `{"query":"a","context":11}`, `{"query":"a","regex":1}`,
	`{"path":"/w/b.txt","content":"x\ny\t\"z\"\\"}`, `{"path":"/w/b.txt","content":""}`, `{"path":"/w/b.txt","content":null}`,
	`{"path":"/w","edits":[{"oldText":"a","newText":"b"}]}`, `{"path":"/w","edits":[]}`, `{"path":"/w","edits":[{"oldText":"a"}]}`,
	`{"path":"/w","edits":[{"oldText":"a","newText":"b","x":1},1,null,{"newText":2,"oldText":"c","oldText":"d"}]}`, `{"path":"/w","edits":{}}`,
	`{"path":"/w","recursive":true}`, `{"path":"/w","recursive":"yes"}`, `{"path":"/w","dryRun":true}`,
	`{"command":"true","backend":"a"}`, `{"command":"true","backend":"c"}`, `{"command":"true","backend":1}`, `{"command":"t","backend":"b","cwd":"/w","env":{"A":"1","B":"2","A":"3"}}`,
	`{"command":"t","backend":"a","env":{"B":1,"A":null,"B":"x"}}`, `{"command":"t","backend":"a","env":[]}`, `{"command":"t","backend":"a","env":{}}`,
	`{"command":"t","backend":"a","input":{"x":[1, 2 ,{"y":"<\u0041>"}],"z":1.50}}`, `{"command":"t","backend":"a","input":[]}`, `{"command":"t","backend":"a","input":{}}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10001),
	`{"a":` + strings.Repeat(`{"b":`, 10000) + `1` + strings.Repeat("}", 10001), `{"a":` + strings.Repeat(`[`, 9999) + strings.Repeat("]", 9999) + `}`,
	"{\"path\":\"/workspace/\xff\"}", "\xff", `{"a":1}` + "\xff",
}

func TestArgDecoderMatchesReference(t *testing.T) {
	for _, tool := range argTools() {
		for _, s := range argSeeds {
			compareDecoders(t, tool.d, tool.args, []byte(s))
		}
	}
}

// TestArgDecoderMatchesReferenceOnRandomTexts compares the decoders on
// argument texts made from each tool's parameters (right and wrong types,
// unknown keys, escapes, numbers at the edges), then cut short, spliced
// and sprinkled with bytes.
func TestArgDecoderMatchesReferenceOnRandomTexts(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(14, 1))
	for _, tool := range argTools() {
		for range n {
			text := []byte(randomArgs(rng, tool.d.params, 0))
			compareDecoders(t, tool.d, tool.args, text)
			compareDecoders(t, tool.d, tool.args, mutate(rng, text))
		}
	}
}

func FuzzArgDecoderDifferential(f *testing.F) {
	for _, s := range argSeeds {
		f.Add(uint8(0), []byte(s))
	}
	rng := rand.New(rand.NewPCG(14, 2))
	tools := argTools()
	for i, tool := range tools {
		for range 20 {
			f.Add(uint8(i), []byte(randomArgs(rng, tool.d.params, 0)))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, text []byte) {
		tool := tools[int(which)%len(tools)]
		compareDecoders(t, tool.d, tool.args, text)
	})
}

var randomStrings = []string{
	"", "/workspace/a.txt", "a", "<&>", "é€😀", `\n\t\"\\\/`, `\u0041\u00e9`, `\ud800`, `\ud83d\ude00`, `\udc00\ud800`, `\ud800\u0041`, "\u2028", "a", "b",
	strings.Repeat("x", 41), strings.Repeat("é", 45),
}

var randomNumbers = []string{"0", "-0", "1", "1.0", "1e3", "10E-1", "2.5", "-1", "21", "1e400", "-1e400", "9007199254740991", "9007199254740992", "1e-7", "1001", "0.0", "3"}

func randomJSONValue(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(8); {
	case k == 0:
		return `"` + randomStrings[rng.IntN(len(randomStrings))] + `"`
	case k == 1:
		return randomNumbers[rng.IntN(len(randomNumbers))]
	case k == 2:
		return []string{"true", "false", "null"}[rng.IntN(3)]
	case k == 3 && depth < 3:
		var b strings.Builder
		b.WriteString("[")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(randomJSONValue(rng, depth+1))
		}
		return b.String() + "]"
	case k == 4 && depth < 3:
		var b strings.Builder
		b.WriteString("{")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%s":%s`, []string{"a", "b", "oldText", "newText", "A", "x"}[rng.IntN(6)], randomJSONValue(rng, depth+1))
		}
		return b.String() + "}"
	}
	return `"` + randomStrings[rng.IntN(len(randomStrings))] + `"`
}

// randomValue is a value for p: usually of its kind, sometimes not.
func randomValue(rng *rand.Rand, p toolspec.Param, depth int) string {
	if rng.IntN(6) == 0 {
		return randomJSONValue(rng, depth)
	}
	switch p.Kind {
	case toolspec.KindInteger:
		return randomNumbers[rng.IntN(len(randomNumbers))]
	case toolspec.KindBoolean:
		return []string{"true", "false"}[rng.IntN(2)]
	case toolspec.KindEnum:
		return []string{`"a"`, `"b"`, `"c"`}[rng.IntN(3)]
	case toolspec.KindStringOrList:
		if rng.IntN(2) == 0 {
			var l []string
			for range rng.IntN(4) {
				l = append(l, randomValue(rng, toolspec.Param{Kind: toolspec.KindString}, depth+1))
			}
			return "[" + strings.Join(l, ",") + "]"
		}
	case toolspec.KindArray:
		var l []string
		for range rng.IntN(3) {
			l = append(l, randomArgs(rng, p.Items, depth+1))
		}
		return "[" + strings.Join(l, ", ") + "]"
	case toolspec.KindStringRecord, toolspec.KindJSONRecord:
		return randomJSONValue(rng, 0)
	}
	return `"` + randomStrings[rng.IntN(len(randomStrings))] + `"`
}

// randomArgs is an object with some of params, sometimes twice, and
// sometimes a key no parameter has.
func randomArgs(rng *rand.Rand, params []toolspec.Param, depth int) string {
	var members []string
	for _, p := range params {
		for range rng.IntN(3) {
			members = append(members, fmt.Sprintf(`"%s":%s`, p.Name, randomValue(rng, p, depth)))
		}
	}
	if rng.IntN(4) == 0 {
		members = append(members, fmt.Sprintf(`"%s":%s`, []string{"zeta", "alpha", "Path", `\u0070ath`, "é"}[rng.IntN(5)], randomJSONValue(rng, 1)))
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	sep := []string{",", ", ", " ,\n"}[rng.IntN(3)]
	return "{" + strings.Join(members, sep) + "}"
}

// mutate cuts text short, drops, doubles or replaces a byte, or inserts
// one of the bytes JSON's grammar turns on.
func mutate(rng *rand.Rand, text []byte) []byte {
	if len(text) == 0 {
		return text
	}
	b := append([]byte(nil), text...)
	for range 1 + rng.IntN(2) {
		i := rng.IntN(len(b))
		special := "{}[],:\"\\ \t\n\r\x00\x1fé-+.eE0123456789tfnux\xff"
		switch rng.IntN(5) {
		case 0:
			b = b[:i]
		case 1:
			b = append(b[:i], b[i+1:]...)
		case 2:
			b = append(b[:i+1], b[i:]...)
		case 3:
			b[i] = special[rng.IntN(len(special))]
		default:
			b = append(b[:i], append([]byte{special[rng.IntN(len(special))]}, b[i:]...)...)
		}
		if len(b) == 0 {
			break
		}
	}
	return b
}
