package core

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agenttools/agenttools/toolspec"
)

// ArgumentsError is a call whose arguments the model got wrong. Its text
// is what the model sees (as error text); the tool did not run.
type ArgumentsError struct {
	Tool     string
	Problems []string
}

func (e *ArgumentsError) Error() string {
	problems := e.Problems
	if len(problems) > toolspec.ArgumentsMaxProblems {
		problems = append(problems[:toolspec.ArgumentsMaxProblems:toolspec.ArgumentsMaxProblems], toolspec.MsgArgumentsMore(int64(len(e.Problems)-toolspec.ArgumentsMaxProblems)))
	}
	return toolspec.MsgArgumentsInvalid(e.Tool, strings.Join(problems, toolspec.ArgumentsProblemSeparator))
}

// argDecoder checks a call's argument text against a tool's parameters
// as the model was told them (the JSON Schema, plus the cross-argument
// rules), and fills the tool's argument struct.
//
// It accepts what the reference's validation accepts: blank text as {},
// the last of duplicate keys, integral numbers such as 1.0 or 1e3 for
// integers. Unlike the reference it refuses keys the schema does not
// declare (deviation unknownArguments), and a null is a wrong type, not a
// missing argument.
//
// It reads the text once (argjson.go), checks the parsed values and sets
// the struct's fields from them (argfill.go); its answers are those of the
// encoding/json-based decoder it replaced, which args_old_test.go keeps as
// the reference the differential tests compare it with.
type argDecoder struct {
	tool   string
	params []toolspec.Param
	rules  []toolspec.Rule
	enums  map[string][]string
}

const maxShownValue = 40

func (d argDecoder) decode(text []byte, dst any) error {
	problem := func(p string) error { return &ArgumentsError{Tool: d.tool, Problems: []string{p}} }
	if !utf8.Valid(text) {
		return problem(toolspec.MsgArgumentsNotUTF8)
	}
	if isBlank(text) {
		text = []byte("{}")
	}
	p := jsonParser{text: text}
	var top jsonValue
	if !p.value(&top) {
		return problem(toolspec.MsgArgumentsNotJSON(p.reason))
	}
	if rest := bytes.TrimLeft(text[p.pos:], " \t\r\n"); len(rest) > 0 {
		return problem(toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsTrailing(shown(string(rest)))))
	}
	if top.kind != jsonObject {
		return problem(toolspec.MsgArgumentsNotObject(top.typeName()))
	}
	out, problems := d.object(text, d.params, &top, "")
	if len(problems) == 0 {
		present := func(name string) (int64, bool) {
			for _, a := range out {
				if a.p.Name == name {
					return a.n, true
				}
			}
			return 0, false
		}
		if msg := checkRules(d.rules, present); msg != "" {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return &ArgumentsError{Tool: d.tool, Problems: problems}
	}
	return fillArgs(text, reflect.ValueOf(dst), out)
}

// isBlank says whether text is nothing but JavaScript whitespace (what
// String.prototype.trim removes); text is valid UTF-8.
func isBlank(text []byte) bool {
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if !isJSSpace(rune(c)) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if !isJSSpace(r) {
			return false
		}
		i += n
	}
	return true
}

// checkRules returns the message of the first rule the arguments break.
func checkRules(rules []toolspec.Rule, present func(name string) (int64, bool)) string {
	for _, r := range rules {
		if v, ok := present(r.Param); ok && v > r.GreaterThan {
			if _, ok := present(r.Requires); !ok {
				return r.Message
			}
		}
	}
	return ""
}

// argValue is one checked argument: its parameter and its value, or the
// parameter's default when v is nil. n is an integer's value; elems
// holds the checked properties of each element of a KindArray.
type argValue struct {
	p     *toolspec.Param
	v     *jsonValue
	n     int64
	elems [][]argValue
}

// object checks a strict object against params and returns its
// arguments, in parameter order, defaults added. parent names the
// argument the object is an element of ("" for the arguments
// themselves).
func (d argDecoder) object(text []byte, params []toolspec.Param, obj *jsonValue, parent string) ([]argValue, []string) {
	name := func(key string) string {
		if parent == "" {
			return key
		}
		return toolspec.MsgArgumentsProperty(parent, key)
	}
	out := make([]argValue, 0, len(params))
	var problems []string
	for i := range params {
		p := &params[i]
		arg := name(p.Name)
		v := obj.last(p.Name)
		if v == nil {
			switch {
			case p.HasDefault:
				out = append(out, argValue{p: p})
			case !p.Optional:
				problems = append(problems, toolspec.MsgArgumentsMissing(arg))
			}
			continue
		}
		a, probs := d.value(text, p, arg, v)
		problems = append(problems, probs...)
		if len(probs) == 0 {
			out = append(out, a)
		}
	}
	var unknown []string
	for _, k := range obj.keys {
		if !slices.ContainsFunc(params, func(p toolspec.Param) bool { return p.Name == k }) && !slices.Contains(unknown, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		names := make([]string, len(params))
		for i, p := range params {
			names[i] = p.Name
		}
		slices.Sort(unknown)
		for _, k := range unknown {
			problems = append(problems, toolspec.MsgArgumentsUnknown(name(shown(k)), strings.Join(names, toolspec.MsgArgumentsListSeparator)))
		}
	}
	return out, problems
}

func (d argDecoder) value(text []byte, p *toolspec.Param, arg string, v *jsonValue) (argValue, []string) {
	a := argValue{p: p, v: v}
	wrong := func(expected string) []string {
		return []string{toolspec.MsgArgumentsWrongType(arg, expected, v.typeName())}
	}
	switch p.Kind {
	case toolspec.KindString:
		if v.kind != jsonString {
			return a, wrong(toolspec.TypeNameString)
		}
		if problem := tooLong(*p, arg, v.strLen(text)); problem != "" {
			return a, []string{problem}
		}
		if p.MinLength > 0 {
			if n := int64(utf8.RuneCountInString(v.str(text))); n < p.MinLength {
				return a, []string{toolspec.MsgArgumentsTooShort(arg, p.MinLength, n)}
			}
		}
	case toolspec.KindBoolean:
		if v.kind != jsonTrue && v.kind != jsonFalse {
			return a, wrong(toolspec.TypeNameBoolean)
		}
	case toolspec.KindInteger:
		if v.kind != jsonNumber {
			return a, wrong(toolspec.TypeNameInteger)
		}
		num := string(text[v.start:v.end])
		f, err := strconv.ParseFloat(num, 64)
		if err != nil && !math.IsInf(f, 0) {
			return a, []string{toolspec.MsgArgumentsNotInteger(arg, shown(num))}
		}
		switch {
		case math.IsInf(f, 0) || f != math.Trunc(f):
			if math.IsInf(f, 1) {
				return a, []string{toolspec.MsgArgumentsTooBig(arg, p.Maximum, shown(num))}
			}
			if math.IsInf(f, -1) {
				return a, []string{tooSmall(*p, arg, num)}
			}
			return a, []string{toolspec.MsgArgumentsNotInteger(arg, shown(num))}
		case f < float64(p.Minimum) || p.ExclusiveMinimum && f == float64(p.Minimum):
			return a, []string{tooSmall(*p, arg, num)}
		case f > float64(p.Maximum):
			return a, []string{toolspec.MsgArgumentsTooBig(arg, p.Maximum, shown(num))}
		}
		a.n = int64(f)
	case toolspec.KindStringOrList:
		switch v.kind {
		case jsonString:
			if problem := tooLong(*p, arg, v.strLen(text)); problem != "" {
				return a, []string{problem}
			}
		case jsonArray:
			if p.MaxItems > 0 && int64(len(v.elems)) > p.MaxItems {
				return a, []string{toolspec.MsgArgumentsTooMany(arg, p.MaxItems, int64(len(v.elems)))}
			}
			var problems []string
			total := int64(0)
			for i := range v.elems {
				item := &v.elems[i]
				at := toolspec.MsgArgumentsElement(arg, int64(i))
				if item.kind != jsonString {
					problems = append(problems, toolspec.MsgArgumentsWrongType(at, toolspec.TypeNameString, item.typeName()))
				} else if n := item.strLen(text); tooLong(*p, at, n) != "" {
					problems = append(problems, tooLong(*p, at, n))
				} else {
					total += int64(n)
				}
			}
			if p.MaxTotalBytes > 0 && total > p.MaxTotalBytes && len(problems) == 0 {
				problems = append(problems, toolspec.MsgArgumentsTooLong(arg, p.MaxTotalBytes, total))
			}
			if len(problems) > 0 {
				return a, problems
			}
		default:
			return a, wrong(toolspec.TypeNameStringOrList)
		}
	case toolspec.KindArray:
		if v.kind != jsonArray {
			return a, wrong(toolspec.TypeNameArray)
		}
		var problems []string
		a.elems = make([][]argValue, len(v.elems))
		for i := range v.elems {
			item := &v.elems[i]
			at := toolspec.MsgArgumentsElement(arg, int64(i))
			if item.kind != jsonObject {
				problems = append(problems, toolspec.MsgArgumentsWrongType(at, toolspec.TypeNameObject, item.typeName()))
				continue
			}
			var probs []string
			a.elems[i], probs = d.object(text, p.Items, item, at)
			problems = append(problems, probs...)
		}
		if len(problems) > 0 {
			return a, problems
		}
	case toolspec.KindStringRecord:
		if v.kind != jsonObject {
			return a, wrong(toolspec.TypeNameObject)
		}
		var problems []string
		keys := slices.Clone(v.keys)
		slices.Sort(keys)
		keys = slices.Compact(keys)
		for _, k := range keys {
			if e := v.last(k); e.kind != jsonString {
				problems = append(problems, toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsProperty(arg, shown(k)), toolspec.TypeNameString, e.typeName()))
			}
		}
		if len(problems) > 0 {
			return a, problems
		}
	case toolspec.KindEnum:
		if v.kind != jsonString {
			return a, wrong(toolspec.TypeNameString)
		}
		s := v.str(text)
		allowed := d.enums[p.Name]
		if !slices.Contains(allowed, s) {
			quoted := make([]string, len(allowed))
			for i, a := range allowed {
				quoted[i] = toolspec.QuoteJSON(a)
			}
			return a, []string{toolspec.MsgArgumentsNotInEnum(arg, strings.Join(quoted, toolspec.MsgArgumentsListSeparator), toolspec.QuoteJSON(shown(s)))}
		}
	case toolspec.KindJSONRecord:
		if v.kind != jsonObject {
			return a, wrong(toolspec.TypeNameObject)
		}
	}
	return a, nil
}

// tooSmall is the problem with a number below the parameter's lower
// bound, num as the model wrote it.
func tooSmall(p toolspec.Param, arg, num string) string {
	if p.ExclusiveMinimum {
		return toolspec.MsgArgumentsNotAbove(arg, p.Minimum, shown(num))
	}
	return toolspec.MsgArgumentsTooSmall(arg, p.Minimum, shown(num))
}

// tooLong is the problem with a string value longer than the parameter's
// cap in UTF-8 bytes (deviation patternLength), or "".
func tooLong(p toolspec.Param, arg string, n int) string {
	if p.MaxBytes > 0 && int64(n) > p.MaxBytes {
		return toolspec.MsgArgumentsTooLong(arg, p.MaxBytes, int64(n))
	}
	return ""
}

// shown shortens a value quoted in a message to its first maxShownValue
// characters (toolspec.MsgShortened).
func shown(s string) string {
	if utf8.RuneCountInString(s) <= maxShownValue {
		return s
	}
	return toolspec.MsgShortened(string([]rune(s)[:maxShownValue]))
}

// isJSSpace is JavaScript's String.prototype.trim whitespace.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A || unicode.Is(unicode.Zs, r)
}
