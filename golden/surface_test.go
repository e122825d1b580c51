// Package golden_test pins every byte of text a model can see: the tool
// surface (names, descriptions, schemas), every message, the output of
// call cases, and conformance with the reference's answers to the
// oracle's cases. Run `go test ./golden -update` to rewrite the golden
// files after a deliberate change, and review the diff.
package golden_test

import (
	"encoding/json"
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

func newTools(t *testing.T, opts core.Options) *raw.Tools {
	t.Helper()
	tools, err := raw.New(vfs.New(memfs.New()), opts)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestSurface pins each tool's name, description and input schema as the
// model receives them, for the default options and the variants whose
// texts are rendered from options (read's caps, exec's backends).
func TestSurface(t *testing.T) {
	a := goldentest.Load(t, "testdata/surface.txtar")
	for _, d := range newTools(t, core.Options{}).Definitions() {
		a.Check(t, d.Name+"/description", d.Description)
		a.Check(t, d.Name+"/schema", string(d.InputSchema))
	}
	// Every output schema, publish's too (offered only with a publisher);
	// raw's definitions carry them (adapters/raw TestDefinitionsOutputSchema).
	for _, info := range toolspec.Tools {
		if info.OutputSchema != "" {
			a.Check(t, info.Name+"/outputSchema", info.OutputSchema)
		}
	}
	small := newTools(t, core.Options{Read: core.ReadOptions{MaxLines: 3, MaxBytes: 20}})
	a.Check(t, "read/description maxLines=3 maxBytes=20", small.Definitions()[0].Description)
	for _, d := range newTools(t, core.Options{Readonly: true}).Definitions() {
		a.Check(t, "readonly/"+d.Name, d.Name)
	}
	// publish, offered only with a publisher: its texts, and the sets
	// that withhold it all the same (read-only, assets false).
	for _, d := range newTools(t, core.Options{Publisher: &publish.Scripted{}}).Definitions() {
		a.Check(t, "publisher/"+d.Name, d.Name)
		if d.Name == toolspec.ToolPublish {
			a.Check(t, "publish/description", d.Description)
			a.Check(t, "publish/schema", string(d.InputSchema))
		}
	}
	for _, d := range newTools(t, core.Options{Publisher: &publish.Scripted{}, Readonly: true}).Definitions() {
		a.Check(t, "publisher readonly/"+d.Name, d.Name)
	}
	for _, d := range newTools(t, core.Options{Publisher: &publish.Scripted{}, Assets: new(false)}).Definitions() {
		a.Check(t, "publisher assets=false/"+d.Name, d.Name)
	}
	// Tools the spec declares that no tool set offers yet.
	execVariants := []struct {
		name     string
		backends []toolspec.ExecBackend
		maxBytes int64
	}{
		{"fast shell", []toolspec.ExecBackend{{ID: "shell", Text: "fast shell"}}, toolspec.ExecMaxBytesDefault},
		{"fast shell maxBytes=16", []toolspec.ExecBackend{{ID: "shell", Text: "fast shell"}}, 16},
		{"one default shell", []toolspec.ExecBackend{{ID: "shell"}}, toolspec.ExecMaxBytesDefault},
		{"one callable", []toolspec.ExecBackend{{ID: "js", Text: "JS modules", Callable: true}}, toolspec.ExecMaxBytesDefault},
		{"two backends", []toolspec.ExecBackend{{ID: "shell", Text: "fast shell"}, {ID: "container", Text: "full Linux container"}}, toolspec.ExecMaxBytesDefault},
		{"shell and callable", []toolspec.ExecBackend{{ID: "shell"}, {ID: "js", Callable: true}}, toolspec.ExecMaxBytesDefault},
	}
	for _, v := range execVariants {
		a.Check(t, "exec/description "+v.name, toolspec.ExecDescription("", v.backends, toolspec.ExecMaxLinesDefault, v.maxBytes))
		a.Check(t, "exec/schema "+v.name, toolspec.ExecInputSchema(v.backends))
	}
	// A set whose names have a prefix: every name has it, and the texts
	// that name other tools (exec's description) name them with it.
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell", Description: "fast shell"}, execbackend.NewScripts(nil))
	for _, d := range newTools(t, core.Options{Prefix: "ws_", Backends: []execbackend.Backend{shell}, Publisher: &publish.Scripted{}}).Definitions() {
		a.Check(t, "prefix ws_/"+d.Name+"/description", d.Description)
		a.Check(t, "prefix ws_/"+d.Name+"/schema", string(d.InputSchema))
	}
	a.Check(t, "prefix ws_/exec/description two backends", toolspec.ExecDescription("ws_", execVariants[4].backends, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault))
	a.Save(t, nil)
}

// TestDescriptionLengths checks that we count a description's length as
// the reference does (JavaScript's String length, in UTF-16 code units):
// every description the oracle recorded (testdata/oracle/*.jsonl) has
// the length it recorded. TestConformance compares our descriptions and
// their lengths, as replay records them, with the reference's.
func TestDescriptionLengths(t *testing.T) {
	seen := map[string]bool{}
	for _, file := range oracleFiles {
		for _, rec := range loadAnswers(t, "testdata/oracle/"+file+".jsonl") {
			for _, c := range rec.Calls {
				var desc string
				var n int64
				if c.Description == nil || seen[string(c.Description)] {
					continue
				}
				seen[string(c.Description)] = true
				if err := json.Unmarshal(c.Description, &desc); err != nil {
					t.Fatalf("%s: %s: %v", file, rec.Case, err)
				}
				if err := json.Unmarshal(c.DescriptionLength, &n); err != nil {
					t.Fatalf("%s: %s: descriptionLength %s: %v", file, rec.Case, c.DescriptionLength, err)
				}
				if got := vfs.UTF16Len(desc); got != n {
					t.Errorf("%s: %s's description in %s: %d characters, the reference counts %d:\n%s", file, c.Tool, rec.Case, got, n, desc)
				}
			}
		}
	}
	if len(seen) < len(toolspec.Tools) {
		t.Errorf("the oracle recorded only %d descriptions; its answers went missing?", len(seen))
	}
}

// TestMessages pins every message of the spec, rendered once with sample
// arguments by the generated code.
func TestMessages(t *testing.T) {
	a := goldentest.Load(t, "testdata/messages.txtar")
	for _, m := range toolspec.Catalog {
		a.Check(t, m.Name, m.Sample)
		if m.Prefixed != "" {
			a.Check(t, m.Name+" prefix ws_", m.Prefixed)
		}
	}
	a.Save(t, nil)
}

// TestSchemasAreJSON checks every schema is valid JSON that declares
// additionalProperties false.
func TestSchemasAreJSON(t *testing.T) {
	for _, d := range newTools(t, core.Options{}).Definitions() {
		var s struct {
			AdditionalProperties *bool `json:"additionalProperties"`
		}
		if err := json.Unmarshal(d.InputSchema, &s); err != nil {
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: additionalProperties is not false", d.Name)
		}
	}
}
