package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agenttools/agenttools/core"
)

// expandJSON replaces every {"$gen": ...} value in a JSON document with
// the string it describes, as the harness does:
//
//	{"$gen":"repeat","text":T,"times":N}                T repeated N times
//	{"$gen":"lines","count":N,"template":"line {n}",     N lines joined by eol,
//	  "eol":"\n","final":true,"start":1}                 with a final eol unless final is false
//	{"$gen":"concat","parts":[...]}                      the parts joined
func expandJSON(raw json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	x, err := expand(v)
	if err != nil {
		return nil, err
	}
	return core.MarshalJSON(x)
}

func expand(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			e, err := expand(item)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case map[string]any:
		if kind, ok := x["$gen"].(string); ok {
			return generate(kind, x)
		}
		out := make(map[string]any, len(x))
		for k, item := range x {
			e, err := expand(item)
			if err != nil {
				return nil, err
			}
			out[k] = e
		}
		return out, nil
	}
	return v, nil
}

func num(v any, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("$gen: %v is not a number", v)
	}
	i, err := strconv.Atoi(string(n))
	return i, err
}

func str(v any) (string, error) {
	e, err := expand(v)
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

func generate(kind string, spec map[string]any) (string, error) {
	switch kind {
	case "repeat":
		text, err := str(spec["text"])
		if err != nil {
			return "", err
		}
		times, err := num(spec["times"], 0)
		if err != nil {
			return "", err
		}
		return strings.Repeat(text, times), nil
	case "lines":
		count, err := num(spec["count"], 0)
		if err != nil {
			return "", err
		}
		start, err := num(spec["start"], 1)
		if err != nil {
			return "", err
		}
		template, eol := "line {n}", "\n"
		if t, ok := spec["template"].(string); ok {
			template = t
		}
		if e, ok := spec["eol"].(string); ok {
			eol = e
		}
		var b strings.Builder
		for i := 0; i < count; i++ {
			if i > 0 {
				b.WriteString(eol)
			}
			b.WriteString(strings.ReplaceAll(template, "{n}", strconv.Itoa(start+i)))
		}
		if final, ok := spec["final"].(bool); !ok || final {
			b.WriteString(eol)
		}
		return b.String(), nil
	case "concat":
		parts, _ := spec["parts"].([]any)
		var b strings.Builder
		for _, p := range parts {
			s, err := str(p)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unknown $gen %s", kind)
}
