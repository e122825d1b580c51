package toolspec_test

import (
	"testing"

	"github.com/agenttools/agenttools/toolspec"
)

// DescribeArguments reads any JSON Schema, not only ours: an object's
// own properties are listed under its name, a schema without a type is
// any value, and a schema with nothing to list leaves the description
// as it is. (Our tools' listings are pinned in golden/testdata/arguments.txtar.)
func TestDescribeArguments(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"not JSON", `{`, "D"},
		{"no properties", `{"type":"object"}`, "D"},
		{"nested object", `{"type":"object","properties":{"opt":{"type":"object","properties":{"deep":{"type":"boolean","description":"On."},"raw":{}},"required":["deep"]}}}`,
			toolspec.ArgListWithArguments("D",
				toolspec.ArgListArgumentBare("opt", toolspec.ArgListTypeNames["object"], toolspec.ArgListOptional)+
					toolspec.ArgListArgument(toolspec.ArgListProperty("opt", "deep"), toolspec.ArgListTypeNames["boolean"], toolspec.ArgListRequired, "On.")+
					toolspec.ArgListArgumentBare(toolspec.ArgListProperty("opt", "raw"), toolspec.ArgListAnyValue, toolspec.ArgListOptional))},
		{"default and enum", `{"type":"object","properties":{"n":{"enum":[1,2],"default":1}}}`,
			toolspec.ArgListWithArguments("D", toolspec.ArgListArgumentBare("n", toolspec.ArgListOneOf("1"+toolspec.ArgListListSeparator+"2"), toolspec.ArgListOptionalDefault("1")))},
	}
	for _, tt := range tests {
		if got := toolspec.DescribeArguments("D", tt.schema); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
