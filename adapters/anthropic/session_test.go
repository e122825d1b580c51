package anthropic_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// model is the model every recorded session asks for.
const model = "claude-sonnet-4-5"

// pdf is the workspace's /workspace/report.pdf: read answers a PDF by its
// extension, so a few bytes do.
var pdf = []byte("%PDF-1.4\n%%EOF\n")

// workspace is the agent session's workspace (internal/agentcase) with a
// PDF added, and its options.
func workspace(t *testing.T) (*vfs.Workspace, agenttools.Options) {
	t.Helper()
	ws, opts := agentcase.Workspace(t)
	if err := ws.WriteFile(t.Context(), "/workspace/report.pdf", pdf, vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return ws, opts
}

// fakeAPI is a local stand-in for the Messages API: it answers the nth
// request with the nth of the responses it replays, and keeps every
// request body. A request it has no response for is answered with an
// API error, which fails the SDK's call.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	replies []json.RawMessage
	bodies  [][]byte
}

// newAPI starts a stand-in with nothing to replay.
func newAPI(t *testing.T) *fakeAPI {
	t.Helper()
	api := &fakeAPI{}
	api.Server = httptest.NewServer(api)
	t.Cleanup(api.Close)
	return api
}

// serve starts a stand-in that replays testdata/name: a JSON array of
// Messages API responses, in the API's own shape.
func serve(t *testing.T, name string) *fakeAPI {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var replies []json.RawMessage
	if err := json.Unmarshal(data, &replies); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	api := newAPI(t)
	api.replay(replies...)
	return api
}

// replay makes the stand-in answer the next requests with replies, and
// forget the requests before.
func (api *fakeAPI) replay(replies ...json.RawMessage) {
	api.mu.Lock()
	defer api.mu.Unlock()
	api.replies, api.bodies = replies, nil
}

func (api *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	api.mu.Lock()
	n := len(api.bodies)
	api.bodies = append(api.bodies, body)
	api.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" || n >= len(api.replies) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unexpected request %d: %s %s"}}`, n+1, r.Method, r.URL.Path)
		return
	}
	w.Write(api.replies[n])
}

// client is an SDK client of api: no environment, no retries.
func (api *fakeAPI) client() sdk.Client {
	return sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// request is what the tests read of a request body.
type request struct {
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (api *fakeAPI) requests(t *testing.T) []request {
	t.Helper()
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.bodies) != len(api.replies) {
		t.Fatalf("the loop sent %d requests, want %d (one per recorded response)", len(api.bodies), len(api.replies))
	}
	reqs := make([]request, len(api.bodies))
	for i, body := range api.bodies {
		if err := json.Unmarshal(body, &reqs[i]); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	return reqs
}

// toolCall is one tool_use block of a recorded response.
type toolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// calls are the tool_use blocks of the recorded responses, in order.
func (api *fakeAPI) calls(t *testing.T) []toolCall {
	t.Helper()
	var calls []toolCall
	for _, reply := range api.replies {
		var msg struct {
			Content []struct {
				Type string `json:"type"`
				toolCall
			} `json:"content"`
		}
		if err := json.Unmarshal(reply, &msg); err != nil {
			t.Fatal(err)
		}
		for _, c := range msg.Content {
			if c.Type == "tool_use" {
				calls = append(calls, c.toolCall)
			}
		}
	}
	return calls
}

// results are the tool_result blocks the requests carried, by tool_use_id,
// each as sent the first time, and the ids in the order they came.
func results(t *testing.T, reqs []request) (map[string]json.RawMessage, []string) {
	t.Helper()
	byID := map[string]json.RawMessage{}
	var order []string
	for _, req := range reqs {
		for _, m := range req.Messages {
			var blocks []json.RawMessage
			if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				var head struct {
					Type      string `json:"type"`
					ToolUseID string `json:"tool_use_id"`
				}
				if err := json.Unmarshal(b, &head); err != nil {
					t.Fatal(err)
				}
				if _, seen := byID[head.ToolUseID]; head.Type == "tool_result" && !seen {
					byID[head.ToolUseID] = b
					order = append(order, head.ToolUseID)
				}
			}
		}
	}
	return byID, order
}

// resultBlock is a tool_result block as the API reads it; decoding refuses
// any other field.
type resultBlock struct {
	Type      string         `json:"type"`
	ToolUseID string         `json:"tool_use_id"`
	IsError   *bool          `json:"is_error"`
	Content   []contentBlock `json:"content"`
}

type contentBlock struct {
	Type   string  `json:"type"`
	Text   *string `json:"text,omitempty"`
	Source *source `json:"source,omitempty"`
}

type source struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

func decodeResult(t *testing.T, raw json.RawMessage) resultBlock {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var r resultBlock
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("tool_result %s: %v", raw, err)
	}
	return r
}

// wantResult is the tool_result the Messages API must carry for the raw
// adapter's output out: written from the package documentation, not
// from the adapter.
func wantResult(id string, out toolspec.Output) resultBlock {
	text := out.AsText()
	r := resultBlock{Type: "tool_result", ToolUseID: id, IsError: new(out.IsError()), Content: []contentBlock{{Type: "text", Text: &text}}}
	if out.HasMedia() {
		src := &source{Type: "base64", MediaType: out.Media.MediaType, Data: base64.StdEncoding.EncodeToString(out.Media.Data)}
		kind := "document"
		if out.Media.IsImage() {
			kind = "image"
		}
		r.Content = append(r.Content, contentBlock{Type: kind, Source: src})
	}
	return r
}

// reference runs the calls, in order, through the raw adapter over a
// workspace of its own, and gives each one's output. A tool the set does
// not offer gives the spec's unknown-tool text, as error text.
func reference(t *testing.T, ws *vfs.Workspace, opts agenttools.Options, calls []toolCall) []toolspec.Output {
	t.Helper()
	ref, err := raw.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	var outs []toolspec.Output
	for _, c := range calls {
		out, err := ref.Execute(t.Context(), c.Name, c.Input)
		if _, ok := errors.AsType[*toolspec.UnknownToolError](err); ok {
			out, err = unknownTool(ref.Executor(), c.Name), nil
		}
		if err != nil {
			t.Fatalf("raw %s %s: %v", c.Name, c.Input, err)
		}
		outs = append(outs, out)
	}
	return outs
}

// unknownTool is what the model must see for a call of name, which ex
// does not offer: the reference pi adapter's text, with the offered names.
func unknownTool(ex *core.Executor, name string) toolspec.Output {
	var names []string
	for _, t := range ex.Tools() {
		names = append(names, strconv.Quote(t.Name))
	}
	return toolspec.Output{Kind: toolspec.OutputErrorText, Text: toolspec.MsgUnknownTool(name, strings.Join(names, ", "))}
}

// declared is one tool as the request must declare it.
type declared struct {
	name, description, schema string
	strict                    bool
}

// declarations are ex's tools as a request must declare them: strict ones
// (by spec name) with their schema closed for Anthropic.
func declarations(t *testing.T, ex *core.Executor, strict ...string) []declared {
	t.Helper()
	var out []declared
	for _, tool := range ex.Tools() {
		d := declared{name: tool.Name, description: tool.Description, schema: tool.InputSchema}
		if slices.Contains(strict, tool.Spec) {
			closed, ok := adapt.StrictSchema(tool.InputSchema, adapt.StrictAnthropic)
			if !ok {
				t.Fatalf("%s: its schema cannot be closed", tool.Spec)
			}
			d.schema, d.strict = closed, true
		}
		out = append(out, d)
	}
	return out
}

// checkTools checks the tools a request sent against want: each a client
// tool with exactly the name, the description, the input schema (its
// JSON tokens in order: key order included) and strict true when want
// says so, nothing else.
func checkTools(t *testing.T, sent []json.RawMessage, want []declared) {
	t.Helper()
	if len(sent) != len(want) {
		t.Fatalf("the request declared %d tools, want %d", len(sent), len(want))
	}
	for i, w := range want {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(sent[i], &fields); err != nil {
			t.Fatal(err)
		}
		keys := []string{"description", "input_schema", "name"}
		if w.strict {
			keys = append(keys, "strict")
		}
		var got []string
		for k := range fields {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, keys) {
			t.Errorf("tool %d declared with %v, want %v", i+1, got, keys)
		}
		var name, description string
		_ = json.Unmarshal(fields["name"], &name)
		_ = json.Unmarshal(fields["description"], &description)
		if name != w.name || description != w.description {
			t.Errorf("tool %d: name %q, description %q; want %q, %q", i+1, name, description, w.name, w.description)
		}
		if !reflect.DeepEqual(tokens(t, fields["input_schema"]), tokens(t, []byte(w.schema))) {
			t.Errorf("%s: input_schema\n got %s\nwant %s", w.name, fields["input_schema"], w.schema)
		}
		if w.strict && string(fields["strict"]) != "true" {
			t.Errorf("%s: strict %s", w.name, fields["strict"])
		}
	}
}

// tokens is the JSON token stream of data, in order.
func tokens(t *testing.T, data []byte) []json.Token {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var toks []json.Token
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return toks
		}
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		toks = append(toks, tok)
	}
}

// golden checks a session against golden/testdata/adapters/anthropic/name:
// the tools as the first request declared them, each call and the
// tool_result the loop sent for it, the answer.
func golden(t *testing.T, name string, reqs []request, calls []toolCall, sent map[string]json.RawMessage, answer string) {
	t.Helper()
	path := filepath.Join(goldentest.RepoRoot(t), "golden", "testdata", "adapters", "anthropic", name)
	if *goldentest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := goldentest.Load(t, path)
	for i, tool := range reqs[0].Tools {
		a.Check(t, "tool "+strconv.Itoa(i+1), compact(t, tool))
	}
	for _, c := range calls {
		a.Check(t, "call "+c.ID, c.Name+" "+compact(t, c.Input))
		a.Check(t, "result "+c.ID, compact(t, sent[c.ID]))
	}
	a.Check(t, "answer", answer)
	a.Save(t, nil)
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return b.String()
}
