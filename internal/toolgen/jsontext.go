package toolgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// quote spells s as a JSON string the way JavaScript's JSON.stringify
// does (no HTML escaping). Spec texts never hold U+2028 or U+2029, which
// encoding/json would escape and JSON.stringify would not, nor bytes that
// are not UTF-8, which encoding/json would write as the escape \ufffd
// where JSON.stringify writes the character; quote refuses them rather
// than differ.
func quote(s string) string {
	if strings.ContainsAny(s, "\u2028\u2029") {
		panic(fmt.Sprintf("spec text holds U+2028 or U+2029: %q", s))
	}
	if !utf8.ValidString(s) {
		panic(fmt.Sprintf("spec text is not UTF-8: %q", s))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// object writes JSON object text from key/value pairs whose values are
// already JSON text, in the order given.
func object(pairs ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(pairs[i]))
		b.WriteByte(':')
		b.WriteString(pairs[i+1])
	}
	b.WriteByte('}')
	return b.String()
}

func array(items ...string) string {
	return "[" + strings.Join(items, ",") + "]"
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quote(n)
	}
	return out
}

// enumMark stands for the runtime list of an enum parameter's values in
// a schema fragment computed at generation time.
const enumMark = "\x00enum\x00"

// jsonValueDefinition is the JSON Schema of "any JSON value", as the
// reference's zod schema renders it, referenced by jsonRecord parameters.
var jsonValueDefinition = object("__schema0", object("anyOf", array(
	object("type", quote("string")),
	object("type", quote("number")),
	object("type", quote("boolean")),
	object("type", quote("null")),
	object("type", quote("array"), "items", object("$ref", quote("#/definitions/__schema0"))),
	object("type", quote("object"), "propertyNames", object("type", quote("string")),
		"additionalProperties", object("$ref", quote("#/definitions/__schema0"))),
)))

// baseKeys is the key/value list a parameter kind contributes, before or
// after its description depending on whether the parameter is optional
// (the order zod's JSON Schema conversion produces).
func baseKeys(p Param) []string {
	switch p.Kind {
	case "string":
		if p.MinLength != nil {
			return []string{"type", quote("string"), "minLength", strconv.FormatInt(*p.MinLength, 10)}
		}
		return []string{"type", quote("string")}
	case "integer":
		low := []string{"minimum", ""}
		if p.ExclMinimum != nil {
			low = []string{"exclusiveMinimum", strconv.FormatInt(*p.ExclMinimum, 10)}
		} else {
			low[1] = strconv.FormatInt(*p.Minimum, 10)
		}
		return append(append([]string{"type", quote("integer")}, low...),
			"maximum", strconv.FormatInt(*p.Maximum, 10))
	case "boolean":
		return []string{"type", quote("boolean")}
	case "stringOrList":
		return []string{"anyOf", array(
			object("type", quote("string")),
			object("type", quote("array"), "items", object("type", quote("string"))))}
	case "array":
		return []string{"type", quote("array"), "items", objectSchema(p.Items)}
	case "stringRecord":
		return []string{"type", quote("object"),
			"propertyNames", object("type", quote("string")),
			"additionalProperties", object("type", quote("string"))}
	case "enum":
		return []string{"type", quote("string"), "enum", "[" + enumMark + "]"}
	case "jsonRecord":
		return []string{"type", quote("object"),
			"propertyNames", object("type", quote("string")),
			"additionalProperties", object("$ref", quote("#/definitions/__schema0"))}
	}
	panic("unknown parameter kind " + p.Kind)
}

// paramSchema is one parameter's schema with the given description.
func paramSchema(p Param, description string) string {
	var kv []string
	optional := p.Optional || p.Default != nil
	if optional {
		if p.Default != nil {
			kv = append(kv, "default", quote(*p.Default))
		}
		if description != "" {
			kv = append(kv, "description", quote(description))
		}
		kv = append(kv, baseKeys(p)...)
	} else {
		kv = append(kv, baseKeys(p)...)
		if description != "" {
			kv = append(kv, "description", quote(description))
		}
	}
	return object(kv...)
}

// objectSchema is a strict object of params, each with its own
// description.
func objectSchema(params []Param) string {
	var props, required []string
	for _, p := range params {
		props = append(props, p.Name, paramSchema(p, p.Description))
		if !p.Optional && p.Default == nil {
			required = append(required, p.Name)
		}
	}
	return strictObject(props, required)
}

// strictObject is the schema of an object with exactly the properties
// props (name/schema pairs), the named ones required.
func strictObject(props, required []string) string {
	kv := []string{"type", quote("object"), "properties", object(props...)}
	if len(required) > 0 {
		kv = append(kv, "required", array(quoteAll(required)...))
	}
	kv = append(kv, "additionalProperties", "false")
	return object(kv...)
}

// fieldSchema is the JSON Schema of a result field in an output schema
// (see #Tool.outputSchema in the spec), and false for a type an output
// schema does not express (json, lists).
func fieldSchema(m *Model, f Field) (string, bool) {
	switch f.Type {
	case "string":
		return object("type", quote("string")), true
	case "int":
		return object("type", quote("integer"),
			"minimum", strconv.FormatInt(m.OutputInteger.Minimum, 10),
			"maximum", strconv.FormatInt(m.OutputInteger.Maximum, 10)), true
	case "bool":
		return object("type", quote("boolean")), true
	case "true", "false":
		// A required constant tells the branches of a union apart; an
		// optional flag, written only when set, is a plain boolean as
		// the reference declares it.
		if f.Optional && f.Type == "true" {
			return object("type", quote("boolean")), true
		}
		return object("type", quote("boolean"), "const", f.Type), true
	}
	return "", false
}

// outputSchemaText is a tool's output schema: the dialect, then anyOf
// with one strict object per result, as the reference's schemas are
// written.
func outputSchemaText(m *Model, results []Result) string {
	var branches []string
	for _, r := range results {
		var props, required []string
		for _, f := range r.Fields {
			s, _ := fieldSchema(m, f)
			props = append(props, f.Name, s)
			if !f.Optional {
				required = append(required, f.Name)
			}
		}
		branches = append(branches, strictObject(props, required))
	}
	return object("$schema", quote(m.SchemaDialect), "anyOf", array(branches...))
}
