package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// resultStructs are the results of package toolspec that write their own
// JSON (the generated AppendJSON): each must write what encoding/json
// writes for it (marshalReflect, the path every result took before).
var resultStructs = []toolspec.Result{
	toolspec.ErrorResult{}, toolspec.ReadResult{}, toolspec.ReadMediaResult{},
	toolspec.LsResult{}, toolspec.LsEntry{}, toolspec.FindResult{}, toolspec.FindEntry{},
	toolspec.GrepResult{}, toolspec.GrepMatch{}, toolspec.GrepContextLine{},
	toolspec.WriteResult{}, toolspec.EditResult{}, toolspec.DeleteResult{},
	toolspec.ExecErrorResult{},
}

// jsonTestStrings are strings whose spelling differs between careless
// writers: escapes, separators, bytes that are not UTF-8, runs longer
// than eight bytes around them.
var jsonTestStrings = []string{
	"", "a", "plain text of more than sixteen bytes", "\u2028\u2029", "\ufffd", `"\`,
	"\x00\x1f\x7f", "\b\f\n\r\t", "\xff", "abcdefgh\xffijklmnop", "\xe2\x82", "\xed\xa0\x80",
	"é😀 ①", "<a href=\"x\">&amp;</a>", `\u2028`, "line one\nline two\n\ttabbed \"quoted\"\n",
}

// fillRandom sets v (settable) to a random value: strings from
// jsonTestStrings and random bytes, nil or set pointers, nil, empty or
// short lists.
func fillRandom(r *rand.Rand, v reflect.Value, extra string) {
	switch v.Kind() {
	case reflect.String:
		switch r.IntN(4) {
		case 0:
			v.SetString(extra)
		case 1:
			b := make([]byte, r.IntN(40))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			v.SetString(string(b))
		default:
			v.SetString(jsonTestStrings[r.IntN(len(jsonTestStrings))] + jsonTestStrings[r.IntN(len(jsonTestStrings))])
		}
	case reflect.Int64:
		v.SetInt(r.Int64() >> r.IntN(64) * int64(1-2*r.IntN(2)))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fillRandom(r, p.Elem(), extra)
		v.Set(p)
	case reflect.Slice:
		if r.IntN(4) == 0 {
			v.SetZero()
			return
		}
		n := r.IntN(4)
		l := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillRandom(r, l.Index(i), extra)
		}
		v.Set(l)
	case reflect.Struct:
		for i := range v.NumField() {
			fillRandom(r, v.Field(i), extra)
		}
	default:
		panic(fmt.Sprintf("no random %s", v.Type()))
	}
}

// checkAppendJSON compares AppendJSON with encoding/json for random
// values of every result struct.
func checkAppendJSON(t *testing.T, seed uint64, extra string, rounds int) {
	r := rand.New(rand.NewPCG(seed, 1))
	for _, zero := range resultStructs {
		for range rounds {
			v := reflect.New(reflect.TypeOf(zero))
			fillRandom(r, v.Elem(), extra)
			want, err := marshalReflect(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Elem().Interface().(toolspec.Result).AppendJSON(nil); string(got) != string(want) {
				t.Fatalf("%T.AppendJSON of %#v\n got %s\nwant %s", zero, v.Elem().Interface(), got, want)
			}
			if got, _ := MarshalJSON(v.Interface()); string(got) != string(want) {
				t.Fatalf("MarshalJSON(&%#v)\n got %s\nwant %s", v.Elem().Interface(), got, want)
			}
			// ResultOutput's output, which knows its JSON unread, says
			// what a hand-built one with the same JSON says.
			out := toolspec.ResultOutput(v.Elem().Interface().(toolspec.Result))
			byHand := toolspec.Output{Kind: toolspec.OutputJSON, JSON: bytes.Clone(want)}
			if string(out.JSON) != string(want) || !out.FromResult() || byHand.FromResult() || out.IsError() != byHand.IsError() {
				t.Fatalf("ResultOutput(%#v): JSON %s, FromResult %v, IsError %v; want %s, IsError %v", v.Elem().Interface(), out.JSON, out.FromResult(), out.IsError(), want, byHand.IsError())
			}
			if object, ok := out.ModelOutput(); !ok || string(object) != `{"type":"json","value":`+string(want)+`}` {
				t.Fatalf("ResultOutput(%#v).ModelOutput() = %s, %v", v.Elem().Interface(), object, ok)
			}
		}
	}
}

// TestAppendJSONAsEncodingJSON: each result's generated AppendJSON writes
// the bytes encoding/json (with MarshalJSON's unescaping) writes.
func TestAppendJSONAsEncodingJSON(t *testing.T) {
	checkAppendJSON(t, 1, "x", 300)
}

// TestMarshalJSONNilResult: a nil pointer to a result is null, as
// encoding/json writes it, not a call on nil.
func TestMarshalJSONNilResult(t *testing.T) {
	got, err := MarshalJSON((*toolspec.ReadResult)(nil))
	if err != nil || string(got) != "null" {
		t.Fatalf("MarshalJSON(nil *ReadResult) = %s, %v; want null", got, err)
	}
}

func FuzzAppendJSON(f *testing.F) {
	for _, s := range jsonTestStrings {
		f.Add(uint64(len(s)), s)
	}
	f.Fuzz(func(t *testing.T, seed uint64, s string) {
		checkAppendJSON(t, seed, s, 3)
	})
}

// compactJSONBefore is CompactJSON as it was: a text holding `\u202` or
// `\ufffd` anywhere went through encoding/json.
func compactJSONBefore(b []byte) ([]byte, error) {
	if !bytes.Contains(b, []byte(`\u202`)) && !bytes.Contains(b, []byte(`\ufffd`)) {
		p := jsonParser{text: b, skim: true}
		var v jsonValue
		if p.value(&v) && p.pos == len(b) && !p.spaced {
			return b, nil
		}
	}
	return marshalReflect(json.RawMessage(b))
}

// FuzzCompactJSON: CompactJSON gives the bytes (or the failure)
// encoding/json gives, whichever path it takes.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":"\u2028"}`, `{"a":"\\u2028"}`, `["\u2020","\ufffd","\uFFFD"]`, `{"a": 1}`, `"x\u2029"`,
		`{"path":"a","content":"line\n","n":[1,2.5e3,true,null]}`, `{"a":"\u202`, `{"a":"\\\u2029"}`, "\"\u2028\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := compactJSONBefore(b)
		got, err := CompactJSON(b)
		if (err != nil) != (wantErr != nil) || string(got) != string(want) {
			t.Fatalf("CompactJSON(%q) = %q, %v; before %q, %v", b, got, err, want, wantErr)
		}
	})
}

// BenchmarkResultJSON times a result's JSON for the model (MarshalJSON,
// then CompactJSON as the raw adapter checked it before results were
// passed on unread, see toolspec.ResultOutput) against the encoding/json
// path it replaced: a read page of 2000 lines and an ls page of 200
// entries.
func BenchmarkResultJSON(b *testing.B) {
	var content strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&content, "%d: lorem ipsum dolor sit amet, consectetur adipiscing elit\n", i+1)
	}
	next := int64(2001)
	ls := toolspec.LsResult{Path: "/workspace/flat", Count: 200, NextOffset: &next}
	for i := range 200 {
		ls.Entries = append(ls.Entries, toolspec.LsEntry{Name: fmt.Sprintf("entry-%d.txt", i), Size: 10, Mtime: 1764579600000, IsFile: true})
	}
	results := []struct {
		name string
		v    any
	}{
		{"read", &toolspec.ReadResult{Path: "/workspace/big.txt", Content: content.String(), StartLine: 1, EndLine: 2000, Truncated: true, NextOffset: &next}},
		{"ls", ls},
	}
	for _, r := range results {
		b.Run(r.name+"/encoding-json", func(b *testing.B) {
			for b.Loop() {
				out, _ := marshalReflect(r.v)
				if _, err := compactJSONBefore(out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(r.name+"/append", func(b *testing.B) {
			for b.Loop() {
				out, _ := MarshalJSON(r.v)
				if _, err := CompactJSON(out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
