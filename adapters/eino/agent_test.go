package eino_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/agentcase"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// scriptedModel is a model.ToolCallingChatModel that makes the scripted
// calls, one per turn or all in the first (batch), then answers, and keeps what it was sent.
type scriptedModel struct {
	calls []agentcase.Call
	// batch makes all the calls in the first turn, then answers.
	batch bool
	state *modelState
}

type modelState struct {
	mu   sync.Mutex
	turn int
	// tools are what WithTools bound; results the tool message of each
	// call, by id, as the model first received it.
	tools   []*schema.ToolInfo
	results map[string]*schema.Message
	order   []string
}

var _ model.ToolCallingChatModel = (*scriptedModel)(nil)

func newModel(calls []agentcase.Call) *scriptedModel {
	return &scriptedModel{calls: calls, state: &modelState{results: map[string]*schema.Message{}}}
}

func (m *scriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.state.mu.Lock()
	defer m.state.mu.Unlock()
	m.state.tools = tools
	return m, nil
}

func (m *scriptedModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s := m.state
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, msg := range input {
		if msg.Role == schema.Tool {
			if _, seen := s.results[msg.ToolCallID]; !seen {
				s.results[msg.ToolCallID] = msg
				s.order = append(s.order, msg.ToolCallID)
			}
		}
	}
	if s.turn == len(m.calls) || m.batch && s.turn > 0 {
		return schema.AssistantMessage(agentcase.Answer, nil), nil
	}
	calls := m.calls[s.turn : s.turn+1]
	if m.batch {
		calls = m.calls
	}
	s.turn++
	var toolCalls []schema.ToolCall
	for _, c := range calls {
		toolCalls = append(toolCalls, schema.ToolCall{ID: c.ID, Type: "function", Function: schema.FunctionCall{Name: c.Tool, Arguments: c.Args}})
	}
	return schema.AssistantMessage("", toolCalls), nil
}

func (m *scriptedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// newAgent builds eino's react agent over the session's workspace, read's
// media attached by the set's MediaRewriter.
func newAgent(t *testing.T, m *scriptedModel) *react.Agent {
	t.Helper()
	ws, opts := agentcase.Workspace(t)
	set, err := eino.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return reactAgent(t, m, set)
}

// reactAgent builds eino's react agent over set.
func reactAgent(t *testing.T, m *scriptedModel, set *eino.Tools) *react.Agent {
	t.Helper()
	agent, err := react.NewAgent(t.Context(), &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.All()},
		MessageRewriter:  set.MediaRewriter(),
		MaxStep:          2*len(m.calls) + 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

// toolJSON is a tool info as a chat model marshals it: name, description
// and the JSON Schema of ParamsOneOf.
func toolJSON(t *testing.T, info *schema.ToolInfo) string {
	t.Helper()
	params, err := info.ToJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	}{info.Name, info.Desc, params})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// messageText is a tool message as text: its Content, or its parts in
// order, a text part as its text and any other part on a line of its own
// as [type mime-type base64-data]; dataPrefix > 0 cuts the data to that
// many characters and adds its length.
func messageText(msg *schema.Message, dataPrefix int) string {
	if len(msg.UserInputMultiContent) == 0 {
		return msg.Content
	}
	var parts []string
	for _, p := range msg.UserInputMultiContent {
		var common *schema.MessagePartCommon
		switch {
		case p.Type == schema.ChatMessagePartTypeText:
			parts = append(parts, p.Text)
			continue
		case p.Image != nil:
			common = &p.Image.MessagePartCommon
		case p.File != nil:
			common = &p.File.MessagePartCommon
		default:
			parts = append(parts, "["+string(p.Type)+"]")
			continue
		}
		data := ""
		if common.Base64Data != nil {
			data = *common.Base64Data
		}
		if dataPrefix > 0 && len(data) > dataPrefix {
			data = data[:dataPrefix] + "... (" + strconv.Itoa(len(data)) + " chars)"
		}
		parts = append(parts, "["+string(p.Type)+" "+common.MIMEType+" "+data+"]")
	}
	return strings.Join(parts, "\n")
}

// session is what the model received in a run, in the order of the calls.
func session(t *testing.T, m *scriptedModel, answer string) agentcase.Session {
	t.Helper()
	var s agentcase.Session
	for _, info := range m.state.tools {
		s.Tools = append(s.Tools, toolJSON(t, info))
	}
	for i, c := range m.calls {
		if i >= len(m.state.order) || m.state.order[i] != c.ID {
			t.Fatalf("tool results arrived in the order %v", m.state.order)
		}
		msg := m.state.results[c.ID]
		if msg.ToolName != c.Tool {
			t.Errorf("%s: tool message names %q, want %q", c.ID, msg.ToolName, c.Tool)
		}
		s.Results = append(s.Results, messageText(msg, 24))
	}
	s.Answer = answer
	return s
}

// TestAgentSession runs the scripted session through eino's react agent
// (Generate: the graph is invoked, so the ToolsNode invokes each tool) and
// pins what the model received.
func TestAgentSession(t *testing.T) {
	m := newModel(agentcase.Calls)
	answer, err := newAgent(t, m).Generate(t.Context(), []*schema.Message{schema.UserMessage(agentcase.Prompt)})
	if err != nil {
		t.Fatal(err)
	}
	s := session(t, m, answer.Content)
	agentcase.Record(t, "eino", s)

	// The image read is a tool message of parts: the text part, then the
	// image, with nothing in Content.
	img := m.state.results["call_2"]
	if img.Content != "" || len(img.UserInputMultiContent) != 2 {
		t.Fatalf("the image read's tool message: content %q, %d parts", img.Content, len(img.UserInputMultiContent))
	}
	if p := img.UserInputMultiContent[1]; p.Type != schema.ChatMessagePartTypeImageURL || p.Image.MIMEType != "image/png" ||
		p.Image.Base64Data == nil || !strings.HasPrefix(*p.Image.Base64Data, "iVBORw0KGgo") || p.Image.URL != nil {
		t.Errorf("the image part: %+v", p)
	}
}

// Streamed (the graph is streamed, so the ToolsNode streams each tool and
// concatenates the chunks), the model receives exactly what it receives
// invoked: exec's final result, not its snapshots. A core.WithSnapshots
// function on the agent's context still sees the running snapshots.
func TestAgentSessionStreamed(t *testing.T) {
	invoked := newModel(agentcase.Calls)
	if _, err := newAgent(t, invoked).Generate(t.Context(), []*schema.Message{schema.UserMessage(agentcase.Prompt)}); err != nil {
		t.Fatal(err)
	}
	streamed := newModel(agentcase.Calls)
	var snapshots []string
	ctx := core.WithSnapshots(t.Context(), func(o toolspec.Output) { snapshots = append(snapshots, string(o.JSON)) })
	sr, err := newAgent(t, streamed).Stream(ctx, []*schema.Message{schema.UserMessage(agentcase.Prompt)})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*schema.Message
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, msg)
	}
	answer, err := schema.ConcatMessages(chunks)
	if err != nil {
		t.Fatal(err)
	}
	want := session(t, invoked, agentcase.Answer)
	got := session(t, streamed, answer.Content)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streamed session (-want +got):\nwant %q\n got %q", want, got)
	}
	for _, c := range agentcase.Calls {
		if !reflect.DeepEqual(streamed.state.results[c.ID].UserInputMultiContent, invoked.state.results[c.ID].UserInputMultiContent) {
			t.Errorf("%s: streamed parts differ from invoked", c.ID)
		}
	}
	if len(snapshots) == 0 {
		t.Fatal("no running snapshot reached the context's function")
	}
	for _, s := range snapshots {
		if !strings.Contains(s, `"exitCode":null`) {
			t.Errorf("snapshot %s", s)
		}
	}
	final := streamed.state.results["call_10"].Content
	if strings.Contains(final, `"exitCode":null`) || !strings.HasPrefix(final, "{") || strings.Count(final, `{"command"`) != 1 {
		t.Errorf("the model received %s for exec", final)
	}
}

// counting is agentcase.Counting's workspace (exec prints 0..11, one
// line a chunk, on a clock that makes a snapshot every fourth chunk) as
// eino tools, and its exec call's arguments.
func counting(t *testing.T) (*eino.Tools, string) {
	t.Helper()
	set, err := eino.New(agentcase.Counting(t))
	if err != nil {
		t.Fatal(err)
	}
	return set, agentcase.CountingArgs
}

func recvAll(t *testing.T, sr *schema.StreamReader[string]) []string {
	t.Helper()
	defer sr.Close()
	var chunks []string
	for {
		s, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return chunks
		}
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, s)
	}
}

const countFinal = `{"command":"count","cwd":null,"backend":"shell","exitCode":0,"stdout":"0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n","stderr":""}`

// A streaming consumer of exec sees the running snapshots, then the final
// result, each a whole JSON object.
func TestExecStreamsSnapshots(t *testing.T) {
	set, args := counting(t)
	execTool, ok := set.Exec()
	if !ok {
		t.Fatal("no exec tool")
	}
	// A snapshot function the caller put on the context receives them too.
	var watched int
	ctx := core.WithSnapshots(t.Context(), func(toolspec.Output) { watched++ })
	sr, err := execTool.(tool.StreamableTool).StreamableRun(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	chunks := recvAll(t, sr)
	if len(chunks) < 2 {
		t.Fatalf("the stream held %d chunks: %q", len(chunks), chunks)
	}
	if watched < len(chunks)-1 {
		t.Errorf("the caller's snapshot function saw %d snapshots; the stream held %d", watched, len(chunks)-1)
	}
	for _, s := range chunks[:len(chunks)-1] {
		var r toolspec.ExecResult
		if err := json.Unmarshal([]byte(s), &r); err != nil || r.ExitCode != nil || !strings.HasPrefix(s, `{"command":"count","cwd":null,"backend":"shell","exitCode":null,`) {
			t.Errorf("snapshot %s (%v)", s, err)
		}
	}
	if last := chunks[len(chunks)-1]; last != countFinal {
		t.Errorf("last chunk %s, want %s", last, countFinal)
	}
}

// Run by a ToolsNode, in either mode, exec gives the model exactly the
// final result: streamed, eino concatenates the chunks into the tool
// message, so the stream is that one chunk.
func TestExecInToolsNode(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		set, args := counting(t)
		execTool, _ := set.Exec()
		node, err := compose.NewToolNode(t.Context(), &compose.ToolsNodeConfig{Tools: []tool.BaseTool{execTool}})
		if err != nil {
			t.Fatal(err)
		}
		in := schema.AssistantMessage("", []schema.ToolCall{{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "exec", Arguments: args}}})
		msgs := toolsNode(t, node, in, streamed)
		if len(msgs) != 1 || msgs[0].Content != countFinal || msgs[0].ToolCallID != "call_1" {
			t.Errorf("streamed %v: tool messages %+v, want content %s", streamed, msgs, countFinal)
		}
	}
}

// toolsNode runs node on in, invoked or streamed; streamed, the chunks
// are concatenated as the graph does before the next node.
func toolsNode(t *testing.T, node *compose.ToolsNode, in *schema.Message, streamed bool) []*schema.Message {
	t.Helper()
	if !streamed {
		msgs, err := node.Invoke(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	sr, err := node.Stream(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var chunks [][]*schema.Message
	for {
		c, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
	msgs, err := schema.ConcatMessageArray(chunks)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// Arguments that fail the schema, or are not JSON, come back as core's
// error text, in each tool's form; never as a Go error.
func TestInvalidArguments(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	set, err := eino.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"ls", `{"path":1}`},
		{"grep", `{"query":"x","nope":true}`},
		{"write", `not json`},
		{"read", `{}`},
		{"read", `{"path":"/workspace/notes.txt","offset":0}`},
		{"exec", `{"command":["go"]}`},
	} {
		want, err := set.Executor().Call(t.Context(), tc.tool, []byte(tc.args))
		if err != nil || want.Kind != toolspec.OutputErrorText {
			t.Fatalf("%s %s: core gives %+v, %v", tc.tool, tc.args, want, err)
		}
		var got string
		for _, et := range set.All() {
			info, _ := et.Info(t.Context())
			if info.Name != tc.tool {
				continue
			}
			switch et := et.(type) {
			case tool.InvokableTool:
				got, err = et.InvokableRun(t.Context(), tc.args)
			case tool.EnhancedInvokableTool:
				var res *schema.ToolResult
				res, err = et.InvokableRun(t.Context(), &schema.ToolArgument{Text: tc.args})
				if err == nil {
					if len(res.Parts) != 1 || res.Parts[0].Type != schema.ToolPartTypeText {
						t.Errorf("%s %s: parts %+v", tc.tool, tc.args, res.Parts)
					}
					got = res.Parts[0].Text
				}
			}
		}
		if err != nil || got != want.Text {
			t.Errorf("%s %s: got %q, %v; want %q", tc.tool, tc.args, got, err, want.Text)
		}
	}
}

// A cancelled context is a Go error from every form of tool, and stops
// the agent; the tools never turn it into a result.
func TestCallCancelled(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	set, err := eino.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	read, _ := set.Read()
	if _, err := read.(tool.InvokableTool).InvokableRun(ctx, `{"path":"/workspace/notes.txt"}`); !errors.Is(err, context.Canceled) {
		t.Errorf("read: %v", err)
	}
	enhanced, err := eino.New(ws, opts, eino.EnhancedRead())
	if err != nil {
		t.Fatal(err)
	}
	read, _ = enhanced.Read()
	if _, err := read.(tool.EnhancedInvokableTool).InvokableRun(ctx, &schema.ToolArgument{Text: `{"path":"/workspace/notes.txt"}`}); !errors.Is(err, context.Canceled) {
		t.Errorf("enhanced read: %v", err)
	}
	ls, _ := set.Ls()
	if _, err := ls.(tool.InvokableTool).InvokableRun(ctx, `{"path":"/workspace"}`); !errors.Is(err, context.Canceled) {
		t.Errorf("ls: %v", err)
	}
	execTool, _ := set.Exec()
	if _, err := execTool.(tool.InvokableTool).InvokableRun(ctx, `{"command":"go test ./..."}`); !errors.Is(err, context.Canceled) {
		t.Errorf("exec invoked: %v", err)
	}
	if _, err := execTool.(tool.StreamableTool).StreamableRun(ctx, `{"command":"go test ./..."}`); !errors.Is(err, context.Canceled) {
		t.Errorf("exec streamed: %v", err)
	}
	m := newModel(agentcase.Calls)
	if _, err := newAgent(t, m).Generate(ctx, []*schema.Message{schema.UserMessage(agentcase.Prompt)}); !errors.Is(err, context.Canceled) {
		t.Errorf("agent: %v", err)
	}
}

// A cancel during a streamed exec kills the command and ends the stream
// with the context's error.
func TestExecStreamCancelled(t *testing.T) {
	ws, _ := testws.Host(t, "")
	host, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := eino.New(ws, agenttools.Options{Backends: []execbackend.Backend{host}})
	if err != nil {
		t.Fatal(err)
	}
	execTool, _ := set.Exec()
	guard, stop := context.WithTimeout(t.Context(), time.Minute)
	defer stop()
	ctx, cancel := context.WithCancel(guard)
	defer cancel()
	sr, err := execTool.(tool.StreamableTool).StreamableRun(ctx, `{"command":"echo started; sleep 100"}`)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	first, err := sr.Recv()
	if err != nil || !strings.Contains(first, `"exitCode":null`) {
		t.Fatalf("first chunk %q, %v", first, err)
	}
	cancel()
	for {
		s, err := sr.Recv()
		if err == nil {
			if !strings.Contains(s, `"exitCode":null`) {
				t.Fatalf("a cancelled run gave %s", s)
			}
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the stream ended with %v, want context.Canceled", err)
		}
		return
	}
}

// Info carries the exact JSON Schema: marshaled, it is the same JSON value
// and the same length, with the properties in the spec's order; only the
// order of the other keys differs. Checked for every tool, and for exec
// with several backends (a backend enum) and a callable one (input).
func TestInfoSchema(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	scripts := execbackend.NewScripts(nil)
	opts.Backends = append(opts.Backends,
		execbackend.NewScripted(execbackend.Info{ID: "box", Description: "a sandbox", Callable: true}, scripts))
	for _, o := range []agenttools.Options{opts, {Readonly: true}} {
		set, err := eino.New(ws, o)
		if err != nil {
			t.Fatal(err)
		}
		infos, err := set.Infos(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		tools := set.Executor().Tools()
		if len(infos) != len(tools) {
			t.Fatalf("%d infos for %d tools", len(infos), len(tools))
		}
		for i, info := range infos {
			ct := tools[i]
			if info.Name != ct.Name || info.Desc != ct.Description {
				t.Errorf("info %d: %s %q", i, info.Name, info.Desc)
			}
			params, err := info.ToJSONSchema()
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(params)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(ct.InputSchema), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the model is sent %s\nfor %s", ct.Name, data, ct.InputSchema)
			}
			if len(data) != len(ct.InputSchema) {
				t.Errorf("%s: %d bytes for %d", ct.Name, len(data), len(ct.InputSchema))
			}
			if g, w := propertyOrder(t, data), propertyOrder(t, []byte(ct.InputSchema)); !reflect.DeepEqual(g, w) {
				t.Errorf("%s: properties in the order %v, want %v", ct.Name, g, w)
			}
		}
	}
}

// propertyOrder lists the keys of every "properties" object of a schema,
// in document order.
func propertyOrder(t *testing.T, data []byte) []string {
	t.Helper()
	var keys []string
	var walk func(raw json.RawMessage, collect bool)
	walk = func(raw json.RawMessage, collect bool) {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, _ := dec.Token()
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				if collect {
					keys = append(keys, k.(string))
				}
				walk(v, !collect && k == "properties")
			}
		case json.Delim('['):
			for dec.More() {
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				walk(v, false)
			}
		}
	}
	walk(data, false)
	return keys
}

// With TextRead, read is a plain tool: its text is the tool message's
// Content, and an image is its text part.
func TestTextRead(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	set, err := eino.New(ws, opts, eino.TextRead())
	if err != nil {
		t.Fatal(err)
	}
	read, _ := set.Read()
	plain, ok := read.(tool.InvokableTool)
	if _, enhanced := read.(tool.EnhancedInvokableTool); !ok || enhanced {
		t.Fatalf("read is %T, want a plain invokable tool only", read)
	}
	for args, want := range map[string]string{
		`{"path":"/workspace/notes.txt"}`: "# Notes\nstatus: draft\nowner: team",
		`{"path":"/workspace/pixel.png"}`: "Read /workspace/pixel.png (image/png, 70 bytes).",
	} {
		got, err := plain.InvokableRun(t.Context(), args)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", args, got, err, want)
		}
	}
}

// Run by a ToolsNode, each form of read gives the image read's tool
// message: the default form, with MediaRewriter applied to the node's
// messages, and EnhancedRead, without, as the text part then the image
// part; TextRead as the text, MediaRewriter or not.
func TestReadForms(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	pixel := base64.StdEncoding.EncodeToString(agentcase.Pixel)
	parts := "Read /workspace/pixel.png (image/png, 70 bytes).\n[image_url image/png " + pixel + "]"
	for _, tc := range []struct {
		name    string
		options []eino.Option
		rewrite bool
		want    string
	}{
		{"default", nil, true, parts},
		{"default without MediaRewriter", nil, false, "Read /workspace/pixel.png (image/png, 70 bytes)."},
		{"EnhancedRead", []eino.Option{eino.EnhancedRead()}, false, parts},
		{"TextRead", []eino.Option{eino.TextRead()}, true, "Read /workspace/pixel.png (image/png, 70 bytes)."},
	} {
		set, err := eino.New(ws, opts, tc.options...)
		if err != nil {
			t.Fatal(err)
		}
		var rewrite func(context.Context, []*schema.Message) []*schema.Message
		if tc.rewrite {
			rewrite = set.MediaRewriter()
		}
		node, err := compose.NewToolNode(t.Context(), &compose.ToolsNodeConfig{Tools: set.All()})
		if err != nil {
			t.Fatal(err)
		}
		for _, streamed := range []bool{false, true} {
			in := schema.AssistantMessage("", []schema.ToolCall{{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "read", Arguments: `{"path":"/workspace/pixel.png"}`}}})
			msgs := toolsNode(t, node, in, streamed)
			if rewrite != nil {
				msgs = rewrite(t.Context(), msgs)
			}
			if len(msgs) != 1 || msgs[0].ToolCallID != "call_1" {
				t.Fatalf("%s: messages %+v", tc.name, msgs)
			}
			if got := messageText(msgs[0], 0); got != tc.want {
				t.Errorf("%s, streamed %v: %q, want %q", tc.name, streamed, got, tc.want)
			}
		}
	}
}
