package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agenttools/agenttools/toolspec"
)

// oldArgDecoder is the argument decoder as it was before the one-pass
// validator (encoding/json's generic decode, the raw fields, each field
// again, a re-encoding and the struct): the reference implementation
// FuzzArgDecoderDifferential compares argDecoder with.
type oldArgDecoder argDecoder

func (d oldArgDecoder) oldDecode(text []byte, dst any) error {
	problem := func(p string) error { return &ArgumentsError{Tool: d.tool, Problems: []string{p}} }
	if !utf8.Valid(text) {
		return problem(toolspec.MsgArgumentsNotUTF8)
	}
	if strings.TrimFunc(string(text), isJSSpace) == "" {
		text = []byte("{}")
	}
	var top any
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return problem(toolspec.MsgArgumentsNotJSON(oldJSONReason(text, err)))
	}
	if rest := bytes.TrimLeft(text[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return problem(toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsTrailing(shown(string(rest)))))
	}
	if _, ok := top.(map[string]any); !ok {
		return problem(toolspec.MsgArgumentsNotObject(oldTypeName(top)))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		return problem(toolspec.MsgArgumentsNotJSON(oldJSONReason(text, err)))
	}
	out, problems := d.oldObject(d.params, raw, "")
	if len(problems) == 0 {
		present := func(name string) (int64, bool) {
			v, ok := out[name]
			if !ok {
				return 0, false
			}
			n, _ := strconv.ParseInt(string(v), 10, 64)
			return n, true
		}
		if msg := checkRules(d.rules, present); msg != "" {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return &ArgumentsError{Tool: d.tool, Problems: problems}
	}
	filled, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return json.Unmarshal(filled, dst)
}

// object checks a strict object against params. It returns the values to
// fill, normalized (integers spelled as integers, defaults added). parent
// names the argument the object is an element of ("" for the arguments
// themselves).
func (d oldArgDecoder) oldObject(params []toolspec.Param, raw map[string]json.RawMessage, parent string) (map[string]json.RawMessage, []string) {
	name := func(key string) string {
		if parent == "" {
			return key
		}
		return toolspec.MsgArgumentsProperty(parent, key)
	}
	out := map[string]json.RawMessage{}
	var problems []string
	known := map[string]bool{}
	var names []string
	for _, p := range params {
		known[p.Name] = true
		names = append(names, p.Name)
		arg := name(p.Name)
		v, ok := raw[p.Name]
		if !ok {
			switch {
			case p.HasDefault:
				out[p.Name], _ = json.Marshal(p.Default)
			case !p.Optional:
				problems = append(problems, toolspec.MsgArgumentsMissing(arg))
			}
			continue
		}
		norm, probs := d.oldValue(p, arg, v)
		problems = append(problems, probs...)
		if len(probs) == 0 {
			out[p.Name] = norm
		}
	}
	var unknown []string
	for k := range raw {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		problems = append(problems, toolspec.MsgArgumentsUnknown(name(shown(k)), strings.Join(names, toolspec.MsgArgumentsListSeparator)))
	}
	return out, problems
}

func (d oldArgDecoder) oldValue(p toolspec.Param, arg string, raw json.RawMessage) (json.RawMessage, []string) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		// Not met: raw is a value of arguments that parsed.
		return nil, []string{toolspec.MsgArgumentsNotJSON(oldJSONReason(raw, err))}
	}
	wrong := func(expected string) []string {
		return []string{toolspec.MsgArgumentsWrongType(arg, expected, oldTypeName(v))}
	}
	switch p.Kind {
	case toolspec.KindString:
		s, ok := v.(string)
		if !ok {
			return nil, wrong(toolspec.TypeNameString)
		}
		if problem := tooLong(p, arg, len(s)); problem != "" {
			return nil, []string{problem}
		}
	case toolspec.KindBoolean:
		if _, ok := v.(bool); !ok {
			return nil, wrong(toolspec.TypeNameBoolean)
		}
	case toolspec.KindInteger:
		num, ok := v.(json.Number)
		if !ok {
			return nil, wrong(toolspec.TypeNameInteger)
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, []string{toolspec.MsgArgumentsNotInteger(arg, shown(string(num)))}
		}
		switch {
		case math.IsInf(f, 0) || f != math.Trunc(f):
			if math.IsInf(f, 1) {
				return nil, []string{toolspec.MsgArgumentsTooBig(arg, p.Maximum, shown(string(num)))}
			}
			if math.IsInf(f, -1) {
				return nil, []string{toolspec.MsgArgumentsTooSmall(arg, p.Minimum, shown(string(num)))}
			}
			return nil, []string{toolspec.MsgArgumentsNotInteger(arg, shown(string(num)))}
		case f < float64(p.Minimum):
			return nil, []string{toolspec.MsgArgumentsTooSmall(arg, p.Minimum, shown(string(num)))}
		case f > float64(p.Maximum):
			return nil, []string{toolspec.MsgArgumentsTooBig(arg, p.Maximum, shown(string(num)))}
		}
		return json.RawMessage(strconv.FormatInt(int64(f), 10)), nil
	case toolspec.KindStringOrList:
		switch x := v.(type) {
		case string:
			if problem := tooLong(p, arg, len(x)); problem != "" {
				return nil, []string{problem}
			}
		case []any:
			if p.MaxItems > 0 && int64(len(x)) > p.MaxItems {
				return nil, []string{toolspec.MsgArgumentsTooMany(arg, p.MaxItems, int64(len(x)))}
			}
			var problems []string
			total := int64(0)
			for i, item := range x {
				at := toolspec.MsgArgumentsElement(arg, int64(i))
				s, ok := item.(string)
				if !ok {
					problems = append(problems, toolspec.MsgArgumentsWrongType(at, toolspec.TypeNameString, oldTypeName(item)))
				} else if problem := tooLong(p, at, len(s)); problem != "" {
					problems = append(problems, problem)
				} else {
					total += int64(len(s))
				}
			}
			if p.MaxTotalBytes > 0 && total > p.MaxTotalBytes && len(problems) == 0 {
				problems = append(problems, toolspec.MsgArgumentsTooLong(arg, p.MaxTotalBytes, total))
			}
			if len(problems) > 0 {
				return nil, problems
			}
		default:
			return nil, wrong(toolspec.TypeNameStringOrList)
		}
	case toolspec.KindArray:
		items, ok := v.([]any)
		if !ok {
			return nil, wrong(toolspec.TypeNameArray)
		}
		var rawItems []json.RawMessage
		_ = json.Unmarshal(raw, &rawItems)
		var problems []string
		norm := make([]map[string]json.RawMessage, len(items))
		for i, item := range items {
			at := toolspec.MsgArgumentsElement(arg, int64(i))
			if _, ok := item.(map[string]any); !ok {
				problems = append(problems, toolspec.MsgArgumentsWrongType(at, toolspec.TypeNameObject, oldTypeName(item)))
				continue
			}
			var fields map[string]json.RawMessage
			_ = json.Unmarshal(rawItems[i], &fields)
			var probs []string
			norm[i], probs = d.oldObject(p.Items, fields, at)
			problems = append(problems, probs...)
		}
		if len(problems) > 0 {
			return nil, problems
		}
		b, _ := json.Marshal(norm)
		return b, nil
	case toolspec.KindStringRecord:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, wrong(toolspec.TypeNameObject)
		}
		var problems []string
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, ok := m[k].(string); !ok {
				problems = append(problems, toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsProperty(arg, shown(k)), toolspec.TypeNameString, oldTypeName(m[k])))
			}
		}
		if len(problems) > 0 {
			return nil, problems
		}
	case toolspec.KindEnum:
		s, ok := v.(string)
		if !ok {
			return nil, wrong(toolspec.TypeNameString)
		}
		allowed := d.enums[p.Name]
		if !slices.Contains(allowed, s) {
			quoted := make([]string, len(allowed))
			for i, a := range allowed {
				quoted[i] = toolspec.QuoteJSON(a)
			}
			return nil, []string{toolspec.MsgArgumentsNotInEnum(arg, strings.Join(quoted, toolspec.MsgArgumentsListSeparator), toolspec.QuoteJSON(shown(s)))}
		}
	case toolspec.KindJSONRecord:
		if _, ok := v.(map[string]any); !ok {
			return nil, wrong(toolspec.TypeNameObject)
		}
	}
	return raw, nil
}

// oldTypeName names a decoded JSON value's type for the messages.
func oldTypeName(v any) string {
	switch v.(type) {
	case nil:
		return toolspec.TypeNameNull
	case string:
		return toolspec.TypeNameString
	case json.Number, float64:
		return toolspec.TypeNameNumber
	case bool:
		return toolspec.TypeNameBoolean
	case []any:
		return toolspec.TypeNameArray
	}
	return toolspec.TypeNameObject
}

// oldJSONReason words why text, which encoding/json refused with err, is not
// JSON: the spec's reason for an end too early, a character out of place
// or a nesting too deep; for anything else encoding/json's own words,
// without its package prefix.
func oldJSONReason(text []byte, err error) string {
	var syntax *json.SyntaxError
	isSyntax := errors.As(err, &syntax)
	// Offset counts the bytes read, the one refused included.
	at := int64(-1)
	if isSyntax {
		at = syntax.Offset - 1
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), isSyntax && syntax.Error() == "unexpected end of JSON input":
		return toolspec.MsgArgumentsJSONEnd
	case isSyntax && strings.HasSuffix(syntax.Error(), " exceeded max depth"):
		return toolspec.MsgArgumentsJSONTooDeep
	case isSyntax && strings.HasPrefix(syntax.Error(), "invalid character ") && at >= 0 && at < int64(len(text)):
		r, _ := utf8.DecodeRune(text[at:])
		return toolspec.MsgArgumentsJSONUnexpected(string(r), at)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
