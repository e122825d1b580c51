package raw_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// The definitions carry the spec's output schemas (write, edit and
// delete; none for the other tools), and Execute's json results, success
// and failure, validate against them.
func TestDefinitionsOutputSchema(t *testing.T) {
	tools, err := raw.New(vfs.New(memfs.New()), agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, d := range tools.Definitions() {
		info, _ := toolspec.Info(d.Name)
		if string(d.OutputSchema) != info.OutputSchema {
			t.Errorf("%s: output schema %s, want %q", d.Name, d.OutputSchema, info.OutputSchema)
		}
		if d.OutputSchema == nil {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(d.OutputSchema, &s); err != nil {
			t.Fatal(err)
		}
		if schemas[d.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
	}
	if len(schemas) != 3 {
		t.Fatalf("%d definitions with an output schema, want write, edit and delete", len(schemas))
	}
	for _, c := range []struct {
		tool, args string
		fails      bool
	}{
		{"write", `{"path":"/workspace/a.txt","content":"one\n"}`, false},
		{"write", `{"path":"/","content":"x"}`, true},
		{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"one","newText":"two"}]}`, false},
		{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"one","newText":"two"}]}`, true},
		{"delete", `{"path":"/workspace/a.txt"}`, false},
		{"delete", `{"path":"/"}`, true},
	} {
		out, err := tools.Execute(t.Context(), c.tool, []byte(c.args))
		if err != nil || out.Kind != toolspec.OutputJSON {
			t.Fatalf("%s %s: %+v, %v", c.tool, c.args, out, err)
		}
		if out.IsError() != c.fails {
			t.Errorf("%s %s: %s, IsError %v", c.tool, c.args, out.JSON, out.IsError())
		}
		var v any
		if err := json.Unmarshal(out.JSON, &v); err != nil {
			t.Fatal(err)
		}
		if err := schemas[c.tool].Validate(v); err != nil {
			t.Errorf("%s %s: %s does not validate: %v", c.tool, c.args, out.JSON, err)
		}
	}
}
