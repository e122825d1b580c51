package golden_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// TestStrictSchemas pins every tool's input schema as the SDK adapters'
// Strict option declares it (deviation strictSchemas), for OpenAI's and
// Anthropic's strict mode: read, write and edit by default, the others
// when named; exec's, which holds maps, cannot be closed and stays as it
// is ("not strict"). Each closed schema is checked with a JSON Schema
// validator: arguments with every field, the optional ones null, pass;
// arguments without a field, or with one more, fail. The deviation must
// be listed in testdata/deviations.json as an opt-in.
func TestStrictSchemas(t *testing.T) {
	a := goldentest.Load(t, "testdata/strict.txtar")
	type schema struct{ name, text string }
	var schemas []schema
	for _, d := range newTools(t, core.Options{Publisher: &publish.Scripted{}}).Definitions() {
		schemas = append(schemas, schema{d.Name, string(d.InputSchema)})
	}
	schemas = append(schemas,
		schema{"exec one shell", toolspec.ExecInputSchema([]toolspec.ExecBackend{{ID: "shell"}})},
		schema{"exec shell and callable", toolspec.ExecInputSchema([]toolspec.ExecBackend{{ID: "shell"}, {ID: "js", Callable: true}})})
	strict := 0
	for _, d := range []struct {
		name    string
		dialect adapt.StrictDialect
	}{{"openai", adapt.StrictOpenAI}, {"anthropic", adapt.StrictAnthropic}} {
		for _, s := range schemas {
			closed, ok := adapt.StrictSchema(s.text, d.dialect)
			if !ok {
				if !strings.HasPrefix(s.name, toolspec.ToolExec) {
					t.Errorf("%s %s: cannot be closed", d.name, s.name)
				}
				a.Check(t, d.name+"/"+s.name, "not strict")
				continue
			}
			strict++
			a.Check(t, d.name+"/"+s.name, closed)
			checkClosed(t, d.name+" "+s.name, closed)
		}
	}
	if strict != 2*(len(schemas)-2) {
		t.Errorf("%d schemas closed, want all but exec's", strict)
	}
	a.Save(t, nil)

	var closedByDefault []string
	for _, info := range toolspec.Tools {
		if info.ConstrainedSampling {
			closedByDefault = append(closedByDefault, info.Name)
		}
	}
	if want := []string{toolspec.ToolRead, toolspec.ToolWrite, toolspec.ToolEdit}; !slices.Equal(closedByDefault, want) {
		t.Errorf("tools with constrainedSampling %v, want the reference pi adapter's strictArguments %v", closedByDefault, want)
	}
	checkOptIn(t, "strictSchemas", "strict")
}

// checkClosed validates arguments against the closed schema: every
// property present (null for an optional one, a sample value for a
// required one) passes; leaving one out, or adding one, fails.
func checkClosed(t *testing.T, name, closed string) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(closed), &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	full := map[string]any{}
	for key, p := range s.Properties {
		full[key] = sample(p)
	}
	if err := rs.Validate(full); err != nil {
		t.Errorf("%s: %v refused: %v", name, full, err)
	}
	for key := range s.Properties {
		less := maps.Clone(full)
		delete(less, key)
		if rs.Validate(less) == nil {
			t.Errorf("%s: accepted without %s", name, key)
		}
	}
	more := maps.Clone(full)
	more["unknown"] = "x"
	if rs.Validate(more) == nil {
		t.Errorf("%s: accepted an unknown property", name)
	}
}

// sample is a value p accepts: null where it accepts null (an optional
// property, closed), else one of its type.
func sample(p *jsonschema.Schema) any {
	accepts := func(s *jsonschema.Schema, typ string) bool { return s.Type == typ || slices.Contains(s.Types, typ) }
	switch {
	case accepts(p, "null") || slices.ContainsFunc(p.AnyOf, func(b *jsonschema.Schema) bool { return accepts(b, "null") }):
		return nil
	case len(p.Enum) > 0:
		return p.Enum[0]
	case accepts(p, "string"):
		return "/workspace/a"
	case accepts(p, "integer"):
		return 1
	case accepts(p, "array"):
		item := map[string]any{}
		for key, ip := range p.Items.Properties {
			item[key] = sample(ip)
		}
		return []any{item}
	}
	return nil
}
