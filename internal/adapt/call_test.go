package adapt_test

import (
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
)

// TestDropAbsentNulls drops a top-level null only on an optional field
// that does not accept null, keeping every other byte where it was.
func TestDropAbsentNulls(t *testing.T) {
	const schema = `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"},` +
		`"note":{"type":["string","null"]},"either":{"anyOf":[{"type":"string"},{"type":"null"}]},"any":{"description":"Any value."},"opts":{"type":"object","properties":{"x":{"type":"string"}}}},"required":["path"]}`
	exec := toolspec.ExecInputSchema([]toolspec.ExecBackend{{ID: "sh"}, {ID: "js", Callable: true}})
	for _, tc := range []struct {
		name, schema, args, want string
	}{
		{"nothing to drop", schema, `{ "path" : "/a",  "offset":1 }`, `{ "path" : "/a",  "offset":1 }`},
		{"middle", schema, `{"path":"/a", "offset": null, "limit":2}`, `{"path":"/a", "limit":2}`},
		{"first and last", schema, `{ "offset":null ,"path":"/a","limit" :null }`, `{ "path":"/a" }`},
		{"first two", schema, "{\"offset\":null,\n\"limit\":null,\n \"path\":\"\\u002fa\"}", "{\n \"path\":\"\\u002fa\"}"},
		{"all", schema, `{"offset":null,"limit":null}`, `{}`},
		{"required null kept", schema, `{"path":null,"offset":null}`, `{"path":null}`},
		{"nullable kept", schema, `{"path":"/a","note":null,"either":null,"any":null}`, `{"path":"/a","note":null,"either":null,"any":null}`},
		{"nested nulls untouched", schema, `{"path":"/a","opts":{"x":null},"limit":[null]}`, `{"path":"/a","opts":{"x":null},"limit":[null]}`},
		// A key given twice has its last value (JSON.parse, core): a
		// last null means the field is absent, an earlier one is no
		// value at all.
		{"twice, last null", schema, `{"path":"/a","limit":5,"limit":null}`, `{"path":"/a"}`},
		{"twice, first null", schema, `{"path":"/a","limit":null,"limit":5}`, `{"path":"/a","limit":null,"limit":5}`},
		{"unknown key's null kept", schema, `{"path":"/a","other":null}`, `{"path":"/a","other":null}`},
		{"an array", schema, `[null]`, `[null]`},
		{"null", schema, `null`, `null`},
		{"a string", schema, `"x"`, `"x"`},
		{"no JSON", schema, `{"offset":null,`, `{"offset":null,`},
		{"schema no JSON", `{`, `{"offset":null}`, `{"offset":null}`},
		// exec's input is an object record: like the reference's zod
		// schema it refuses null, so a null there stands for no input;
		// cwd too. command and backend are required.
		{"exec", exec, `{"command":null,"backend":null,"cwd":null,"env":null,"input":null}`, `{"command":null,"backend":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(adapt.DropAbsentNulls(tc.schema, []byte(tc.args))); got != tc.want {
				t.Errorf("DropAbsentNulls(%s) =\n%s\nwant\n%s", tc.args, got, tc.want)
			}
		})
	}
}

// TestCall answers a name the set does not offer with the reference pi
// adapter's text, naming the tools as the set offers them, and drops the
// nulls that stand for absent fields only when asked.
func TestCall(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		prefix, name, want string
	}{
		{"", "cat", `Unknown tool "cat". Available tools: "read", "ls", "find", "grep", "write", "edit", "delete".`},
		{"", `a"b\`, `Unknown tool "a\"b\\". Available tools: "read", "ls", "find", "grep", "write", "edit", "delete".`},
		{"ws_", "read", `Unknown tool "read". Available tools: "ws_read", "ws_ls", "ws_find", "ws_grep", "ws_write", "ws_edit", "ws_delete".`},
	} {
		ex, err := core.New(vfs.New(memfs.New()), core.Options{Prefix: tc.prefix})
		if err != nil {
			t.Fatal(err)
		}
		for _, drop := range []bool{false, true} {
			out, err := adapt.Call(ctx, ex, tc.name, []byte(`{}`), drop)
			if err != nil || out.Kind != toolspec.OutputErrorText || out.Text != tc.want {
				t.Errorf("Call(%q) = %+v, %v; want error text %s", tc.name, out, err, tc.want)
			}
		}
	}

	ex, err := core.New(vfs.New(memfs.New()), core.Options{Prefix: "ws_"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := adapt.Call(ctx, ex, "ws_write", []byte(`{"path":"/workspace/a.txt","content":"hi\n"}`), true); err != nil || out.IsError() {
		t.Fatalf("write: %+v, %v", out, err)
	}
	args := []byte(`{"path":"/workspace/a.txt","offset":null,"byteOffset":null,"limit":null}`)
	direct, _ := ex.Call(ctx, "ws_read", args)
	got, err := adapt.Call(ctx, ex, "ws_read", args, false)
	if err != nil || got.Kind != direct.Kind || got.Text != direct.Text || !got.IsError() {
		t.Errorf("without dropNulls: %+v, %v; want ex.Call's refusal %+v", got, err, direct)
	}
	want, _ := ex.Call(ctx, "ws_read", []byte(`{"path":"/workspace/a.txt"}`))
	got, err = adapt.Call(ctx, ex, "ws_read", args, true)
	if err != nil || got.Kind != want.Kind || got.Text != want.Text || got.IsError() {
		t.Errorf("with dropNulls: %+v, %v; want %+v", got, err, want)
	}
}
