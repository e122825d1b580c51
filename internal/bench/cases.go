package bench

// The bench case file (the oracle's bench.json, documented in the header
// of the oracle's bench.mjs): the oracle case format plus repeat, warmup,
// label, follow, maxFollow, each, bytes, expect, the "tree" setup op and
// {"$gen":"iter"}. fsCalls (raw workspace.fs rows) are the reference's
// own and are skipped. JSON values whose key order reaches the tool
// (args) are kept in an ordered form, so the text we validate is the
// text the reference validates.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/internal/replay"
)

// Case is one bench case: the oracle's case format (setup, toolOptions,
// clock, backends, execClock, calls) plus the case-level repeat and
// warmup defaults.
type Case struct {
	Name        string               `json:"name"`
	Setup       []Op                 `json:"setup"`
	ToolOptions json.RawMessage      `json:"toolOptions"`
	Clock       *int64               `json:"clock"`
	Backends    []replay.BackendSpec `json:"backends"`
	ExecClock   json.RawMessage      `json:"execClock"`
	Calls       []Call               `json:"calls"`
	Repeat      *int                 `json:"repeat"`
	Warmup      *int                 `json:"warmup"`
}

// Call is one row of a case: a tool call and how to time and check it
// (bench.mjs's header documents each key).
type Call struct {
	Tool      string          `json:"tool"`
	Label     string          `json:"label"`
	Args      json.RawMessage `json:"args"`
	Script    json.RawMessage `json:"script"`
	Repeat    *int            `json:"repeat"`
	Warmup    *int            `json:"warmup"`
	Follow    bool            `json:"follow"`
	MaxFollow int             `json:"maxFollow"`
	Each      []Op            `json:"each"`
	Bytes     json.RawMessage `json:"bytes"`
	Expect    json.RawMessage `json:"expect"`
}

// Op is a setup step: write, mkdir, symlink, chmod, rm, or the bench's
// tree (count files under path, perDir per sub-directory).
type Op struct {
	Op        string          `json:"op"`
	Path      string          `json:"path"`
	Content   json.RawMessage `json:"content"`
	Encoding  string          `json:"encoding"`
	Mode      json.RawMessage `json:"mode"`
	Target    string          `json:"target"`
	Recursive bool            `json:"recursive"`
	Force     bool            `json:"force"`
	Count     int             `json:"count"`
	PerDir    int             `json:"perDir"`
	Dir       string          `json:"dir"`
	File      string          `json:"file"`
	Exts      []string        `json:"exts"`
	Lines     *int            `json:"lines"`
	Template  string          `json:"template"`
}

// LoadCases reads a case file: a JSON array of cases, or {"cases": [...]}.
func LoadCases(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Case
	if json.Unmarshal(data, &list) == nil {
		return list, nil
	}
	var wrapped struct {
		Cases []Case `json:"cases"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return wrapped.Cases, nil
}

// Ordered JSON: an object is a list of members; other values are what
// a json.Decoder with UseNumber gives.

type member struct {
	key string
	val any
}

type object []member

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// with returns o with key set: replaced in place, or appended (as
// JavaScript's {...o, key: v} does).
func (o object) with(key string, v any) object {
	out := append(object{}, o...)
	for i := range out {
		if out[i].key == key {
			out[i].val = v
			return out
		}
	}
	return append(out, member{key, v})
}

func parseOrdered(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k.(string), v})
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

// encode writes v as JSON.stringify would.
func encode(v any) []byte {
	var b bytes.Buffer
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case object:
			b.WriteByte('{')
			for i, m := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				key, _ := core.MarshalJSON(m.key)
				b.Write(key)
				b.WriteByte(':')
				walk(m.val)
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				walk(e)
			}
			b.WriteByte(']')
		case json.Number:
			b.WriteString(string(x))
		default:
			s, err := core.MarshalJSON(x)
			if err != nil {
				panic(err)
			}
			b.Write(s)
		}
	}
	walk(v)
	return b.Bytes()
}

// expand replaces every {"$gen": ...} in v by the string it makes; iter
// is the iteration number ("$gen":"iter"; warm-ups count).
func expand(v any, iter int) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = expand(e, iter); err != nil {
				return nil, err
			}
		}
		return out, nil
	case object:
		if kind, ok := x.get("$gen"); ok {
			return generate(kind, x, iter)
		}
		out := make(object, len(x))
		for i, m := range x {
			e, err := expand(m.val, iter)
			if err != nil {
				return nil, err
			}
			out[i] = member{m.key, e}
		}
		return out, nil
	}
	return v, nil
}

func usesIter(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if usesIter(e) {
				return true
			}
		}
	case object:
		if kind, _ := x.get("$gen"); kind == "iter" {
			return true
		}
		for _, m := range x {
			if usesIter(m.val) {
				return true
			}
		}
	}
	return false
}

func intOf(v any, def int) int {
	if n, ok := v.(json.Number); ok {
		if i, err := strconv.Atoi(string(n)); err == nil {
			return i
		}
	}
	return def
}

func stringOf(v any, iter int) (string, error) {
	e, err := expand(v, iter)
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

func generate(kind any, spec object, iter int) (string, error) {
	get := func(k string) any { v, _ := spec.get(k); return v }
	switch kind {
	case "repeat":
		text, err := stringOf(get("text"), iter)
		return strings.Repeat(text, intOf(get("times"), 0)), err
	case "lines":
		template, eol := "line {n}", "\n"
		if t, ok := get("template").(string); ok {
			template = t
		}
		if e, ok := get("eol").(string); ok {
			eol = e
		}
		return lines(intOf(get("count"), 0), intOf(get("start"), 1), template, eol, get("final") != false), nil
	case "concat":
		parts, _ := get("parts").([]any)
		var b strings.Builder
		for _, p := range parts {
			s, err := stringOf(p, iter)
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

func lines(count, start int, template, eol string, final bool) string {
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

// treeWrites turns a tree op into the write ops it stands for, as
// bench.mjs's treeOps does; content is returned already expanded.
func treeWrites(t Op, iter int) ([]Op, [][]byte, error) {
	exts := t.Exts
	if len(exts) == 0 {
		exts = []string{""}
	}
	fileTmpl, dirTmpl := t.File, t.Dir
	if fileTmpl == "" {
		fileTmpl = "f{i}{ext}"
	}
	if dirTmpl == "" {
		dirTmpl = "d{d}"
	}
	var fixed any
	if t.Lines == nil && len(t.Content) > 0 {
		var err error
		if fixed, err = parseOrdered(t.Content); err != nil {
			return nil, nil, err
		}
	}
	var ops []Op
	var contents [][]byte
	for i := range t.Count {
		d, j, dir := 0, i, t.Path
		if t.PerDir > 0 {
			d, j = i/t.PerDir, i%t.PerDir
			dir = t.Path + "/" + strings.ReplaceAll(dirTmpl, "{d}", strconv.Itoa(d))
		}
		name := strings.NewReplacer("{i}", strconv.Itoa(i), "{j}", strconv.Itoa(j), "{ext}", exts[i%len(exts)]).Replace(fileTmpl)
		var content string
		switch {
		case t.Lines != nil:
			tmpl := t.Template
			if tmpl == "" {
				tmpl = "line {n}"
			}
			content = lines(*t.Lines, i**t.Lines+1, strings.ReplaceAll(tmpl, "{i}", strconv.Itoa(i)), "\n", true)
		case fixed == nil:
		default:
			if s, ok := fixed.(string); ok {
				content = strings.ReplaceAll(s, "{i}", strconv.Itoa(i))
			} else {
				var err error
				if content, err = stringOf(fixed, iter); err != nil {
					return nil, nil, err
				}
			}
		}
		ops = append(ops, Op{Op: "write", Path: dir + "/" + name, Mode: t.Mode})
		contents = append(contents, []byte(content))
	}
	return ops, contents, nil
}

// summarize shortens a result for a row's "result" as bench.mjs's
// summarizeOutput does: strings over 100 UTF-16 units to their first 60
// and a count, arrays below the top or over 3 items to a count, objects
// deeper than two levels to "[object]".
func summarize(v any, depth int) any {
	switch x := v.(type) {
	case string:
		units := utf16.Encode([]rune(x))
		if len(units) > 100 {
			return string(utf16.Decode(units[:60])) + "...[" + strconv.Itoa(len(units)) + " chars]"
		}
		return x
	case []any:
		if depth > 0 || len(x) > 3 {
			return "[array(" + strconv.Itoa(len(x)) + ")]"
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = summarize(e, depth+1)
		}
		return out
	case object:
		if depth > 1 {
			return "[object]"
		}
		out := make(object, len(x))
		for i, m := range x {
			out[i] = member{m.key, summarize(m.val, depth+1)}
		}
		return out
	}
	return v
}
