package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/openai"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// loops are the two agent loops, each with the request path its API
// stand-in serves, the recorded replies for turns, and what the model
// received for each call: the text of its tool message or of its
// function_call_output (for media, responsesOutput's text).
var loops = []loopCase{
	{"chat", "/chat/completions", chatReplies, chatLoop, agentcase.ChatToolMessages},
	{"responses", "/responses", responsesReplies, responsesLoop, responsesResults},
}

type loopCase struct {
	name    string
	path    string
	replies func(t *testing.T, answer string, turns ...[]call) []json.RawMessage
	run     func(t *testing.T, ctx context.Context, client oai.Client, set *openai.Tools) string
	results func(tb testing.TB, body []byte) map[string]string
}

// responsesResults are the outputs of the function_call_output items of
// a Responses API request, by call id.
func responsesResults(tb testing.TB, body []byte) map[string]string {
	tb.Helper()
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		tb.Fatal(err)
	}
	var items []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	out := map[string]string{}
	if json.Unmarshal(req.Input, &items) != nil {
		return out
	}
	for _, it := range items {
		if it.Type == "function_call_output" {
			out[it.CallID] = responsesOutput(tb, it.Output)
		}
	}
	return out
}

// With a prefix (agenttools.Options.Prefix), both loops declare the
// prefixed names, run a call of a prefixed name, and answer a call of
// the bare name with the reference pi adapter's unknown-tool text, which
// names the tools as the set offers them.
func TestPrefix(t *testing.T) {
	for _, loop := range loops {
		t.Run(loop.name, func(t *testing.T) {
			ws, opts := workspace(t)
			opts.Prefix = "ws_"
			set, err := openai.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			calls := []call{
				{"call_1", "ws_read", `{"path":"/workspace/notes.txt"}`},
				{"call_2", "read", `{"path":"/workspace/notes.txt"}`},
			}
			api, client := newAPI(t, loop.path, loop.replies(t, agentcase.Answer, calls))
			loop.run(t, t.Context(), client, set)
			bodies := api.requests()
			var want []string
			for _, name := range toolspec.ToolNames {
				want = append(want, "ws_"+name)
			}
			var names []string
			for _, d := range declared(t, bodies[0]) {
				names = append(names, d.Name)
			}
			if strings.Join(names, " ") != strings.Join(want, " ") {
				t.Errorf("declared %q, want %q", names, want)
			}
			refWS, refOpts := workspace(t)
			refOpts.Prefix = "ws_"
			ref := reference(t, refWS, refOpts, calls)
			got := loop.results(t, bodies[1])
			for _, c := range calls {
				if got[c.id] != ref[c.id].AsText() {
					t.Errorf("%s %s: the model received %q, want %q", c.id, c.name, got[c.id], ref[c.id].AsText())
				}
			}
			if !strings.HasPrefix(got["call_2"], `Unknown tool "read". Available tools: "ws_read", "ws_ls",`) {
				t.Errorf("the bare name was answered %q", got["call_2"])
			}
		})
	}
}

// Without MediaMessage, a Chat Completions turn that read an image and a
// PDF sends the tool messages alone: the text lines, no user message.
func TestChatWithoutMediaMessage(t *testing.T) {
	ws, opts := workspace(t)
	set, err := openai.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	calls := []call{
		{"call_1", "read", `{"path":"/workspace/pixel.png"}`},
		{"call_2", "read", `{"path":"/workspace/doc.pdf"}`},
	}
	api, client := newAPI(t, "/chat/completions", chatReplies(t, agentcase.Answer, calls))
	chatLoop(t, t.Context(), client, set)
	body := api.requests()[1]
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, " ") != "user assistant tool tool" {
		t.Errorf("the history's roles are %q, want user assistant tool tool", roles)
	}
	refWS, refOpts := workspace(t)
	ref := reference(t, refWS, refOpts, calls)
	got := agentcase.ChatToolMessages(t, body)
	for _, c := range calls {
		if got[c.id] != ref[c.id].Text || !ref[c.id].HasMedia() {
			t.Errorf("%s: content %q, want the text line %q", c.id, got[c.id], ref[c.id].Text)
		}
	}
}

// exec's running snapshots reach a core.WithSnapshots function on the
// context the loop gives the turn helper, in both loops; the model
// receives the final result, the raw adapter's.
func TestExecSnapshots(t *testing.T) {
	for _, loop := range loops {
		t.Run(loop.name, func(t *testing.T) {
			ws, opts := agentcase.Counting(t)
			set, err := openai.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			calls := []call{{"call_1", "exec", agentcase.CountingArgs}}
			api, client := newAPI(t, loop.path, loop.replies(t, agentcase.Answer, calls))
			var snapshots []string
			ctx := core.WithSnapshots(t.Context(), func(o toolspec.Output) { snapshots = append(snapshots, string(o.JSON)) })
			loop.run(t, ctx, client, set)
			if len(snapshots) == 0 {
				t.Fatal("no snapshot reached the context's function")
			}
			for _, s := range snapshots {
				if !strings.HasPrefix(s, `{"command":"count","cwd":null,"backend":"shell","exitCode":null,`) {
					t.Errorf("snapshot %s, want a running result", s)
				}
			}
			refWS, refOpts := agentcase.Counting(t)
			ref := reference(t, refWS, refOpts, calls)
			final := ref["call_1"].AsText()
			if got := loop.results(t, api.requests()[1])["call_1"]; got != final || !strings.Contains(final, `"exitCode":0`) {
				t.Errorf("the model received %s, want the final result %s", got, final)
			}
		})
	}
}

// The turn helpers fail only for what is not the model's doing: a
// cancelled context, an Approver's error. Then they return nothing.
func TestTurnErrors(t *testing.T) {
	failing := errors.New("approver down")
	for _, tc := range []struct {
		name   string
		ctx    func(context.Context) context.Context
		opts   func(*agenttools.Options)
		target error
	}{
		{"cancelled", func(ctx context.Context) context.Context {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			return ctx
		}, func(*agenttools.Options) {}, context.Canceled},
		{"approver", func(ctx context.Context) context.Context { return ctx }, func(o *agenttools.Options) {
			o.Approve = core.ApproveList{core.ApproveMutating}
			o.Approver = core.ApproverFunc(func(context.Context, core.ApprovalRequest) (bool, error) { return false, failing })
		}, failing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, opts := workspace(t)
			tc.opts(&opts)
			set, err := openai.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx := tc.ctx(t.Context())
			args := `{"path":"/workspace/new.txt","content":"x"}`
			var msg oai.ChatCompletionMessage
			if err := json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write","arguments":`+strconv.Quote(args)+`}}]}`), &msg); err != nil {
				t.Fatal(err)
			}
			if msgs, err := set.ChatTurn(ctx, msg); !errors.Is(err, tc.target) || msgs != nil {
				t.Errorf("ChatTurn: %d messages, %v; want none and %v", len(msgs), err, tc.target)
			}
			var resp responses.Response
			if err := json.Unmarshal([]byte(`{"id":"resp_1","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"write","arguments":`+strconv.Quote(args)+`}]}`), &resp); err != nil {
				t.Fatal(err)
			}
			if items, err := set.ResponsesTurn(ctx, &resp); !errors.Is(err, tc.target) || items != nil {
				t.Errorf("ResponsesTurn: %d items, %v; want none and %v", len(items), err, tc.target)
			}
			if _, err := ws.Stat(t.Context(), "/workspace/new.txt"); err == nil {
				t.Error("the write ran")
			}
		})
	}
}

// declaration is a tool as a request declares it (Chat Completions:
// its function object).
type declaration struct {
	Name       string          `json:"name"`
	Strict     *bool           `json:"strict"` // nil when left out
	Parameters json.RawMessage `json:"parameters"`
}

// declared are the tools of a request, in order.
func declared(t *testing.T, body []byte) []declaration {
	t.Helper()
	var req struct {
		Tools []struct {
			declaration
			Function declaration `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []declaration
	for _, tool := range req.Tools {
		d := tool.declaration
		if d.Name == "" {
			d = tool.Function
		}
		out = append(out, d)
	}
	return out
}

// Strict declares read, write and edit (the tools the spec marks for
// constrained sampling) strict, with schemas closed for OpenAI's strict
// mode, in both loops, and leaves the others as they were (Chat
// Completions: no strict; Responses: strict false). A call whose
// optional fields are null, as strict mode makes the model send them,
// then gets the answer of the call without them; without Strict the
// same call is refused.
func TestStrict(t *testing.T) {
	args := `{"path":"/workspace/notes.txt","offset":null,"byteOffset":null,"limit":null}`
	calls := []call{{"call_1", "read", args}}
	for _, loop := range loops {
		t.Run(loop.name, func(t *testing.T) {
			ws, opts := workspace(t)
			set, err := openai.New(ws, opts, openai.Strict())
			if err != nil {
				t.Fatal(err)
			}
			api, client := newAPI(t, loop.path, loop.replies(t, agentcase.Answer, calls))
			loop.run(t, t.Context(), client, set)
			bodies := api.requests()
			decls := declared(t, bodies[0])
			if len(decls) != len(set.All()) {
				t.Fatalf("%d tools declared, want %d", len(decls), len(set.All()))
			}
			for i, tool := range set.All() {
				core, _ := set.Executor().Tool(tool.Name())
				d := decls[i]
				if d.Name != tool.Name() {
					t.Fatalf("tool %d declared as %s, want %s", i+1, d.Name, tool.Name())
				}
				strict := tool.Name() == "read" || tool.Name() == "write" || tool.Name() == "edit"
				schema := core.InputSchema
				if strict {
					closed, ok := adapt.StrictSchema(schema, adapt.StrictOpenAI)
					if !ok {
						t.Fatalf("%s: no closed schema", tool.Name())
					}
					schema = closed
					if d.Strict == nil || !*d.Strict || !tool.Strict() {
						t.Errorf("%s: strict %v, want true", tool.Name(), d.Strict)
					}
				} else if tool.Strict() || (loop.name == "chat") != (d.Strict == nil) || (d.Strict != nil && *d.Strict) {
					t.Errorf("%s: strict %v, want it not strict", tool.Name(), d.Strict)
				}
				if got, want := string(d.Parameters), sortedSchema(t, schema); got != want {
					t.Errorf("%s: parameters\n got %s\nwant %s", tool.Name(), got, want)
				}
			}

			refWS, refOpts := workspace(t)
			want := reference(t, refWS, refOpts, []call{{"call_1", "read", `{"path":"/workspace/notes.txt"}`}})["call_1"]
			if got := loop.results(t, bodies[1])["call_1"]; got != want.AsText() {
				t.Errorf("the model received %q, want %q", got, want.AsText())
			}
			refWS, refOpts = workspace(t)
			if refused := reference(t, refWS, refOpts, calls)["call_1"]; !refused.IsError() {
				t.Errorf("without Strict the nulls are accepted: %q", refused.AsText())
			}
		})
	}
}

// Strict with names declares those tools strict, but a tool whose schema
// cannot be closed (exec's maps) stays as it was; a name the spec does
// not have is refused.
func TestStrictNamed(t *testing.T) {
	ws, opts := workspace(t)
	set, err := openai.New(ws, opts, openai.Strict(toolspec.ToolLs, toolspec.ToolExec))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range set.All() {
		if want := tool.Name() == "ls"; tool.Strict() != want {
			t.Errorf("%s: strict %t, want %t", tool.Name(), tool.Strict(), want)
		}
	}
	if _, err := openai.New(ws, opts, openai.Strict("cat")); err == nil {
		t.Error("Strict(\"cat\") was accepted")
	}
}

// A read of a file named as an image or PDF whose bytes are none (a Git
// LFS pointer saved as .png), which the APIs would refuse the request
// for, reaches the model as read's text line alone, in both loops (with
// MediaMessage for Chat Completions); an image whose bytes are another
// type than its extension says (a PNG saved as .jpg) goes as the type of
// its bytes.
func TestUnreadableMedia(t *testing.T) {
	pointer := []byte("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 12345\n")
	calls := []call{
		{"call_1", "read", `{"path":"/workspace/logo.png"}`},
		{"call_2", "read", `{"path":"/workspace/manual.pdf"}`},
		{"call_3", "read", `{"path":"/workspace/pixel.jpg"}`},
	}
	pixel := "data:image/png;base64," + base64.StdEncoding.EncodeToString(agentcase.Pixel)
	for _, loop := range loops {
		t.Run(loop.name, func(t *testing.T) {
			ws, opts := workspace(t)
			for path, data := range map[string][]byte{"/workspace/logo.png": pointer, "/workspace/manual.pdf": pointer, "/workspace/pixel.jpg": agentcase.Pixel} {
				if err := ws.WriteFile(t.Context(), path, data, vfs.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			set, err := openai.New(ws, opts, openai.MediaMessage())
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, c := range calls {
				out, err := set.Executor().Call(t.Context(), c.name, []byte(c.args))
				if err != nil || !out.HasMedia() {
					t.Fatalf("%s: %+v, %v; want read's image or PDF", c.args, out, err)
				}
				texts = append(texts, out.Text)
			}
			api, client := newAPI(t, loop.path, loop.replies(t, agentcase.Answer, calls))
			loop.run(t, t.Context(), client, set)
			body := api.requests()[1]
			var req struct {
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
				Input []struct {
					CallID string          `json:"call_id"`
					Output json.RawMessage `json:"output"`
				} `json:"input"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				t.Fatal(err)
			}
			if loop.name == "chat" {
				media := req.Messages[len(req.Messages)-1]
				want := `[{"image_url":{"url":"` + pixel + `"},"type":"image_url"}]`
				if media.Role != "user" || compact(t, media.Content) != want {
					t.Errorf("the media message is %s %s, want user %s", media.Role, media.Content, want)
				}
			}
			got := loop.results(t, body)
			for i, c := range calls[:2] {
				if got[c.id] != texts[i] {
					t.Errorf("%s: %q, want read's text line %q alone", c.args, got[c.id], texts[i])
				}
			}
			if loop.name == "responses" {
				out := compact(t, req.Input[2].Output)
				text, _ := json.Marshal(texts[2])
				want := `[{"text":` + string(text) + `,"type":"input_text"},{"image_url":"` + pixel + `","type":"input_image"}]`
				if out != want {
					t.Errorf("the image's output is %s, want %s", out, want)
				}
			}
		})
	}
}
