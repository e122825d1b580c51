package toolspec_test

import (
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// Each kind of output renders as one string and reports failure and media
// as the adapters rely on.
func TestOutputRenders(t *testing.T) {
	media := &toolspec.Media{MediaType: "image/png", Filename: "a.png", Data: []byte{1}}
	tests := []struct {
		name     string
		out      toolspec.Output
		text     string
		isError  bool
		hasMedia bool
	}{
		{"text", toolspec.Output{Kind: toolspec.OutputText, Text: "1\tline"}, "1\tline", false, false},
		{"error text", toolspec.Output{Kind: toolspec.OutputErrorText, Text: "ENOENT"}, "ENOENT", true, false},
		{"json", toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"ok":true}`)}, `{"ok":true}`, false, false},
		{"json error", toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"error":"x"}`)}, `{"error":"x"}`, true, false},
		{"json error nested only", toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"a":{"error":"x"}}`)}, `{"a":{"error":"x"}}`, false, false},
		{"json with text left over", toolspec.Output{Kind: toolspec.OutputJSON, Text: "stale", JSON: []byte(`[]`)}, `[]`, false, false},
		{"content", toolspec.Output{Kind: toolspec.OutputContent, Text: "Read image", Media: media}, "Read image", false, true},
		{"content without file", toolspec.Output{Kind: toolspec.OutputContent, Text: "Read image"}, "Read image", false, false},
		{"media on a text output", toolspec.Output{Kind: toolspec.OutputText, Text: "x", Media: media}, "x", false, false},
	}
	for _, tt := range tests {
		if got := tt.out.AsText(); got != tt.text {
			t.Errorf("%s: AsText() = %q, want %q", tt.name, got, tt.text)
		}
		if got := tt.out.IsError(); got != tt.isError {
			t.Errorf("%s: IsError() = %v, want %v", tt.name, got, tt.isError)
		}
		if got := tt.out.HasMedia(); got != tt.hasMedia {
			t.Errorf("%s: HasMedia() = %v, want %v", tt.name, got, tt.hasMedia)
		}
	}
}

// Images are told from other files by their media type.
func TestMediaIsImage(t *testing.T) {
	for mediaType, want := range map[string]bool{"image/png": true, "image/svg+xml": true, "application/pdf": false, "imagex/png": false, "": false} {
		if got := (&toolspec.Media{MediaType: mediaType}).IsImage(); got != want {
			t.Errorf("IsImage of %q = %v, want %v", mediaType, got, want)
		}
	}
}

// ResultOutput's output is FromResult, with its model output object
// around its JSON, only while its JSON field holds what it wrote: a
// copy, a part, other bytes or another kind are not, and neither is any
// output built by hand.
func TestResultOutputIsFromResult(t *testing.T) {
	out := toolspec.ResultOutput(toolspec.ErrorResult{Error: "no such path: /workspace/x"})
	want := `{"error":"no such path: /workspace/x"}`
	object, ok := out.ModelOutput()
	if string(out.JSON) != want || !out.FromResult() || !ok || string(object) != `{"type":"json","value":`+want+`}` || !out.IsError() || out.AsText() != want {
		t.Fatalf("ResultOutput: %s, FromResult %v, ModelOutput %s %v, IsError %v", out.JSON, out.FromResult(), object, ok, out.IsError())
	}
	if out.JSON = append(out.JSON, ' '); string(object) != `{"type":"json","value":`+want+`}` {
		t.Errorf("appending to the JSON changed the model output object: %s", object)
	}
	changed := []toolspec.Output{out, {Kind: toolspec.OutputJSON, JSON: []byte(want)}}
	for _, json := range [][]byte{[]byte(want), out.JSON[:len(want)-1], out.JSON[1:len(want)], nil} {
		o := out
		o.JSON = json
		changed = append(changed, o)
	}
	kind := toolspec.ResultOutput(toolspec.LsResult{Entries: []toolspec.LsEntry{}})
	kind.Kind = toolspec.OutputText
	changed = append(changed, kind)
	for _, o := range changed {
		if _, ok := o.ModelOutput(); ok || o.FromResult() {
			t.Errorf("%s %q: FromResult %v, ModelOutput %v", o.Kind, o.JSON, o.FromResult(), ok)
		}
	}
}
