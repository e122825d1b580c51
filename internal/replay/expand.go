package replay

// Case files keep JSON in an ordered form where key order reaches a tool
// (its arguments), so the text we validate is the text the reference
// validates; {"$gen": ...} values stand for generated strings.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agenttools/agenttools/core"
)

// Member is one member of an ordered JSON object.
type Member struct {
	Key string
	Val any
}

// Object is a JSON object with its members in document order. Values in
// an ordered document are Object, []any, string, json.Number, bool or nil.
type Object []Member

// Get returns the value of key and whether o has it.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Val, true
		}
	}
	return nil, false
}

// With returns a copy of o with key set: replaced in place, or appended
// (as JavaScript's {...o, key: v} does).
func (o Object) With(key string, v any) Object {
	out := append(Object{}, o...)
	for i := range out {
		if out[i].Key == key {
			out[i].Val = v
			return out
		}
	}
	return append(out, Member{key, v})
}

// ParseOrdered decodes a JSON document into its ordered form; empty
// input is nil.
func ParseOrdered(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("JSON document followed by more data")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := Object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, Member{k.(string), v})
		}
		_, err = dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return tok, nil
}

// EncodeOrdered writes an ordered value as JSON.stringify would: members
// in their order, numbers as written.
func EncodeOrdered(v any) []byte {
	var b bytes.Buffer
	encodeTo(&b, v)
	return b.Bytes()
}

func encodeTo(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case Object:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeTo(b, m.Key)
			b.WriteByte(':')
			encodeTo(b, m.Val)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeTo(b, e)
		}
		b.WriteByte(']')
	case json.Number:
		b.WriteString(string(x))
	default:
		s, err := core.MarshalJSON(x)
		if err != nil {
			// Only the ordered forms' own scalars reach here.
			panic(err)
		}
		b.Write(s)
	}
}

// expandJSON replaces every {"$gen": ...} value in a JSON document with
// the string it describes (Expand, iteration 0), keeping key order.
func expandJSON(raw json.RawMessage) ([]byte, error) {
	v, err := ParseOrdered(raw)
	if err != nil {
		return nil, err
	}
	if v, err = Expand(v, 0); err != nil {
		return nil, err
	}
	return EncodeOrdered(v), nil
}

// Expand replaces every {"$gen": ...} object in an ordered value with the
// string it describes, as the oracle's harness and bench.mjs do:
//
//	{"$gen":"repeat","text":T,"times":N}                T repeated N times
//	{"$gen":"lines","count":N,"template":"line {n}",     N lines joined by eol,
//	  "eol":"\n","final":true,"start":1}                 with a final eol unless final is false
//	{"$gen":"concat","parts":[...]}                      the parts joined
//	{"$gen":"iter"}                                      iter in decimal (bench.mjs's
//	                                                     iteration number, warm-ups counted)
//
// An unknown kind or a value of the wrong type is an error.
func Expand(v any, iter int) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = Expand(e, iter); err != nil {
				return nil, err
			}
		}
		return out, nil
	case Object:
		if kind, ok := x.Get("$gen"); ok {
			return generate(kind, x, iter)
		}
		out := make(Object, len(x))
		for i, m := range x {
			e, err := Expand(m.Val, iter)
			if err != nil {
				return nil, err
			}
			out[i] = Member{m.Key, e}
		}
		return out, nil
	}
	return v, nil
}

// UsesIter reports whether v has a {"$gen":"iter"} anywhere, that is
// whether Expand's result depends on the iteration.
func UsesIter(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if UsesIter(e) {
				return true
			}
		}
	case Object:
		if kind, _ := x.Get("$gen"); kind == "iter" {
			return true
		}
		for _, m := range x {
			if UsesIter(m.Val) {
				return true
			}
		}
	}
	return false
}

// Int is the integer an ordered value holds, def when v is nil.
func Int(v any, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("$gen: %v is not a number", v)
	}
	return strconv.Atoi(string(n))
}

// ExpandString expands v and requires a string (or a number, as its
// decimal text) of it.
func ExpandString(v any, iter int) (string, error) {
	e, err := Expand(v, iter)
	if err != nil {
		return "", err
	}
	switch s := e.(type) {
	case string:
		return s, nil
	case json.Number:
		return string(s), nil
	}
	return "", fmt.Errorf("$gen: %v is not a string", v)
}

func generate(kind any, spec Object, iter int) (string, error) {
	get := func(k string) any { v, _ := spec.Get(k); return v }
	switch kind {
	case "repeat":
		text, err := ExpandString(get("text"), iter)
		if err != nil {
			return "", err
		}
		times, err := Int(get("times"), 0)
		if err != nil {
			return "", err
		}
		return strings.Repeat(text, times), nil
	case "lines":
		count, err := Int(get("count"), 0)
		if err != nil {
			return "", err
		}
		start, err := Int(get("start"), 1)
		if err != nil {
			return "", err
		}
		template, eol := "line {n}", "\n"
		if t, ok := get("template").(string); ok {
			template = t
		}
		if e, ok := get("eol").(string); ok {
			eol = e
		}
		return Lines(count, start, template, eol, get("final") != false), nil
	case "concat":
		parts, _ := get("parts").([]any)
		var b strings.Builder
		for _, p := range parts {
			s, err := ExpandString(p, iter)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	case "iter":
		return strconv.Itoa(iter), nil
	}
	return "", fmt.Errorf("unknown $gen %v", kind)
}

// Lines is count lines of template with {n} replaced by start, start+1,
// ..., joined by eol, with a final eol when final is true.
func Lines(count, start int, template, eol string, final bool) string {
	var b strings.Builder
	for i := range count {
		if i > 0 {
			b.WriteString(eol)
		}
		b.WriteString(strings.ReplaceAll(template, "{n}", strconv.Itoa(start+i)))
	}
	if final {
		b.WriteString(eol)
	}
	return b.String()
}
