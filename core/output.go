package core

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/agenttools/agenttools/toolspec"
)

// MarshalJSON serializes v (a result struct of package toolspec, or any value
// encoding/json accepts) the way JavaScript's JSON.stringify does: fields
// in declaration order, no spaces, no HTML escaping, U+2028 and U+2029
// written as themselves.
func MarshalJSON(v any) ([]byte, error) {
	if r, ok := resultOf(v); ok {
		return toolspec.ResultOutput(r).JSON, nil
	}
	return marshalReflect(v)
}

// resultOf is v as a toolspec.Result, a struct that writes its own JSON,
// unless v is a nil pointer (which encoding/json writes as null).
func resultOf(v any) (toolspec.Result, bool) {
	r, ok := v.(toolspec.Result)
	if ok {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, false
		}
	}
	return r, ok
}

// marshalReflect is MarshalJSON through encoding/json, for a value that
// does not write its own JSON.
func marshalReflect(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return unescapeLineSeparators(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// CompactJSON is the JSON text b as MarshalJSON writes a json.RawMessage
// holding it: without whitespace between tokens, with the escapes \u2028,
// \u2029 and \ufffd written as the characters. Text MarshalJSON wrote (the
// JSON of every json output) is already so: then the result is b itself,
// found in one pass without copying. The error is encoding/json's when b
// is not one JSON value.
func CompactJSON(b []byte) ([]byte, error) {
	if isCompactJSON(b) {
		return b, nil
	}
	return MarshalJSON(json.RawMessage(b))
}

// isCompactJSON says whether b is one JSON value, without whitespace
// between tokens and without an escape unescapeLineSeparators rewrites.
func isCompactJSON(b []byte) bool {
	p := jsonParser{text: b, skim: true}
	var v jsonValue
	return p.value(&v) && p.pos == len(b) && !p.spaced && !p.separators
}

// unescapeLineSeparators undoes encoding/json's \u2028 and \u2029, which
// JSON.stringify leaves as they are, and its \ufffd for a byte that is not
// UTF-8 (a host file name, say), which JSON.stringify would write as the
// character itself. Every backslash in encoded JSON starts an escape, so
// escapes are read pairwise.
func unescapeLineSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) && !bytes.Contains(b, []byte(`\ufffd`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "2028", "2029", "fffd":
				r, _ := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
				out = utf8.AppendRune(out, rune(r))
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

func textOutput(s string) toolspec.Output { return toolspec.Output{Kind: toolspec.OutputText, Text: s} }

func errorText(s string) toolspec.Output {
	return toolspec.Output{Kind: toolspec.OutputErrorText, Text: s}
}

// jsonOutput serializes a result for the model. The values given are the
// generated result structs, which always serialize; one that writes its
// own JSON gives an output adapters pass on unchecked
// (toolspec.ResultOutput).
func jsonOutput(v any) toolspec.Output {
	if r, ok := resultOf(v); ok {
		return toolspec.ResultOutput(r)
	}
	b, err := MarshalJSON(v)
	if err != nil {
		panic("core: result does not serialize: " + err.Error())
	}
	return toolspec.Output{Kind: toolspec.OutputJSON, JSON: b}
}

// errorJSON is the {"error": message} result of every tool but read.
func errorJSON(message string) toolspec.Output {
	return jsonOutput(toolspec.ErrorResult{Error: message})
}
