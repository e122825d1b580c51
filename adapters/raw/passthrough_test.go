package raw_test

import (
	"bytes"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// callLs is an ls of /workspace (one file) through the raw tool set.
func callLs(t *testing.T, args string) toolspec.Output {
	t.Helper()
	ws := vfs.New(memfs.New())
	if err := ws.WriteFile(t.Context(), "/workspace/a.txt", []byte("a\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools.Execute(t.Context(), toolspec.ToolLs, []byte(args))
	if err != nil || out.Kind != toolspec.OutputJSON {
		t.Fatalf("ls %s: %+v, %v", args, out, err)
	}
	return out
}

func modelObject(value []byte) string {
	return `{"type":"json","value":` + string(value) + `}`
}

// TestModelOutputPassesCoreJSONUnread: the JSON of a result core wrote is
// the model output's value as it is, unread. The test sees that by
// changing the bytes in place (which nobody may do) to text the check
// would compact or refuse: ModelOutput still gives them as they are. A
// json output built by hand, or whose JSON field was set to other bytes,
// is checked as before.
func TestModelOutputPassesCoreJSONUnread(t *testing.T) {
	out := callLs(t, `{"path":"/workspace"}`)
	want := modelObject(out.JSON)
	if got := string(raw.ModelOutput(out)); got != want {
		t.Fatalf("ModelOutput:\n got %s\nwant %s", got, want)
	}

	// An escape the check rewrites (\u2028 becomes the character), in
	// place of "/works" in the path.
	i := bytes.Index(out.JSON, []byte(`"/workspace"`))
	copy(out.JSON[i+1:], `\u2028`)
	if got := string(raw.ModelOutput(out)); got != modelObject(out.JSON) {
		t.Errorf("core's JSON changed in place: ModelOutput read it:\n got %s\nwant %s", got, modelObject(out.JSON))
	}

	// The same bytes in a slice of their own, and by hand: compacted.
	byHand := []toolspec.Output{{Kind: toolspec.OutputJSON, JSON: bytes.Clone(out.JSON)}}
	moved := out
	moved.JSON = bytes.Clone(out.JSON)
	byHand = append(byHand, moved)
	for _, o := range byHand {
		got := string(raw.ModelOutput(o))
		if got != modelObject(bytes.Replace(o.JSON, []byte(`\u2028`), []byte("\u2028"), 1)) {
			t.Errorf("JSON %q not made by core: got %s, want it compacted", o.JSON, got)
		}
	}

	// Not JSON: core's (changed in place) passes, a copy panics.
	copy(out.JSON, "x")
	if got := string(raw.ModelOutput(out)); got != modelObject(out.JSON) {
		t.Errorf("core's JSON changed in place to %q: ModelOutput gave %s", out.JSON, got)
	}
	moved.JSON = bytes.Clone(out.JSON)
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("ModelOutput of %q not made by core: no panic", moved.JSON)
			}
		}()
		raw.ModelOutput(moved)
	}()
}

// TestIsErrorOfCoreJSONUnread: IsError of a result core wrote answers
// from the result, not by decoding the JSON (changed in place here so
// that decoding would answer otherwise); JSON built by hand is decoded.
func TestIsErrorOfCoreJSONUnread(t *testing.T) {
	failed := callLs(t, `{"path":"/workspace/missing"}`)
	listed := callLs(t, `{"path":"/workspace"}`)
	if !failed.IsError() || listed.IsError() {
		t.Fatalf("IsError: failed ls %v, ls %v", failed.IsError(), listed.IsError())
	}
	// {"error":...} becomes {"errox":...}, and {"path":...} {"error":...}.
	i := bytes.Index(failed.JSON, []byte(`"error"`))
	copy(failed.JSON[i:], `"errox"`)
	j := bytes.Index(listed.JSON, []byte(`"path":"/`))
	copy(listed.JSON[j:], `"error":"`)
	if !failed.IsError() || listed.IsError() {
		t.Errorf("IsError read core's JSON: %s %v, %s %v", failed.JSON, failed.IsError(), listed.JSON, listed.IsError())
	}
	for _, c := range []struct {
		json string
		want bool
	}{{string(failed.JSON), false}, {string(listed.JSON), true}, {`{"a":1,"error":"x"}`, true}, {`{"a"`, false}} {
		if got := (toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(c.json)}).IsError(); got != c.want {
			t.Errorf("IsError of %s by hand: %v, want %v", c.json, got, c.want)
		}
	}
}
