package adapt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/toolspec"
)

// StrictDialect is a provider's strict mode for tool arguments: the
// schemas it accepts for a tool declared strict, with which the provider
// samples only arguments that match.
type StrictDialect int

const (
	// StrictOpenAI is OpenAI's Structured Outputs: function tools with
	// strict: true, in Chat Completions and in the Responses API.
	StrictOpenAI StrictDialect = iota + 1
	// StrictAnthropic is Anthropic's strict tool use: strict: true on a
	// tool.
	StrictAnthropic
)

// dialect is what a strict mode accepts of a schema object.
type dialect struct {
	// keep are the keywords the strict mode accepts; StrictSchema moves
	// the others into the description. "$schema" is dropped instead: it
	// says nothing to the model.
	keep []string
	// formats are the string formats it accepts.
	formats []string
	// minItems reports whether it accepts an array's minItems of value v.
	minItems func(v json.RawMessage) bool
	// nullable makes a property's closed schema s (an object's members)
	// also accept null.
	nullable func(s []member) []member
}

var dialects = map[StrictDialect]dialect{
	// From OpenAI's Structured Outputs guide, "Supported schemas": the
	// types, anyOf, enum, const, $defs and $ref, description; for strings
	// pattern and format (the formats listed there); for numbers
	// multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum;
	// for arrays minItems and maxItems. Every other keyword (default,
	// minLength, ...) is refused ("'default' is not permitted"). An
	// optional field is a required one whose type also lists "null".
	StrictOpenAI: {
		keep: []string{"type", "description", "enum", "const", "anyOf", "properties", "required", "additionalProperties", "items",
			"pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems"},
		formats:  []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"},
		minItems: func(json.RawMessage) bool { return true },
		nullable: nullableType,
	},
	// From anthropic-sdk-go v2.15.0's schemautil.go (supportedSchemaKeys,
	// supportedStringFormats, transformSchema), which shapes a schema for
	// the API's strict tool use and structured outputs: minItems only 0
	// or 1. Its schema type (invopop/jsonschema's Schema) holds one type,
	// not a list, so a nullable field is an anyOf with a {"type":"null"}
	// branch, as it writes a Go pointer's.
	StrictAnthropic: {
		keep: []string{"type", "anyOf", "description", "title", "enum", "const", "properties", "additionalProperties", "required",
			"items", "minItems", "format", "pattern"},
		formats:  []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"},
		minItems: func(v json.RawMessage) bool { return string(v) == "0" || string(v) == "1" },
		nullable: nullableBranch,
	},
}

// StrictSchema returns schema (a tool's input schema, JSON text) closed
// for the dialect's strict mode, and false when it cannot be closed: an
// object that is a map (exec's env and input), a value of any JSON type,
// a $ref; such a tool is declared without strict.
//
// Closed, as the providers require: in every object every property is
// listed in required, in property order, and a property that was
// optional also accepts null if it did not (OpenAI: "null" added to its
// type, and to its enum; Anthropic: an anyOf of its schema and
// {"type":"null"}; both: a {"type":"null"} branch added to an anyOf it
// has); additionalProperties
// is false on every object; "$schema" is dropped. A keyword the dialect
// refuses is removed and, as the official SDKs do (anthropic-sdk-go's
// transformSchema), written in that schema's description, after
// toolspec.MsgStrictDescriptionSeparator, as toolspec.MsgStrictKeywords
// ("\n\n{default: /workspace, maximum: 1000}": sorted by keyword, a
// string as it is, another value as its JSON text). Every other member
// keeps its place and its bytes. A call's arguments then have every
// field, an absent one as null: DropAbsentNulls turns them back.
func StrictSchema(schema string, d StrictDialect) (string, bool) {
	dl, ok := dialects[d]
	if !ok {
		return "", false
	}
	members, ok := object([]byte(schema))
	if !ok || !isObjectType(members) {
		return "", false
	}
	out, ok := dl.close(members)
	if !ok {
		return "", false
	}
	return string(encode(out)), true
}

// close returns the schema object s closed (see StrictSchema), and false
// when it cannot be.
func (dl dialect) close(s []member) ([]member, bool) {
	if find(s, "$ref") >= 0 || find(s, "definitions") >= 0 || find(s, "$defs") >= 0 {
		return nil, false
	}
	var moved []member
	out := make([]member, 0, len(s)+2)
	for _, m := range s {
		switch {
		case m.key == "$schema":
			continue
		case m.key == "anyOf":
			var branches []json.RawMessage
			if json.Unmarshal(m.value, &branches) != nil {
				return nil, false
			}
			for i, b := range branches {
				closed, ok := dl.closeJSON(b)
				if !ok {
					return nil, false
				}
				branches[i] = encode(closed)
			}
			m.value = list(branches)
		case m.key == "items":
			closed, ok := dl.closeJSON(m.value)
			if !ok {
				return nil, false
			}
			m.value = encode(closed)
		case m.key == "properties" || m.key == "required" || m.key == "additionalProperties":
			// closeObject writes them.
		case !slices.Contains(dl.keep, m.key),
			m.key == "format" && !slices.Contains(dl.formats, unquote(m.value)),
			m.key == "minItems" && !dl.minItems(m.value):
			moved = append(moved, m)
			continue
		}
		out = append(out, m)
	}
	if isObjectType(s) {
		var ok bool
		if out, ok = dl.closeObject(s, out); !ok {
			return nil, false
		}
	} else if find(s, "type") < 0 && find(s, "anyOf") < 0 && find(s, "enum") < 0 && find(s, "const") < 0 {
		return nil, false // any JSON value
	}
	return describe(out, moved), true
}

// closeJSON is close of the schema object written v.
func (dl dialect) closeJSON(v json.RawMessage) ([]member, bool) {
	s, ok := object(v)
	if !ok {
		return nil, false
	}
	return dl.close(s)
}

// closeObject writes into out (the members of the object schema s that
// close kept) s's properties, each closed, every one required and the
// optional ones nullable, and additionalProperties false. It fails for
// a map (no properties, or additionalProperties a schema).
func (dl dialect) closeObject(s, out []member) ([]member, bool) {
	pi := find(s, "properties")
	if pi < 0 {
		return nil, false
	}
	if ai := find(s, "additionalProperties"); ai >= 0 && string(s[ai].value) != "false" {
		return nil, false
	}
	props, ok := object(s[pi].value)
	if !ok {
		return nil, false
	}
	var required []string
	if ri := find(s, "required"); ri >= 0 && json.Unmarshal(s[ri].value, &required) != nil {
		return nil, false
	}
	names := make([]json.RawMessage, len(props))
	for i, p := range props {
		closed, ok := dl.closeJSON(p.value)
		if !ok {
			return nil, false
		}
		if !slices.Contains(required, p.key) && !acceptsNull(p.value) {
			closed = dl.nullable(closed)
		}
		props[i].value = encode(closed)
		names[i] = json.RawMessage(toolspec.QuoteJSON(p.key))
	}
	out = set(out, "properties", encode(props), "")
	out = set(out, "required", list(names), "properties")
	return set(out, "additionalProperties", json.RawMessage("false"), ""), true
}

// describe returns s with the moved keywords written in its description
// (see StrictSchema).
func describe(s, moved []member) []member {
	if len(moved) == 0 {
		return s
	}
	slices.SortFunc(moved, func(a, b member) int { return strings.Compare(a.key, b.key) })
	parts := make([]string, len(moved))
	for i, m := range moved {
		v := string(m.value)
		if m.value[0] == '"' {
			v = unquote(m.value)
		}
		parts[i] = toolspec.MsgStrictKeyword(m.key, v)
	}
	text := toolspec.MsgStrictKeywords(strings.Join(parts, toolspec.MsgStrictKeywordSeparator))
	if di := find(s, "description"); di >= 0 {
		text = unquote(s[di].value) + toolspec.MsgStrictDescriptionSeparator + text
	}
	return set(s, "description", json.RawMessage(toolspec.QuoteJSON(text)), "")
}

// nullableType is StrictOpenAI's nullable: "null" added to the type (a
// list then) and to the enum, or a {"type":"null"} branch to the anyOf.
func nullableType(s []member) []member {
	if i := find(s, "anyOf"); i >= 0 {
		return nullBranch(s, i)
	}
	for _, key := range []string{"type", "enum"} {
		i := find(s, key)
		if i < 0 {
			continue
		}
		var items []json.RawMessage
		if s[i].value[0] == '[' {
			_ = json.Unmarshal(s[i].value, &items)
		} else {
			items = []json.RawMessage{s[i].value}
		}
		if !slices.ContainsFunc(items, func(v json.RawMessage) bool { return string(v) == "null" || string(v) == `"null"` }) {
			null := `null`
			if key == "type" {
				null = `"null"`
			}
			s[i].value = list(append(items, json.RawMessage(null)))
		}
	}
	return s
}

// nullableBranch is StrictAnthropic's nullable: a {"type":"null"} branch
// added to the anyOf; without one, the schema's members but its
// description and title become the first branch of a new anyOf, in
// their place, and {"type":"null"} the second.
func nullableBranch(s []member) []member {
	if i := find(s, "anyOf"); i >= 0 {
		return nullBranch(s, i)
	}
	var out, branch []member
	at := -1
	for _, m := range s {
		if m.key == "description" || m.key == "title" {
			out = append(out, m)
			continue
		}
		if at < 0 {
			at = len(out)
			out = append(out, member{key: "anyOf"})
		}
		branch = append(branch, m)
	}
	if at < 0 {
		return s // no type: any value, null too
	}
	out[at].value = list([]json.RawMessage{encode(branch), json.RawMessage(nullSchema)})
	return out
}

const nullSchema = `{"type":"null"}`

// nullBranch adds {"type":"null"} to the anyOf s[i] unless a branch
// already is that.
func nullBranch(s []member, i int) []member {
	var branches []json.RawMessage
	_ = json.Unmarshal(s[i].value, &branches)
	if !slices.ContainsFunc(branches, func(b json.RawMessage) bool { return string(b) == nullSchema }) {
		s[i].value = list(append(branches, json.RawMessage(nullSchema)))
	}
	return s
}

// isObjectType reports whether the schema s has "type": "object".
func isObjectType(s []member) bool {
	i := find(s, "type")
	return i >= 0 && string(s[i].value) == `"object"`
}

// member is one member of a JSON object: its key and its value's bytes.
type member struct {
	key   string
	value json.RawMessage
}

// object decodes a JSON object into its members, in their order, and
// false when data is not one.
func object(data []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	out := []member{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil, false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		out = append(out, member{key, v})
	}
	return out, true
}

// encode writes members as a compact JSON object, keys quoted as
// JSON.stringify quotes them.
func encode(members []member) json.RawMessage {
	var b []byte
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = toolspec.AppendJSONString(b, m.key)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return append(b, '}')
}

// list writes values as a compact JSON array.
func list(values []json.RawMessage) json.RawMessage {
	b := json.RawMessage("[")
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// find returns the index of the member key in s, or -1.
func find(s []member, key string) int {
	return slices.IndexFunc(s, func(m member) bool { return m.key == key })
}

// set returns s with the member key set to value: in its place if s has
// it, else after the member after (or last when after is "" or absent).
func set(s []member, key string, value json.RawMessage, after string) []member {
	if i := find(s, key); i >= 0 {
		s[i].value = value
		return s
	}
	i := len(s)
	if j := find(s, after); after != "" && j >= 0 {
		i = j + 1
	}
	return slices.Insert(s, i, member{key, value})
}

// unquote returns the JSON string v's text ("" when v is no string).
func unquote(v json.RawMessage) string {
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// StrictChoice is what an SDK adapter's Strict options asked for: which
// tools are declared for the provider's strict mode. The zero value asks
// for none.
type StrictChoice struct {
	on    bool
	tools []string // the spec's names given; none: the spec's constrained-sampling tools
}

// Add records one Strict option: with no names, the tools the spec marks
// for constrained sampling (read, write, edit, as the reference's pi
// adapter does); with names, those. Options given twice add up.
func (c *StrictChoice) Add(tools ...string) {
	c.on = true
	c.tools = append(c.tools, tools...)
}

// On reports whether a Strict option was given: then every call's
// arguments go through DropAbsentNulls.
func (c *StrictChoice) On() bool { return c.on }

// Check fails on a name the spec has no tool for; framework names the
// adapter in the error.
func (c *StrictChoice) Check(framework string) error {
	for _, name := range c.tools {
		if _, ok := toolspec.Info(name); !ok {
			return fmt.Errorf("%s: Strict: no tool %q", framework, name)
		}
	}
	return nil
}

// Schema is the input schema t is declared with, and whether it is
// declared strict: t's own schema unless the choice covers t and
// StrictSchema can close it for d.
func (c *StrictChoice) Schema(t core.Tool, d StrictDialect) (string, bool) {
	if !c.covers(t.Spec) {
		return t.InputSchema, false
	}
	if closed, ok := StrictSchema(t.InputSchema, d); ok {
		return closed, true
	}
	return t.InputSchema, false
}

func (c *StrictChoice) covers(spec string) bool {
	if !c.on {
		return false
	}
	if len(c.tools) == 0 {
		info, _ := toolspec.Info(spec)
		return info.ConstrainedSampling
	}
	return slices.Contains(c.tools, spec)
}
