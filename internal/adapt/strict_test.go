package adapt_test

import (
	"testing"

	"github.com/agenttools/agenttools/internal/adapt"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// TestStrictSchema closes schemas of the shapes the tools' hold, for
// both dialects: the closed text is exact (key order and bytes kept, the
// refused keywords in the description), and the shapes that cannot be
// closed are refused. golden TestStrictSchemas pins every tool's.
func TestStrictSchema(t *testing.T) {
	for _, tc := range []struct {
		name, schema   string
		openai, claude string // "" when it cannot be closed
	}{
		{
			name:   "optional with a default and bounds",
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"default":"/workspace","description":"Dir.","type":"string"},"q":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":1000}},"required":["q"],"additionalProperties":false}`,
			openai: `{"type":"object","properties":{"path":{"description":"Dir.\n\n{default: /workspace}","type":["string","null"]},"q":{"type":"string"},"limit":{"type":["integer","null"],"minimum":1,"maximum":1000}},"required":["path","q","limit"],"additionalProperties":false}`,
			claude: `{"type":"object","properties":{"path":{"description":"Dir.\n\n{default: /workspace}","anyOf":[{"type":"string"},{"type":"null"}]},"q":{"type":"string"},"limit":{"anyOf":[{"type":"integer"},{"type":"null"}],"description":"{maximum: 1000, minimum: 1}"}},"required":["path","q","limit"],"additionalProperties":false}`,
		},
		{
			name:   "no required, no additionalProperties, nested objects",
			schema: `{"type":"object","properties":{"edits":{"type":"array","minItems":2,"items":{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]}}}}`,
			openai: `{"type":"object","properties":{"edits":{"type":["array","null"],"minItems":2,"items":{"type":"object","properties":{"a":{"type":"string","description":"{minLength: 1}"}},"required":["a"],"additionalProperties":false}}},"required":["edits"],"additionalProperties":false}`,
			claude: `{"type":"object","properties":{"edits":{"anyOf":[{"type":"array","items":{"type":"object","properties":{"a":{"type":"string","description":"{minLength: 1}"}},"required":["a"],"additionalProperties":false}},{"type":"null"}],"description":"{minItems: 2}"}},"required":["edits"],"additionalProperties":false}`,
		},
		{
			name:   "optional anyOf and enum",
			schema: `{"type":"object","properties":{"x":{"description":"X.","anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]},"b":{"type":"string","enum":["a","b"]},"n":{"type":["integer","null"],"format":"int64"}},"additionalProperties":false}`,
			openai: `{"type":"object","properties":{"x":{"description":"X.","anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}},{"type":"null"}]},"b":{"type":["string","null"],"enum":["a","b",null]},"n":{"type":["integer","null"],"description":"{format: int64}"}},"required":["x","b","n"],"additionalProperties":false}`,
			claude: `{"type":"object","properties":{"x":{"description":"X.","anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}},{"type":"null"}]},"b":{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null"}]},"n":{"type":["integer","null"],"description":"{format: int64}"}},"required":["x","b","n"],"additionalProperties":false}`,
		},
		{
			name:   "a map",
			schema: `{"type":"object","properties":{"env":{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"string"}}},"required":["env"],"additionalProperties":false}`,
		},
		{
			name:   "any value",
			schema: `{"type":"object","properties":{"v":{"description":"Anything."}},"required":["v"],"additionalProperties":false}`,
		},
		{
			name:   "a reference",
			schema: `{"type":"object","properties":{"v":{"$ref":"#/definitions/x"}},"required":["v"],"definitions":{"x":{"type":"string"}},"additionalProperties":false}`,
		},
		{name: "not an object schema", schema: `{"type":"string"}`},
		{name: "no JSON", schema: `{"type":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range []struct {
				dialect adapt.StrictDialect
				want    string
			}{{adapt.StrictOpenAI, tc.openai}, {adapt.StrictAnthropic, tc.claude}} {
				got, ok := adapt.StrictSchema(tc.schema, d.dialect)
				if ok != (d.want != "") || got != d.want {
					t.Errorf("dialect %d: StrictSchema = %s, %v\nwant %s", d.dialect, got, ok, d.want)
				}
			}
		})
	}
	if got, ok := adapt.StrictSchema(`{"type":"object","properties":{}}`, 0); ok {
		t.Errorf("no dialect: StrictSchema = %s, true", got)
	}
}
