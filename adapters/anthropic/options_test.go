package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttools/agenttools/adapters/anthropic"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// strictRead is strict.json's call with its nulls left out: what strict
// tool use means by them.
const strictRead = `{"path":"/workspace/notes.txt","limit":2}`

// TestStrict runs a recorded session whose model, under strict tool use,
// sends null for read's optional offset and byteOffset: through the
// Messages API and through the beta tool runner (given BetaParams), the
// request declares read, write and edit with strict true and their
// closed schemas, the other tools as they are, and the call is answered
// as the same call without the nulls.
func TestStrict(t *testing.T) {
	for _, runner := range []bool{false, true} {
		name := "messages"
		if runner {
			name = "toolrunner"
		}
		t.Run(name, func(t *testing.T) {
			api := serve(t, "strict.json")
			ws, opts := workspace(t)
			set, err := anthropic.New(ws, opts, anthropic.Strict())
			if err != nil {
				t.Fatal(err)
			}
			if runner {
				runToolRunner(t.Context(), t, api.client(), set, set.BetaParams())
			} else {
				runMessages(t.Context(), t, api.client(), set)
			}
			reqs := api.requests(t)
			checkTools(t, reqs[0].Tools, declarations(t, set.Executor(), "read", "write", "edit"))
			sent, _ := results(t, reqs)
			refWS, refOpts := workspace(t)
			out := reference(t, refWS, refOpts, []toolCall{{Name: "read", Input: json.RawMessage(strictRead)}})[0]
			want := wantResult("toolu_01", out)
			if runner {
				want = wantRunnerResult("toolu_01", out)
			}
			if got := decodeResult(t, sent["toolu_01"]); !reflect.DeepEqual(got, want) || out.IsError() {
				t.Errorf("read with nulls:\n got %s\nwant %s", sent["toolu_01"], mustJSON(want))
			}
		})
	}
}

// Without Strict the nulls are arguments like any other, which read
// refuses: the drop is Strict's doing.
func TestNullsWithoutStrict(t *testing.T) {
	r, err := newSet(t).Execute(t.Context(), sdk.ToolUseBlock{ID: "toolu_01", Name: "read", Input: json.RawMessage(`{"path":"/workspace/notes.txt","offset":null,"byteOffset":null,"limit":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError.Value || !strings.Contains(r.Content[0].OfText.Text, "offset") {
		t.Errorf("read with nulls, not strict: %s", mustJSON(r))
	}
}

// Strict with names declares those tools strict, by the spec's names
// whatever the prefix, and Strict given twice adds up; exec's schema (env,
// a map) cannot be closed, so exec stays as it is; a name the spec does
// not have fails New.
func TestStrictNames(t *testing.T) {
	ws, opts := workspace(t)
	opts.Prefix = "ws_"
	set, err := anthropic.New(ws, opts, anthropic.Strict("ls"), anthropic.Strict("exec"))
	if err != nil {
		t.Fatal(err)
	}
	strict := map[string]bool{}
	for i, p := range set.Params() {
		strict[p.OfTool.Name] = p.OfTool.Strict.Value
		if tool := set.All()[i]; tool.Strict() != p.OfTool.Strict.Value || tool.Name() != p.OfTool.Name {
			t.Errorf("%s: Strict() %v, declared %v", tool.Name(), tool.Strict(), p.OfTool.Strict.Value)
		}
	}
	want := map[string]bool{"ws_read": false, "ws_ls": true, "ws_find": false, "ws_grep": false, "ws_write": false, "ws_edit": false, "ws_delete": false, "ws_exec": false, "ws_publish": false}
	if !reflect.DeepEqual(strict, want) {
		t.Errorf("strict tools %v, want %v", strict, want)
	}
	exec, ok := set.Exec()
	if !ok {
		t.Fatal("no exec tool")
	}
	ex, _ := set.Executor().Tool("ws_exec")
	if schema, _ := json.Marshal(exec.Param().OfTool.InputSchema); string(schema) != ex.InputSchema {
		t.Errorf("exec's schema changed: %s", schema)
	}
	if _, err := anthropic.New(ws, opts, anthropic.Strict("ws_ls")); err == nil {
		t.Error("Strict with a prefixed name: no error")
	}
}

// TestPrefix runs a recorded session with the options' prefix: the tools
// are declared with it, a call of the prefixed name runs the tool, and
// one of the spec's name is a tool the set does not offer.
func TestPrefix(t *testing.T) {
	api := serve(t, "prefix.json")
	ws, opts := workspace(t)
	opts.Prefix = "ws_"
	set, err := anthropic.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	runMessages(t.Context(), t, api.client(), set)
	reqs := api.requests(t)
	want := declarations(t, set.Executor())
	if want[0].name != "ws_read" {
		t.Fatalf("the first tool is %s", want[0].name)
	}
	checkTools(t, reqs[0].Tools, want)
	sent, _ := results(t, reqs)
	refWS, refOpts := workspace(t)
	refOpts.Prefix = "ws_"
	outs := reference(t, refWS, refOpts, api.calls(t))
	for i, c := range api.calls(t) {
		if got, want := decodeResult(t, sent[c.ID]), wantResult(c.ID, outs[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", c.Name, sent[c.ID], mustJSON(want))
		}
	}
	if !outs[1].IsError() || !strings.Contains(outs[1].Text, `"ws_read"`) {
		t.Errorf("read without the prefix: %+v", outs[1])
	}
}

// Param sends the tool's input schema as its very bytes.
func TestParamSchemaBytes(t *testing.T) {
	set := newSet(t)
	for _, tool := range set.Executor().Tools() {
		at, _ := set.Named(tool.Name)
		for _, p := range []any{at.Param(), at.BetaParam()} {
			data, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"input_schema":`+tool.InputSchema+`,`) {
				t.Errorf("%s: %s does not hold the schema's bytes %s", tool.Name, data, tool.InputSchema)
			}
		}
	}
}

// A cancelled context ends Execute, ExecuteTurn and a beta tool's Execute
// with the context's error: never a result.
func TestCancelled(t *testing.T) {
	set := newSet(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	args := json.RawMessage(agentcase.ReadArgs)
	if _, err := set.Execute(ctx, sdk.ToolUseBlock{ID: "toolu_01", Name: "read", Input: args}); !errors.Is(err, context.Canceled) {
		t.Errorf("Execute: %v", err)
	}
	var msg sdk.Message
	if err := json.Unmarshal([]byte(`{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"read","input":`+agentcase.ReadArgs+`}],"stop_reason":"tool_use"}`), &msg); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := set.ExecuteTurn(ctx, &msg); ok || !errors.Is(err, context.Canceled) {
		t.Errorf("ExecuteTurn: %v %v", ok, err)
	}
	if _, err := set.BetaTools()[0].Execute(ctx, args); !errors.Is(err, context.Canceled) {
		t.Errorf("beta Execute: %v", err)
	}
}

// A beta tool answers a failure the model sees with a FailureError, whose
// text is the result's and whose Output is the result.
func TestBetaFailure(t *testing.T) {
	_, err := newSet(t).BetaTools()[0].Execute(t.Context(), json.RawMessage(`{"path":"/workspace/missing.txt"}`))
	failure, ok := errors.AsType[*anthropic.FailureError](err)
	if !ok || err.Error() != failure.Output.Text || !failure.Output.IsError() || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("read of a missing file: %#v", err)
	}
}

// ExecuteTurn on a message without tool_use blocks has nothing to answer.
func TestExecuteTurnAnswer(t *testing.T) {
	set := newSet(t)
	var msg sdk.Message
	if err := json.Unmarshal([]byte(`{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn"}`), &msg); err != nil {
		t.Fatal(err)
	}
	if r, ok, err := set.ExecuteTurn(t.Context(), &msg); ok || err != nil || r.OfUser != nil {
		t.Errorf("ExecuteTurn of an answer: %v %v %+v", ok, err, r)
	}
}

// newSet is the set over the session's workspace, with no option.
func newSet(t *testing.T) *anthropic.Tools {
	t.Helper()
	ws, opts := workspace(t)
	set, err := anthropic.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// An image whose bytes are another type than its extension says (a PNG
// saved as .jpg) goes in an image block that names the bytes' type, which
// the API checks, in the Messages API's result and the beta tool's; the
// text block keeps read's words, which name the extension's type.
func TestImageBlockTypeFromBytes(t *testing.T) {
	set := newSet(t)
	if err := set.Executor().Workspace().WriteFile(t.Context(), "/workspace/pixel.jpg", agentcase.Pixel, vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"path":"/workspace/pixel.jpg"}`)
	const text = "Read /workspace/pixel.jpg (image/jpeg, 70 bytes)."
	r, err := set.Execute(t.Context(), sdk.ToolUseBlock{ID: "toolu_01", Name: "read", Input: args})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || r.Content[0].OfText.Text != text || r.Content[1].OfImage == nil ||
		r.Content[1].OfImage.Source.OfBase64.MediaType != sdk.Base64ImageSourceMediaTypeImagePNG {
		t.Errorf("read of a PNG named .jpg: %s", mustJSON(r))
	}
	blocks, err := set.BetaTools()[0].Execute(t.Context(), args)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].OfText.Text != text || blocks[1].OfImage == nil ||
		blocks[1].OfImage.Source.OfBase64.MediaType != sdk.BetaBase64ImageSourceMediaTypeImagePNG {
		t.Errorf("beta read of a PNG named .jpg: %s", mustJSON(blocks))
	}
}

// A file read names an image or a PDF by its extension but whose bytes
// are none (a Git LFS pointer saved as .png) is answered with read's text
// alone, in the Messages API's result and the beta tool's: the API would
// refuse the request for the block, and every later one.
func TestUnreadableMedia(t *testing.T) {
	set := newSet(t)
	pointer := []byte("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 12345\n")
	for _, path := range []string{"/workspace/logo.png", "/workspace/manual.pdf"} {
		if err := set.Executor().Workspace().WriteFile(t.Context(), path, pointer, vfs.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		args := json.RawMessage(`{"path":"` + path + `"}`)
		out, err := set.Executor().Call(t.Context(), "read", args)
		if err != nil || !out.HasMedia() {
			t.Fatalf("read %s: %+v, %v; want read's image or PDF", path, out, err)
		}
		r, err := set.Execute(t.Context(), sdk.ToolUseBlock{ID: "toolu_01", Name: "read", Input: args})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Content) != 1 || r.Content[0].OfText == nil || r.Content[0].OfText.Text != out.Text || r.IsError.Value {
			t.Errorf("read of %s: %s, want the text block %q alone", path, mustJSON(r), out.Text)
		}
		blocks, err := set.BetaTools()[0].Execute(t.Context(), args)
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) != 1 || blocks[0].OfText == nil || blocks[0].OfText.Text != out.Text {
			t.Errorf("beta read of %s: %s, want the text block %q alone", path, mustJSON(blocks), out.Text)
		}
	}
}

// ExecuteBeta takes the block's input as the API sent it, as Execute
// does, not decoded and encoded again as the tool runner hands it: an
// integer past float64's precision is refused with the number the model
// wrote, and the same turn helper answers a message without tool_use
// blocks with nothing.
func TestExecuteBetaInput(t *testing.T) {
	set := newSet(t)
	const input = `{"path":"/workspace/hello.txt","offset":123456789012345678901}`
	var block sdk.ToolUseBlock
	if err := json.Unmarshal([]byte(`{"type":"tool_use","id":"toolu_01","name":"read","input":`+input+`}`), &block); err != nil {
		t.Fatal(err)
	}
	var beta sdk.BetaToolUseBlock
	if err := json.Unmarshal([]byte(`{"type":"tool_use","id":"toolu_01","name":"read","input":`+input+`}`), &beta); err != nil {
		t.Fatal(err)
	}
	want, err := set.Execute(t.Context(), block)
	if err != nil {
		t.Fatal(err)
	}
	got, err := set.ExecuteBeta(t.Context(), beta)
	if err != nil {
		t.Fatal(err)
	}
	if w, g := mustJSON(want), mustJSON(got); w != g || !strings.Contains(w, "123456789012345678901") {
		t.Errorf("ExecuteBeta %s:\n got %s\nwant %s", input, g, w)
	}
	var msg sdk.BetaMessage
	if err := json.Unmarshal([]byte(`{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn"}`), &msg); err != nil {
		t.Fatal(err)
	}
	if r, ok, err := set.ExecuteBetaTurn(t.Context(), &msg); ok || err != nil || r.OfUser != nil {
		t.Errorf("ExecuteBetaTurn of an answer: %v %v %+v", ok, err, r)
	}
}

// ExecuteBeta of a block made in Go, whose input has no JSON text from
// the API, runs the call its Input holds.
func TestExecuteBetaBlockMadeInGo(t *testing.T) {
	set := newSet(t)
	block := sdk.BetaToolUseBlock{ID: "toolu_01", Name: "read", Input: map[string]any{"path": "/workspace/notes.txt"}}
	got, err := set.ExecuteBeta(t.Context(), block)
	if err != nil {
		t.Fatal(err)
	}
	want, err := set.Execute(t.Context(), sdk.ToolUseBlock{ID: "toolu_01", Name: "read", Input: json.RawMessage(`{"path":"/workspace/notes.txt"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(got), mustJSON(want); g != w || want.IsError.Value {
		t.Errorf("ExecuteBeta of a block made in Go:\n got %s\nwant %s", g, w)
	}
}
