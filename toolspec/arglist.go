package toolspec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// DescribeArguments returns description followed by the arguments that
// inputSchema (a tool's JSON Schema) declares, for an agent that shows
// the model only a tool's name and description: ArgListWithArguments
// with one ArgListArgument line per property, in the schema's order,
// each followed by the lines of the properties of its items (an array of
// objects) or of its own properties (an object). Ours, opt-in (deviation
// argumentList): the reference never adds it. A schema that is not a
// JSON object, or that declares no properties, gives description
// unchanged.
func DescribeArguments(description, inputSchema string) string {
	var s argSchema
	if json.Unmarshal([]byte(inputSchema), &s) != nil || len(s.Properties) == 0 {
		return description
	}
	var b strings.Builder
	s.writeProperties(&b, func(key string) string { return key })
	return ArgListWithArguments(description, b.String())
}

// argSchema is what the listing reads of a JSON Schema.
type argSchema struct {
	Type                 string            `json:"type"`
	Description          *string           `json:"description"`
	Default              json.RawMessage   `json:"default"`
	Enum                 []json.RawMessage `json:"enum"`
	AnyOf                []argSchema       `json:"anyOf"`
	Items                *argSchema        `json:"items"`
	Properties           json.RawMessage   `json:"properties"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	Required             []string          `json:"required"`
}

// writeProperties writes one line per property of s, each followed by
// the lines of its own properties or its items'; name gives a property's
// name from its key.
func (s *argSchema) writeProperties(b *strings.Builder, name func(key string) string) {
	for _, p := range orderedProperties(s.Properties) {
		presence := ArgListOptional
		switch {
		case slices.Contains(s.Required, p.key):
			presence = ArgListRequired
		case p.schema.Default != nil:
			presence = ArgListOptionalDefault(string(p.schema.Default))
		}
		arg := name(p.key)
		if p.schema.Description != nil {
			b.WriteString(ArgListArgument(arg, p.schema.shape(), presence, *p.schema.Description))
		} else {
			b.WriteString(ArgListArgumentBare(arg, p.schema.shape(), presence))
		}
		switch {
		case p.schema.Items != nil && len(p.schema.Items.Properties) > 0:
			p.schema.Items.writeProperties(b, func(key string) string { return ArgListItemProperty(arg, key) })
		case len(p.schema.Properties) > 0:
			p.schema.writeProperties(b, func(key string) string { return ArgListProperty(arg, key) })
		}
	}
}

// shape names s's type: its enum's values, its alternatives, an array of
// its items' shape, an object of its values' shape, or its type's name.
func (s *argSchema) shape() string {
	switch {
	case len(s.Enum) > 0:
		values := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			values[i] = string(v)
		}
		return ArgListOneOf(strings.Join(values, ArgListListSeparator))
	case len(s.AnyOf) > 0:
		shapes := make([]string, len(s.AnyOf))
		for i := range s.AnyOf {
			shapes[i] = s.AnyOf[i].shape()
		}
		return strings.Join(shapes, ArgListAlternative)
	case s.Type == "array" && s.Items != nil:
		return ArgListArrayOf(s.Items.shape())
	case s.Type == "object" && bytes.HasPrefix(bytes.TrimSpace(s.AdditionalProperties), []byte("{")):
		var values argSchema
		if json.Unmarshal(s.AdditionalProperties, &values) == nil {
			return ArgListObjectOf(values.shape())
		}
	}
	if name, ok := ArgListTypeNames[s.Type]; ok {
		return name
	}
	return ArgListAnyValue
}

type argProperty struct {
	key    string
	schema argSchema
}

// orderedProperties decodes a properties object in the order it is
// written: the order the spec gives the model (a map would lose it).
func orderedProperties(raw json.RawMessage) []argProperty {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []argProperty
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return out
		}
		var p argProperty
		p.key = key
		if dec.Decode(&p.schema) != nil {
			return out
		}
		out = append(out, p)
	}
	return out
}
