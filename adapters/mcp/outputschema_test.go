package mcp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// outputSchemaCalls are calls of the tools with an output schema, in
// order on one workspace: each result's structuredContent must conform
// to the tool's listed outputSchema. want is the key the object must
// have (a success's or the failure's).
var outputSchemaCalls = []struct {
	tool, args, want string
}{
	{"write", `{"path":"/workspace/a.txt","content":"He said “hello”.\n"}`, "bytesWritten"},
	{"write", `{"path":"/workspace/long.txt","content":"` + strings.Repeat(`l\n`, 2100) + `"}`, "bytesWritten"},
	{"write", `{"path":"/workspace","content":"x"}`, "error"},
	{"write", `{"path":"/workspace/b.txt"}`, "error"}, // invalid arguments: error text
	{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"hello","newText":"bye"}]}`, "firstChangedLine"},
	{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"said \"bye\"","newText":"says \"bye\""}]}`, "fuzzyMatch"},
	{"edit", `{"path":"/workspace/long.txt","edits":[{"oldText":"` + strings.Repeat(`l\n`, 2050) + `","newText":"m\n"}]}`, "diffTruncated"},
	{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"absent","newText":"x"}]}`, "error"},
	{"edit", `{"path":"/workspace/missing.txt","edits":[{"oldText":"a","newText":"b"}]}`, "error"},
	{"edit", `{"path":"/workspace/a.txt","edits":[],"extra":1}`, "error"},
	{"delete", `{"path":"/workspace/a.txt"}`, "deleted"},
	{"delete", `{"path":"/workspace/gone.txt"}`, "deleted"},
	{"delete", `{"path":"/"}`, "error"},
	{"delete", `{"path":7}`, "error"},
	{"publish", `{"path":"/workspace/long.txt"}`, "url"},
	{"publish", `{"path":"/workspace/denied.txt"}`, "error"},
	{"publish", `{"path":""}`, "error"},
}

// TestOutputSchemas lists the tools through the go-sdk client and calls
// write, edit, delete and publish (a scripted publisher), success and
// failure: each listed outputSchema
// is an object schema (MCP's requirement) holding the reference's union,
// and every result carries structuredContent that validates against it
// (google/jsonschema-go, draft-07), the same object the text content
// holds where that is JSON (the failure object where the tool refused
// the arguments in text). The tools without an output schema answer no
// structuredContent.
func TestOutputSchemas(t *testing.T) {
	opts := agenttools.Options{Publisher: &publish.Scripted{Fail: map[string]string{"/workspace/denied.txt": "not allowed"}}}
	cs := connect(t, vfs.New(memfs.New()), opts, nil)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		info, _ := toolspec.Info(tool.Name)
		if info.OutputSchema == "" {
			if tool.OutputSchema != nil {
				t.Errorf("%s lists an output schema: %v", tool.Name, tool.OutputSchema)
			}
			continue
		}
		listed, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(listed, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if s.Type != "object" || len(s.AnyOf) < 2 || s.Schema != toolspec.SchemaDialect {
			t.Errorf("%s: listed output schema %s, want $schema, type object and the reference's anyOf", tool.Name, listed)
		}
		// The union is the reference's, as the spec declares it.
		var union, want struct{ AnyOf any }
		if err := json.Unmarshal(listed, &union); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(info.OutputSchema), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(union, want) {
			t.Errorf("%s: listed anyOf %v, want the spec's %v", tool.Name, union, want)
		}
		if schemas[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	for _, name := range []string{"write", "edit", "delete", "publish"} {
		if schemas[name] == nil {
			t.Fatalf("%s is listed without an output schema", name)
		}
	}
	// The validator does reject what the schema does not allow.
	for _, bad := range []string{`{"path":"/x"}`, `{"path":"/x","bytesWritten":1,"more":true}`, `{"path":"/x","bytesWritten":1.5}`, `{"error":1}`} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if schemas["write"].Validate(v) == nil {
			t.Errorf("write's output schema accepts %s", bad)
		}
	}

	for _, c := range outputSchemaCalls {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s %.80s: %v", c.tool, c.args, err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.StructuredContent == nil {
			t.Errorf("%s %.80s: no structuredContent (text %.200s)", c.tool, c.args, text)
			continue
		}
		if err := schemas[c.tool].Validate(res.StructuredContent); err != nil {
			t.Errorf("%s %.80s: structuredContent %v does not validate: %v", c.tool, c.args, res.StructuredContent, err)
		}
		obj, _ := res.StructuredContent.(map[string]any)
		if _, ok := obj[c.want]; !ok {
			t.Errorf("%s %.80s: structuredContent %v has no %s", c.tool, c.args, res.StructuredContent, c.want)
		}
		if c.tool == "publish" && obj["ok"] != (c.want == "url") {
			t.Errorf("%s %.80s: structuredContent %v", c.tool, c.args, res.StructuredContent)
		}
		if res.IsError != (c.want == "error") {
			t.Errorf("%s %.80s: IsError %v", c.tool, c.args, res.IsError)
		}
		var parsed any
		if json.Unmarshal([]byte(text), &parsed) != nil {
			// Error text: the failure object holds it.
			parsed = map[string]any{"error": text}
			if c.tool == "publish" {
				parsed = map[string]any{"ok": false, "error": text}
			}
		}
		if !reflect.DeepEqual(parsed, res.StructuredContent) {
			t.Errorf("%s %.80s: structuredContent %v, the text content %s", c.tool, c.args, res.StructuredContent, text)
		}
	}
	// A call refused for want of approval (this client cannot be asked)
	// answers in the tool's own failure shape, which validates too.
	opts.Approve = agenttools.ApproveList{core.ApproveMutating}
	refusing := connect(t, vfs.New(memfs.New()), opts, nil)
	for _, c := range []struct{ tool, args string }{
		{"write", `{"path":"/workspace/a.txt","content":"x"}`},
		{"edit", `{"path":"/workspace/a.txt","edits":[{"oldText":"x","newText":"y"}]}`},
		{"delete", `{"path":"/workspace/a.txt"}`},
		{"publish", `{"path":"/workspace/a.txt"}`},
	} {
		res, err := refusing.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s refused: %v", c.tool, err)
		}
		obj, _ := res.StructuredContent.(map[string]any)
		if !res.IsError || obj["error"] == nil {
			t.Errorf("%s refused: %+v", c.tool, res)
		}
		if err := schemas[c.tool].Validate(res.StructuredContent); err != nil {
			t.Errorf("%s refused: structuredContent %v does not validate: %v", c.tool, res.StructuredContent, err)
		}
	}

	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "ls", Arguments: json.RawMessage(`{"path":"/workspace"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.StructuredContent != nil {
		t.Errorf("ls answers structuredContent %v without an output schema", res.StructuredContent)
	}
}
