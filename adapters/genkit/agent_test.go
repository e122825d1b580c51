package genkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools"
	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	rawadapter "github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// scriptedModel is a Genkit model that makes the scripted calls, one per
// turn or all in the first (batch) (a tool request part whose ref is the call's id, its input the
// arguments decoded as a model plugin decodes them), then answers, and
// keeps what it was sent.
type scriptedModel struct {
	calls []agentcase.Call
	// batch makes all the calls in the first turn, then answers.
	batch bool
	// onTurn, when set, runs before the model answers turn i.
	onTurn func(i int)

	mu      sync.Mutex
	turn    int
	sent    []*ai.ModelRequest
	results map[string]*ai.ToolResponse
	order   []string
}

func newScriptedModel(calls []agentcase.Call) *scriptedModel {
	return &scriptedModel{calls: calls, results: map[string]*ai.ToolResponse{}}
}

func (m *scriptedModel) generate(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, req)
	for _, msg := range req.Messages {
		if msg.Role != ai.RoleTool {
			continue
		}
		for _, part := range msg.Content {
			if r := part.ToolResponse; part.IsToolResponse() {
				if _, seen := m.results[r.Ref]; !seen {
					m.results[r.Ref] = r
					m.order = append(m.order, r.Ref)
				}
			}
		}
	}
	if m.onTurn != nil {
		m.onTurn(m.turn)
	}
	// As model plugins do, a response holds its request: Genkit builds
	// an interrupted response's History from it.
	if m.turn == len(m.calls) || m.batch && m.turn > 0 {
		return &ai.ModelResponse{Request: req, Message: ai.NewModelTextMessage(agentcase.Answer), FinishReason: ai.FinishReasonStop}, nil
	}
	calls := m.calls[m.turn : m.turn+1]
	if m.batch {
		calls = m.calls
	}
	m.turn++
	var parts []*ai.Part
	for _, c := range calls {
		var input any
		if err := json.Unmarshal([]byte(c.Args), &input); err != nil {
			return nil, err
		}
		parts = append(parts, ai.NewToolRequestPart(&ai.ToolRequest{Name: c.Tool, Ref: c.ID, Input: input}))
	}
	return &ai.ModelResponse{Request: req, Message: ai.NewModelMessage(parts...), FinishReason: ai.FinishReasonStop}, nil
}

// define registers the scripted model on g.
func (m *scriptedModel) define(g *genkit.Genkit) ai.Model {
	return genkit.DefineModel(g, "scripted", &ai.ModelOptions{
		Label:    "scripted",
		Supports: &ai.ModelSupports{Multiturn: true, Tools: true, Media: true, SystemRole: true},
	}, m.generate)
}

// initGenkit is genkit.Init with no plugins: no network, no environment
// (the reflection server starts only under GENKIT_ENV=dev).
func initGenkit(t *testing.T) *genkit.Genkit {
	t.Helper()
	return genkit.Init(t.Context())
}

// runSession runs the session (generate) and returns the answer and
// the tools.
func runSession(t *testing.T, model *scriptedModel, registered bool) (string, *agentgenkit.Tools) {
	t.Helper()
	run := generate(t, model, registered)
	if run.err != nil {
		t.Fatal(run.err)
	}
	return run.resp.Text(), run.set
}

// resultText is a tool response as text: the Output string, then, for
// each media part, a line with its content type and URL.
func resultText(t *testing.T, r *ai.ToolResponse) string {
	t.Helper()
	text, ok := r.Output.(string)
	if !ok {
		t.Errorf("%s %s: output %T, want a string", r.Name, r.Ref, r.Output)
	}
	for _, p := range r.Content {
		if !p.IsMedia() {
			t.Errorf("%s %s: a content part of kind %d, want media", r.Name, r.Ref, p.Kind)
		}
		text += "\n" + p.ContentType + " " + p.Text
	}
	return text
}

// TestAgentSession runs the scripted session through Genkit's Generate
// with the tools defined on the *genkit.Genkit, and pins what the model
// received.
func TestAgentSession(t *testing.T) {
	model := newScriptedModel(agentcase.Calls)
	answer, set := runSession(t, model, true)

	var session agentcase.Session
	session.Tools = definitions(t, model.sent[0], set)
	for i, c := range agentcase.Calls {
		if i >= len(model.order) || model.order[i] != c.ID {
			t.Fatalf("tool results arrived in the order %v", model.order)
		}
		r := model.results[c.ID]
		if r.Name != c.Tool {
			t.Errorf("%s: response names tool %q, want %q", c.ID, r.Name, c.Tool)
		}
		session.Results = append(session.Results, resultText(t, r))
	}
	session.Answer = answer
	agentcase.Record(t, "genkit", session)
}

// definitions are the tool definitions of the first request, each as
// the JSON of its ai.ToolDefinition, in the set's order: Generate sends
// them in map order, which varies from run to run.
func definitions(t *testing.T, req *ai.ModelRequest, set *agentgenkit.Tools) []string {
	t.Helper()
	byName := map[string]*ai.ToolDefinition{}
	for _, d := range req.Tools {
		byName[d.Name] = d
	}
	var defs []string
	for _, tool := range set.All() {
		d, ok := byName[tool.Name()]
		if !ok {
			t.Errorf("the model was not sent tool %s", tool.Name())
			continue
		}
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, string(data))
		// The schema is core's, value for value; only key order is
		// Go's.
		info, _ := set.Executor().Tool(tool.Name())
		if diff := cmp.Diff(decode(t, info.InputSchema), decode(t, mustMarshal(t, d.InputSchema))); diff != "" {
			t.Errorf("%s: input schema (-core +genkit):\n%s", tool.Name(), diff)
		}
	}
	if len(req.Tools) != len(defs) {
		t.Errorf("the model was sent %d tools, the set has %d", len(req.Tools), len(defs))
	}
	return defs
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Unregistered tools (New), passed to Generate, give the model the same
// definitions and results as registered ones.
func TestAgentSessionUnregistered(t *testing.T) {
	defined := newScriptedModel(agentcase.Calls)
	_, definedSet := runSession(t, defined, true)
	passed := newScriptedModel(agentcase.Calls)
	answer, passedSet := runSession(t, passed, false)
	if answer != agentcase.Answer {
		t.Errorf("answer %q", answer)
	}
	if diff := cmp.Diff(definitions(t, defined.sent[0], definedSet), definitions(t, passed.sent[0], passedSet)); diff != "" {
		t.Errorf("definitions (-Define +New):\n%s", diff)
	}
	for _, c := range agentcase.Calls {
		if got, want := resultText(t, passed.results[c.ID]), resultText(t, defined.results[c.ID]); got != want {
			t.Errorf("%s %s: New %q, Define %q", c.Tool, c.Args, got, want)
		}
	}
}

// A json output reaches the model as core's exact text, and the tool
// response is the same whichever way the tool is run.
func TestResponse(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	set, err := agentgenkit.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	ls, _ := set.Ls()
	resp, err := ls.RunRawMultipart(t.Context(), map[string]any{"path": "/workspace/cmd"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := set.Executor().Call(t.Context(), toolspec.ToolLs, []byte(`{"path":"/workspace/cmd"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Output, string(out.JSON); got != want || len(resp.Content) != 0 {
		t.Errorf("ls: output %#v content %v, want %q", got, resp.Content, want)
	}
}

// outcome is what a Generate run left.
type outcome struct {
	resp  *ai.ModelResponse
	err   error
	model *scriptedModel
	ws    *vfs.Workspace
	set   *agentgenkit.Tools
}

// generate runs Genkit's own agent loop, Generate with the tools and a
// turn limit, over the session's workspace, the tools registered on the
// Genkit (Define) or not (New).
func generate(t *testing.T, model *scriptedModel, registered bool) outcome {
	t.Helper()
	g := initGenkit(t)
	ws, opts := agentcase.Workspace(t)
	set := newSet(t, g, ws, opts, registered)
	resp, err := genkit.Generate(t.Context(), g,
		ai.WithModel(model.define(g)),
		ai.WithPrompt(agentcase.Prompt),
		ai.WithTools(set.Refs()...),
		ai.WithMaxTurns(len(model.calls)+1))
	return outcome{resp, err, model, ws, set}
}

// newSet is the tool set over ws, registered on g (Define) or not (New).
func newSet(t *testing.T, g *genkit.Genkit, ws *vfs.Workspace, opts agenttools.Options, registered bool) *agentgenkit.Tools {
	t.Helper()
	var set *agentgenkit.Tools
	var err error
	if registered {
		set, err = agentgenkit.Define(g, ws, opts)
	} else {
		set, err = agentgenkit.New(ws, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// generateOne is generate with a model that makes one call, then
// answers.
func generateOne(t *testing.T, registered bool, tool, args string) outcome {
	t.Helper()
	return generate(t, newScriptedModel([]agentcase.Call{{ID: "call_1", Tool: tool, Args: args}}), registered)
}

// Arguments the tool's schema refuses, or that break a rule it cannot
// express, reach core as the model sent them, through Generate: the
// model's next request holds core's own answer for them (what the raw
// adapter answers: the invalid-arguments text, byte for byte), and the
// run goes on to the model's answer. Genkit checks nothing (it would
// refuse the call and fail Generate) and keeps null arguments (it would
// drop them), while each request still sends the model the tool's exact
// schema.
func TestInvalidArgumentsThroughGenerate(t *testing.T) {
	cases := []struct{ name, tool, args string }{
		{"wrong-type", "read", `{"path":"/workspace/notes.txt","limit":"x"}`},
		{"wrong-type-path", "read", `{"path":42}`},
		{"missing", "read", `{}`},
		{"not-integer", "read", `{"path":"/workspace/notes.txt","limit":2.5}`},
		{"too-small", "ls", `{"path":"/workspace","limit":0}`},
		{"unknown", "write", `{"path":"/workspace/new.txt","content":"b","append":true}`},
		{"not-object", "read", `["/workspace/notes.txt"]`},
		{"null", "read", `{"path":"/workspace/notes.txt","offset":null}`},
		{"null-object", "read", `null`},
		{"rule", "read", `{"path":"/workspace/notes.txt","byteOffset":2}`},
	}
	for _, c := range cases {
		for _, registered := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/registered=%t", c.name, registered), func(t *testing.T) {
				run := generateOne(t, registered, c.tool, c.args)
				if run.err != nil {
					t.Fatalf("Generate: %v", run.err)
				}
				if got := run.resp.Text(); got != agentcase.Answer {
					t.Errorf("answer %q", got)
				}
				if len(run.model.sent) != 2 {
					t.Fatalf("the model was called %d times, want 2", len(run.model.sent))
				}
				want, err := raw(t, run.ws).Execute(t.Context(), c.tool, []byte(c.args))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(want.Text, toolspec.MsgArgumentsInvalid(c.tool, "")) {
					t.Fatalf("core accepts %s: %q", c.args, want.Text)
				}
				r, ok := run.model.results["call_1"]
				if !ok {
					t.Fatal("the model's second request holds no tool response")
				}
				if got := resultText(t, r); got != want.Text {
					t.Errorf("the model received %q, want core's %q", got, want.Text)
				}
				if r.Name != c.tool {
					t.Errorf("the response names tool %q", r.Name)
				}
				for _, req := range run.model.sent {
					sentSchema(t, req, run.set, c.tool)
				}
				if _, err := run.ws.Stat(t.Context(), "/workspace/new.txt"); err == nil {
					t.Error("a refused write wrote the file")
				}
			})
		}
	}
}

// raw is the raw adapter over ws, whose answers the model must receive.
func raw(t *testing.T, ws *vfs.Workspace) *rawadapter.Tools {
	t.Helper()
	set, err := rawadapter.New(ws, agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// sentSchema checks that req sent the model the tool name with core's
// input schema, value for value.
func sentSchema(t *testing.T, req *ai.ModelRequest, set *agentgenkit.Tools, name string) {
	t.Helper()
	info, _ := set.Executor().Tool(name)
	for _, d := range req.Tools {
		if d.Name == name {
			if diff := cmp.Diff(decode(t, info.InputSchema), decode(t, mustMarshal(t, d.InputSchema))); diff != "" {
				t.Errorf("%s: the input schema sent (-core +sent):\n%s", name, diff)
			}
			return
		}
	}
	t.Errorf("the request holds no definition of %s", name)
}

// A cancelled context is a Go error: from the tool run directly, and
// from Generate, which stops and reports the tool as failed.
func TestCallCancelled(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	set, err := agentgenkit.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, name := range []string{toolspec.ToolRead, toolspec.ToolLs} {
		tool, _ := set.Executor().Tool(name)
		for _, gt := range set.All() {
			if gt.Name() != tool.Name {
				continue
			}
			if _, err := gt.RunRaw(ctx, map[string]any{"path": "/workspace/notes.txt"}); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: cancelled call: %v", name, err)
			}
		}
	}

	// The model cancels the context while it asks for a call.
	g := initGenkit(t)
	ws, opts = agentcase.Workspace(t)
	set, err = agentgenkit.Define(g, ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	model := newScriptedModel([]agentcase.Call{{ID: "call_1", Tool: "write", Args: `{"path":"/workspace/new.txt","content":"b"}`}})
	model.onTurn = func(int) { cancel() }
	_, err = genkit.Generate(ctx, g,
		ai.WithModel(model.define(g)),
		ai.WithPrompt(agentcase.Prompt),
		ai.WithTools(set.Refs()...))
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("Generate with a cancelled context: %v", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("Generate now wraps the tool's error (%v); revisit the package documentation", err)
	}
	if len(model.results) != 0 {
		t.Errorf("the model received %d results", len(model.results))
	}
	if _, err := ws.Stat(t.Context(), "/workspace/new.txt"); err == nil {
		t.Error("a cancelled write wrote the file")
	}
}

func TestDefine(t *testing.T) {
	g := initGenkit(t)
	ws, opts := agentcase.Workspace(t)
	set, err := agentgenkit.Define(g, ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range set.All() {
		names = append(names, tool.Name())
		if genkit.LookupTool(g, tool.Name()) == nil {
			t.Errorf("%s is not registered on g", tool.Name())
		}
	}
	if !slices.Equal(names, toolspec.ToolNames) {
		t.Errorf("tools %v, want %v", names, toolspec.ToolNames)
	}
	if _, err := agentgenkit.Define(g, ws, opts); err == nil {
		t.Error("a second Define on the same Genkit succeeded")
	}
	if _, err := agentgenkit.Define(nil, ws, opts); err == nil {
		t.Error("Define without a Genkit succeeded")
	}
	if _, err := agentgenkit.New(nil, opts); err == nil {
		t.Error("New without a workspace succeeded")
	}
	read, _ := set.Read()
	if md := read.Definition().Metadata; md["multipart"] != true {
		t.Errorf("read is not a multipart tool: %v", md)
	}
}

// A tool looked up on the Genkit it was defined on (genkit.LookupTool,
// Genkit's tool over the registered action) and passed to Generate on
// another Genkit, which registers it there, keeps the tool's schema and
// leaves the arguments to core.
func TestLookedUpTool(t *testing.T) {
	g := initGenkit(t)
	ws, opts := agentcase.Workspace(t)
	set, err := agentgenkit.Define(g, ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	ls := genkit.LookupTool(g, toolspec.ToolLs)
	other := initGenkit(t)
	args := `{"path":"/workspace","limit":"x"}`
	model := newScriptedModel([]agentcase.Call{{ID: "call_1", Tool: toolspec.ToolLs, Args: args}})
	resp, err := genkit.Generate(t.Context(), other,
		ai.WithModel(model.define(other)),
		ai.WithPrompt(agentcase.Prompt),
		ai.WithTools(ls),
		ai.WithMaxTurns(2))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp.Text() != agentcase.Answer {
		t.Errorf("answer %q", resp.Text())
	}
	for _, req := range model.sent {
		sentSchema(t, req, set, toolspec.ToolLs)
	}
	want, err := raw(t, ws).Execute(t.Context(), toolspec.ToolLs, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := model.results["call_1"]; !ok || resultText(t, r) != want.Text {
		t.Errorf("the model received %v, want core's %q", r, want.Text)
	}
}
