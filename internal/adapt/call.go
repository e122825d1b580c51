package adapt

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/toolspec"
)

// Call runs one call of the tool the model named name on ex, as an SDK
// adapter (whose caller runs the loop) must. A name the set does not
// offer answers error text toolspec.MsgUnknownTool, naming the offered
// tools as the set offers them (with its prefix), as the reference's pi
// adapter does: `Unknown tool "x". Available tools: "read", "ls".`. With
// dropNulls (an adapter's Strict option) args go through DropAbsentNulls
// first. Invalid arguments and tool failures are outputs too; the error
// is only ex.Call's: a cancelled context, an Approver's error.
func Call(ctx context.Context, ex *core.Executor, name string, args []byte, dropNulls bool) (toolspec.Output, error) {
	t, ok := ex.Tool(name)
	if !ok {
		var names []string
		for _, t := range ex.Tools() {
			names = append(names, toolspec.QuoteJSON(t.Name))
		}
		return toolspec.Output{Kind: toolspec.OutputErrorText, Text: toolspec.MsgUnknownTool(name, strings.Join(names, toolspec.MsgToolListSeparator))}, nil
	}
	if dropNulls {
		args = DropAbsentNulls(t.InputSchema, args)
	}
	return ex.Call(ctx, name, args)
}

// DropAbsentNulls returns args (the model's JSON arguments) without the
// top-level members whose value is null and whose property is optional
// and does not accept null in schema (the tool's own input schema, not
// the one StrictSchema closed): under strict mode such a null stands for
// a field left out, as the reference's pi adapter treats it
// (dropPlaceholderNulls). A key given more than once counts by its last
// value, as JSON.parse and core read it: when that is such a null, all
// its members go. Everything else is byte for byte as it was,
// args itself when nothing is dropped. Args that are not a JSON object,
// or a schema that is not one, leave args unchanged.
func DropAbsentNulls(schema string, args []byte) []byte {
	// A null value is spelled null in JSON text, never escaped: arguments
	// without the word have none to drop, and the schema is not read.
	if !bytes.Contains(args, []byte("null")) {
		return args
	}
	absent := absentWhenNull(schema)
	if len(absent) == 0 {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return args
	}
	// Each member's span runs from the end of what came before it (the
	// brace, or the previous value) to the end of its value, so it holds
	// the comma before it.
	type span struct {
		start, end int64
		key        string
		drop       bool
	}
	var spans []span
	// lastNull is, for each key, whether its last value is null: a key
	// given twice has its last value, as JSON.parse and core read it, so
	// every member of a key whose last value is a dropped null goes.
	lastNull := map[string]bool{}
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return args
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return args
		}
		spans = append(spans, span{start: start, end: dec.InputOffset(), key: key})
		lastNull[key] = string(v) == "null"
	}
	for i, s := range spans {
		spans[i].drop = lastNull[s.key] && slices.Contains(absent, s.key)
	}
	if _, err := dec.Token(); err != nil || !slices.ContainsFunc(spans, func(s span) bool { return s.drop }) {
		return args
	}
	out := append([]byte(nil), args[:spans[0].start]...)
	first := true
	for _, s := range spans {
		if s.drop {
			continue
		}
		part := args[s.start:s.end]
		if first && s != spans[0] {
			// It followed a dropped member: its comma goes.
			i := bytes.IndexByte(part, ',')
			part = append(part[:i:i], part[i+1:]...)
		}
		out = append(out, part...)
		first = false
	}
	return append(out, args[spans[len(spans)-1].end:]...)
}

// absentWhenNull returns the properties of the object schema that are
// optional and do not accept null.
func absentWhenNull(schema string) []string {
	s, ok := object([]byte(schema))
	if !ok {
		return nil
	}
	pi := find(s, "properties")
	if pi < 0 {
		return nil
	}
	props, _ := object(s[pi].value)
	var required []string
	if ri := find(s, "required"); ri >= 0 {
		_ = json.Unmarshal(s[ri].value, &required)
	}
	var out []string
	for _, p := range props {
		if !slices.Contains(required, p.key) && !acceptsNull(p.value) {
			out = append(out, p.key)
		}
	}
	return out
}

// acceptsNull reports whether the schema accepts null: its type is or
// lists "null", an anyOf branch accepts it, its enum lists it, its const
// is it, or it says nothing of the type (any value).
func acceptsNull(schema json.RawMessage) bool {
	s, ok := object(schema)
	if !ok {
		return string(schema) == "true"
	}
	var (
		typ      any
		branches []json.RawMessage
		enum     []json.RawMessage
	)
	if i := find(s, "type"); i >= 0 {
		_ = json.Unmarshal(s[i].value, &typ)
	}
	if i := find(s, "anyOf"); i >= 0 {
		_ = json.Unmarshal(s[i].value, &branches)
	}
	if i := find(s, "enum"); i >= 0 {
		_ = json.Unmarshal(s[i].value, &enum)
	}
	ci := find(s, "const")
	switch {
	case typ != nil:
		types, _ := typ.([]any)
		return typ == "null" || slices.Contains(types, any("null"))
	case branches != nil:
		return slices.ContainsFunc(branches, acceptsNull)
	case enum != nil:
		return slices.ContainsFunc(enum, func(v json.RawMessage) bool { return string(v) == "null" })
	case ci >= 0:
		return string(s[ci].value) == "null"
	}
	return find(s, "$ref") < 0
}
