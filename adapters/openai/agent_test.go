package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/openai"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// pdf is the PDF at /workspace/doc.pdf.
var pdf = []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")

// workspace is the scripted session's workspace (agentcase) with a PDF.
func workspace(t *testing.T) (*vfs.Workspace, agenttools.Options) {
	t.Helper()
	ws, opts := agentcase.Workspace(t)
	if err := ws.WriteFile(t.Context(), "/workspace/doc.pdf", pdf, vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return ws, opts
}

// call is one tool call the recorded model made.
type call struct{ id, name, args string }

// reference runs calls, in order, through the raw adapter on a workspace
// of their own from open, and returns what the model must receive for
// each, by id: the raw output, and for a name the set does not offer the
// reference pi adapter's text, naming the tools the set offers.
func reference(t *testing.T, ws *vfs.Workspace, opts agenttools.Options, calls []call) map[string]toolspec.Output {
	t.Helper()
	set, err := raw.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]toolspec.Output{}
	for _, c := range calls {
		o, err := set.Execute(t.Context(), c.name, []byte(c.args))
		if _, unknown := errors.AsType[*toolspec.UnknownToolError](err); unknown {
			var names []string
			for _, d := range set.Definitions() {
				names = append(names, toolspec.QuoteJSON(d.Name))
			}
			o, err = toolspec.Output{Kind: toolspec.OutputErrorText, Text: toolspec.MsgUnknownTool(c.name, strings.Join(names, toolspec.MsgToolListSeparator))}, nil
		}
		if err != nil {
			t.Fatalf("raw %s %s: %v", c.name, c.args, err)
		}
		out[c.id] = o
	}
	return out
}

// dataURI is m's bytes as a data: URI.
func dataURI(m *toolspec.Media) string {
	return "data:" + m.MediaType + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
}

// chatTurns are the tool calls of each recorded completion that made
// any, in order.
func chatTurns(t *testing.T, replies []json.RawMessage) [][]call {
	t.Helper()
	var turns [][]call
	for _, r := range replies {
		var c struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		if err := json.Unmarshal(r, &c); err != nil || len(c.Choices) != 1 {
			t.Fatalf("recorded completion %s: %v", r, err)
		}
		var turn []call
		for _, tc := range c.Choices[0].Message.ToolCalls {
			turn = append(turn, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
		}
		if turn != nil {
			turns = append(turns, turn)
		}
	}
	return turns
}

// responsesTurns are the function calls of each recorded response that
// made any, in order.
func responsesTurns(t *testing.T, replies []json.RawMessage) [][]call {
	t.Helper()
	var turns [][]call
	for _, r := range replies {
		var resp struct {
			Output []struct {
				Type            string
				CallID          string `json:"call_id"`
				Name, Arguments string
			}
		}
		if err := json.Unmarshal(r, &resp); err != nil {
			t.Fatalf("recorded response %s: %v", r, err)
		}
		var turn []call
		for _, o := range resp.Output {
			if o.Type == "function_call" {
				turn = append(turn, call{o.CallID, o.Name, o.Arguments})
			}
		}
		if turn != nil {
			turns = append(turns, turn)
		}
	}
	return turns
}

// sortedSchema is schema as the SDK sends a tool's parameters: its
// top-level members in sorted key order (the SDK's map order), each
// value the schema's own bytes.
func sortedSchema(t *testing.T, schema string) string {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(schema), &members); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(toolspec.QuoteJSON(k) + ":" + string(members[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// checkDeclaration checks one tool as a request sent it: its members
// (decl, the tool object or its function object) are exactly keys, its
// name and description the tool's, and its parameters the tool's input
// schema with every byte of every member as ours.
func checkDeclaration(t *testing.T, set *openai.Tools, decl json.RawMessage, keys []string, tool openai.Tool, schema string) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(decl, &members); err != nil {
		t.Fatalf("declaration %s: %v", decl, err)
	}
	var got []string
	for k := range members {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, keys) {
		t.Errorf("%s: declared with members %q, want %q", tool.Name(), got, keys)
	}
	var name, description string
	if json.Unmarshal(members["name"], &name) != nil || json.Unmarshal(members["description"], &description) != nil {
		t.Fatalf("declaration %s", decl)
	}
	core, _ := set.Executor().Tool(tool.Name())
	if name != core.Name || description != core.Description {
		t.Errorf("%s: declared as %q, %q; want %q, %q", tool.Name(), name, description, core.Name, core.Description)
	}
	if got, want := string(members["parameters"]), sortedSchema(t, schema); got != want {
		t.Errorf("%s: parameters\n got %s\nwant %s", tool.Name(), got, want)
	}
}

// checkDeclarations checks the tools a request declared: one per tool
// of set, in order, each (what unwrap makes of it: its function object,
// or itself) as checkDeclaration with keys. With record, it checks each
// tool's JSON against section "tool <name>" of a.
func checkDeclarations(t *testing.T, set *openai.Tools, tools []json.RawMessage, unwrap func(json.RawMessage) json.RawMessage, keys []string, a *goldentest.Archive, record bool) {
	t.Helper()
	all := set.All()
	if len(tools) != len(all) {
		t.Fatalf("%d tools declared, want %d", len(tools), len(all))
	}
	for i, decl := range tools {
		core, _ := set.Executor().Tool(all[i].Name())
		checkDeclaration(t, set, unwrap(decl), keys, all[i], core.InputSchema)
		if record {
			a.Check(t, "tool "+core.Name, compact(t, decl))
		}
	}
}

// goldenPath is the path of golden/testdata/adapters/openai/name; under
// -update its directory is made if need be.
func goldenPath(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(goldentest.RepoRoot(t), "golden", "testdata", "adapters", "openai")
	if *goldentest.Update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, name)
}

// session runs the recorded session of testdata/file through loop on
// the scripted workspace with a set built with options, and checks that
// the loop made one request per reply and returned the scripted answer.
// It returns the set, each turn's calls (turnsOf the replies), what the
// model must receive for each call by id (reference), and the request
// bodies.
func session(t *testing.T, loop loopCase, file string, turnsOf func(*testing.T, []json.RawMessage) [][]call, options ...openai.Option) (*openai.Tools, [][]call, map[string]toolspec.Output, [][]byte) {
	t.Helper()
	ws, opts := workspace(t)
	set, err := openai.New(ws, opts, options...)
	if err != nil {
		t.Fatal(err)
	}
	replies := recorded(t, file)
	api, client := newAPI(t, loop.path, replies)
	if answer := loop.run(t, t.Context(), client, set); answer != agentcase.Answer {
		t.Errorf("answer %q, want %q", answer, agentcase.Answer)
	}
	turns := turnsOf(t, replies)
	refWS, refOpts := workspace(t)
	want := reference(t, refWS, refOpts, slices.Concat(turns...))
	bodies := api.requests()
	if len(bodies) != len(replies) || len(bodies) != len(turns)+1 {
		t.Fatalf("%d requests for %d replies of %d turns", len(bodies), len(replies), len(turns))
	}
	return set, turns, want, bodies
}

// TestChatSession runs the recorded Chat Completions session (every tool,
// an image and a PDF read, a failing read, invalid arguments, an unknown
// tool; several calls a turn) through the SDK's client in an agent loop,
// and checks what the requests carried: every tool declared with our
// name, description and schema bytes; after each assistant message, a
// tool message per call, in call order, whose content is the raw
// adapter's output for the same call as text; then one user message
// with the turn's image and PDF, in call order. It pins the declarations
// and messages in golden/testdata/adapters/openai/chat.txtar.
func TestChatSession(t *testing.T) {
	set, turns, want, bodies := session(t, loops[0], "chat.json", chatTurns, openai.MediaMessage())
	a := goldentest.Load(t, goldenPath(t, "chat.txtar"))
	type request struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	var last request
	for i, body := range bodies {
		var req request
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		checkDeclarations(t, set, req.Tools, func(decl json.RawMessage) json.RawMessage {
			var fn struct {
				Type     string          `json:"type"`
				Function json.RawMessage `json:"function"`
			}
			if err := json.Unmarshal(decl, &fn); err != nil || fn.Type != "function" {
				t.Fatalf("tool %s (%v)", decl, err)
			}
			return fn.Function
		}, []string{"description", "name", "parameters"}, a, i == 0)
		last = req
	}

	type message struct {
		Role       string          `json:"role"`
		ToolCallID string          `json:"tool_call_id"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	msgs := last.Messages
	next := func() (message, json.RawMessage) {
		t.Helper()
		if len(msgs) == 0 {
			t.Fatal("the history ends early")
		}
		var m message
		if err := json.Unmarshal(msgs[0], &m); err != nil {
			t.Fatal(err)
		}
		data := msgs[0]
		msgs = msgs[1:]
		return m, data
	}
	if m, _ := next(); m.Role != "user" || string(m.Content) != `"`+prompt+`"` {
		t.Errorf("first message %+v", m)
	}
	for k, turn := range turns {
		assistant, _ := next()
		if assistant.Role != "assistant" || len(assistant.ToolCalls) != len(turn) {
			t.Fatalf("turn %d: assistant message %+v", k+1, assistant)
		}
		var media []string
		for _, c := range turn {
			m, data := next()
			var content string
			if m.Role != "tool" || m.ToolCallID != c.id || json.Unmarshal(m.Content, &content) != nil {
				t.Fatalf("%s: message %s, want its tool message", c.id, data)
			}
			if w := want[c.id].AsText(); content != w {
				t.Errorf("%s %s %s: content %q, want the raw adapter's %q", c.id, c.name, c.args, content, w)
			}
			a.Check(t, "message "+c.id, compact(t, data))
			if out := want[c.id]; out.HasMedia() {
				media = append(media, dataURI(out.Media))
			}
		}
		if media == nil {
			continue
		}
		m, data := next()
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
			File struct {
				FileData string `json:"file_data"`
				Filename string `json:"filename"`
			} `json:"file"`
		}
		if m.Role != "user" || json.Unmarshal(m.Content, &parts) != nil || len(parts) != len(media) {
			t.Fatalf("turn %d: message %s, want a user message with %d media parts", k+1, data, len(media))
		}
		for i, p := range parts {
			got := p.ImageURL.URL
			if p.Type == "file" {
				got = p.File.FileData
			}
			if got != media[i] {
				t.Errorf("turn %d: media part %d is %s %q, want %q", k+1, i+1, p.Type, got, media[i])
			}
		}
		a.Check(t, "media turn "+string(rune('0'+k+1)), compact(t, data))
	}
	if len(msgs) != 0 {
		t.Errorf("the history holds %d more messages", len(msgs))
	}
	a.Save(t, nil)
}

// TestResponsesSession runs the recorded Responses API session (the
// calls of TestChatSession; a reasoning item among the first response's
// function calls) through the SDK's client in an agent loop, and checks
// what the requests carried: every tool declared with our name,
// description and schema bytes, and strict false; after each response,
// its id as the previous one and a function_call_output per function
// call, in call order, whose output is the raw adapter's output for the
// same call as text, or for an image or PDF its text then an
// input_image or input_file with the file. It pins the declarations and
// outputs in golden/testdata/adapters/openai/responses.txtar.
func TestResponsesSession(t *testing.T) {
	set, turns, want, bodies := session(t, loops[1], "responses.json", responsesTurns)
	a := goldentest.Load(t, goldenPath(t, "responses.txtar"))
	for i, body := range bodies {
		var req struct {
			Tools    []json.RawMessage `json:"tools"`
			Input    json.RawMessage   `json:"input"`
			Previous string            `json:"previous_response_id"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		checkDeclarations(t, set, req.Tools, func(decl json.RawMessage) json.RawMessage {
			var fn struct {
				Type   string `json:"type"`
				Strict *bool  `json:"strict"`
			}
			if err := json.Unmarshal(decl, &fn); err != nil || fn.Type != "function" || fn.Strict == nil || *fn.Strict {
				t.Fatalf("tool %s, want a function tool with strict false (%v)", decl, err)
			}
			return decl
		}, []string{"description", "name", "parameters", "strict", "type"}, a, i == 0)
		if i == 0 {
			if string(req.Input) != `"`+prompt+`"` || req.Previous != "" {
				t.Errorf("first request: input %s, previous %q", req.Input, req.Previous)
			}
			continue
		}
		if want := "resp_" + string(rune('0'+i)); req.Previous != want {
			t.Errorf("request %d: previous_response_id %q, want %q", i+1, req.Previous, want)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(req.Input, &items); err != nil || len(items) != len(turns[i-1]) {
			t.Fatalf("request %d: input %s, want %d items", i+1, req.Input, len(turns[i-1]))
		}
		for j, c := range turns[i-1] {
			var item struct {
				Type   string          `json:"type"`
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			}
			if err := json.Unmarshal(items[j], &item); err != nil || item.Type != "function_call_output" || item.CallID != c.id {
				t.Fatalf("%s: item %s, want its function_call_output", c.id, items[j])
			}
			out := want[c.id]
			if got, w := responsesOutput(t, item.Output), responsesWant(out); got != w {
				t.Errorf("%s %s %s: output\n got %s\nwant %s", c.id, c.name, c.args, got, w)
			}
			a.Check(t, "output "+c.id, compact(t, items[j]))
		}
	}
	a.Save(t, nil)
}

// responsesOutput is a function_call_output's output as text: the
// string, or the text of its input_text part then a line for its other
// part, [input_image URL] or [input_file filename data].
func responsesOutput(tb testing.TB, output json.RawMessage) string {
	tb.Helper()
	var s string
	if json.Unmarshal(output, &s) == nil {
		return s
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
		FileData string `json:"file_data"`
		Filename string `json:"filename"`
	}
	if err := json.Unmarshal(output, &parts); err != nil || len(parts) != 2 || parts[0].Type != "input_text" {
		tb.Fatalf("output %s (%v)", output, err)
	}
	if parts[1].Type == "input_image" {
		return parts[0].Text + "\n[input_image " + parts[1].ImageURL + "]"
	}
	return parts[0].Text + "\n[" + parts[1].Type + " " + parts[1].Filename + " " + parts[1].FileData + "]"
}

// responsesWant is what responsesOutput must give for out.
func responsesWant(out toolspec.Output) string {
	if !out.HasMedia() {
		return out.AsText()
	}
	if out.Media.IsImage() {
		return out.Text + "\n[input_image " + dataURI(out.Media) + "]"
	}
	return out.Text + "\n[input_file " + out.Media.Filename + " " + dataURI(out.Media) + "]"
}
