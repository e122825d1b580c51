package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/adapters/mcp/mcptest"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// connect serves the tool set over in-memory transports and returns a
// client session on it.
var connect = mcptest.Connect

// wire is a client speaking JSON-RPC lines to Serve over OS pipes (as
// on stdio: a write returns before the other end reads it), one request
// at a time, for tests that pin the exact bytes on the wire.
type wire struct {
	t       testing.TB
	in      *os.File
	outFile *os.File // the read end of Serve's output
	out     *bufio.Reader
	next    int
	done    chan error
}

func serveWire(t testing.TB, ws *vfs.Workspace, opts agenttools.Options) *wire {
	t.Helper()
	return serveWireContext(t, context.WithoutCancel(t.Context()), ws, opts)
}

// serveWireContext is serveWire with Serve running on ctx.
func serveWireContext(t testing.TB, ctx context.Context, ws *vfs.Workspace, opts agenttools.Options) *wire {
	t.Helper()
	set, err := mcp.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	w := serveSet(t, ctx, set)
	w.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

// serveSet serves set on ctx over OS pipes, the session not initialized
// yet.
func serveSet(t testing.TB, ctx context.Context, set *mcp.Tools) *wire {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
	})
	w := &wire{t: t, in: inW, outFile: outR, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		err := set.Serve(ctx, inR, outW, "agenttools", "test")
		outW.Close()
		inR.Close()
		w.done <- err
	}()
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// request sends a request and returns the response's line.
func (w *wire) request(method, params string) string {
	w.t.Helper()
	w.next++
	w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(w.next) + `,"method":"` + method + `","params":` + params + `}`)
	line, err := w.out.ReadString('\n')
	if err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
	return strings.TrimSuffix(line, "\n")
}

// close ends the client's input and waits for Serve to return.
func (w *wire) close() error {
	w.in.Close()
	return <-w.done
}

// TestWire pins what a client receives, byte for byte: tools/list, one
// call of every tool (the scripted session's calls) and a read-only
// set's tools/list, in
// golden/testdata/adapters/mcp/session.txtar.
func TestWire(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	w := serveWire(t, ws, opts)
	path := filepath.Join(goldentest.ModuleRoot(t), "golden", "testdata", "adapters", "mcp", "session.txtar")
	if *goldentest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := goldentest.Load(t, path)
	a.Check(t, "tools/list", w.request("tools/list", `{}`))
	for _, c := range agentcase.Calls {
		a.Check(t, "call "+c.ID, c.Tool+" "+c.Args)
		a.Check(t, "result "+c.ID, w.request("tools/call", `{"name":"`+c.Tool+`","arguments":`+c.Args+`}`))
	}
	if err := w.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	// A read-only set lists the read-only tools, with their annotations.
	ro := serveWire(t, ws, agenttools.Options{Readonly: true, Backends: opts.Backends})
	a.Check(t, "tools/list readonly", ro.request("tools/list", `{}`))
	if err := ro.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	a.Save(t, nil)
}

// Through the SDK's client: every tool's result as the client decodes
// it, the image read's bytes, a failing read marked as an error.
func TestSession(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	cs := connect(t, ws, opts, nil)
	for _, c := range agentcase.Calls {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(c.Args)})
		if err != nil {
			t.Fatalf("%s %s: %v", c.Tool, c.Args, err)
		}
		if c.Tool == "read" && strings.HasSuffix(c.Args, `pixel.png"}`) {
			img, ok := res.Content[len(res.Content)-1].(*sdk.ImageContent)
			if !ok || !bytes.Equal(img.Data, agentcase.Pixel) || img.MIMEType != "image/png" {
				t.Errorf("the image read is not the PNG's bytes: %+v", res.Content)
			}
		}
		if failing := c.Args == `{"path":"/workspace/missing.txt"}`; res.IsError != failing {
			t.Errorf("%s %s: IsError %v", c.Tool, c.Args, res.IsError)
		}
	}
}

// The tools the SDK's client lists are core's, schema and all (the exact
// bytes are pinned by TestWire).
func TestSchemasAreExact(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	cs := connect(t, ws, opts, nil)
	set, err := mcp.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK lists tools in name order.
	byName := map[string]*sdk.Tool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	if len(list.Tools) != len(set.Executor().Tools()) {
		t.Errorf("listed %d tools", len(list.Tools))
	}
	for _, tool := range set.Executor().Tools() {
		got, ok := byName[tool.Name]
		if !ok {
			t.Errorf("%s is not listed", tool.Name)
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(tool.InputSchema), &want); err != nil {
			t.Fatal(err)
		}
		if got.Name != tool.Name || got.Description != tool.Description || !reflect.DeepEqual(got.InputSchema, want) {
			t.Errorf("%s: listed %s %q %v", tool.Name, got.Name, got.Description, got.InputSchema)
		}
	}
}

// A call to a tool the server does not offer, and arguments that are not
// an object, are answered as the SDK and the tool answer them.
func TestProtocolErrors(t *testing.T) {
	ws, opts := agentcase.Workspace(t)
	cs := connect(t, ws, agenttools.Options{Readonly: true, Backends: opts.Backends}, nil)
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "write", Arguments: map[string]any{"path": "/workspace/x", "content": ""}}); err == nil || !strings.Contains(err.Error(), "write") {
		t.Errorf("a call to a tool the read-only set leaves out: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "read", Arguments: json.RawMessage(`["not","an","object"]`)})
	if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != toolspec.MsgArgumentsInvalid("read", toolspec.MsgArgumentsNotObject("an array")) {
		t.Errorf("arguments that are an array: %+v %v %q", res, err, res.Content[0].(*sdk.TextContent).Text)
	}
	// The session goes on.
	res, err = cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/workspace/notes.txt"}})
	if err != nil || res.IsError {
		t.Errorf("a call after the errors: %+v %v", res, err)
	}
}

// exec's running snapshots reach a client that asks for progress as
// progress notifications; the result is the final output.
func TestExecProgress(t *testing.T) {
	scripts := execbackend.NewScripts(nil)
	var events []execbackend.ScriptEvent
	for i := range 5 {
		events = append(events, execbackend.ScriptEvent{Data: []byte("step " + strconv.Itoa(i) + "\n")})
	}
	scripts.Queue(execbackend.Script{Events: events})
	ws := vfs.New(memfs.New())
	now := time.UnixMilli(0)
	var clockMu sync.Mutex
	opts := agenttools.Options{
		Backends: []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell"}, scripts)},
		// Each reading is 100 ms later: a snapshot per chunk.
		Clock: func() time.Time {
			clockMu.Lock()
			defer clockMu.Unlock()
			now = now.Add(100 * time.Millisecond)
			return now
		},
	}
	// The client may handle notifications after it has the result, so
	// the test collects them from a channel, with a generous deadline.
	arrived := make(chan *sdk.ProgressNotificationParams, 16)
	cs := connect(t, ws, opts, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		arrived <- req.Params
	}})
	params := &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "steps"}}
	params.SetProgressToken("exec-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	final := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(final, `"exitCode":0,"stdout":"step 0\nstep 1\nstep 2\nstep 3\nstep 4\n"`) {
		t.Errorf("final result %s", final)
	}
	var notes []*sdk.ProgressNotificationParams
	deadline := time.After(10 * time.Second)
	for len(notes) < 5 {
		select {
		case n := <-arrived:
			notes = append(notes, n)
		case <-deadline:
			t.Fatalf("%d progress notifications, want one per chunk (5)", len(notes))
		}
	}
	for i, n := range notes {
		if n.ProgressToken != "exec-1" || n.Progress != float64(i+1) || !strings.Contains(n.Message, `"exitCode":null`) || !strings.Contains(n.Message, "step "+strconv.Itoa(i)+"\\n") {
			t.Errorf("notification %d: %+v", i, n)
		}
	}
	// Without a token, no notification.
	scripts.Queue(execbackend.Script{Events: events})
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "steps"}}); err != nil {
		t.Fatal(err)
	}
	// A third call with a token: its first notification is the next to
	// arrive, so none came from the call without one.
	scripts.Queue(execbackend.Script{Events: events[:1]})
	params.SetProgressToken("exec-3")
	if _, err := cs.CallTool(t.Context(), params); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-arrived:
		if n.ProgressToken != "exec-3" {
			t.Errorf("a call without a progress token made a notification: %+v", n)
		}
	case <-deadline:
		t.Errorf("no notification for the third call")
	}
}
