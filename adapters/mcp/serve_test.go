package mcp_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// ping sends a ping with id and requires its answer, proving the
// session goes on.
func (w *wire) ping(id int) {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"}`)
	if got, want := w.line(), `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"result":{}}`; got != want {
		w.t.Errorf("ping: got %.300s, want %s", got, want)
	}
}

// line reads the next line the server writes, failing the test when
// none comes within a generous minute.
func (w *wire) line() string {
	w.t.Helper()
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := w.out.ReadString('\n')
		got <- read{line, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			w.t.Fatalf("reading an answer: %v", r.err)
		}
		return strings.TrimSuffix(r.line, "\n")
	case <-time.After(time.Minute):
		w.t.Fatal("no answer within a minute")
		return ""
	}
}

// A line holding more than one JSON value, or a value and then other
// text, would end the SDK's connection: each is a parse error, trailing
// spaces are dropped, and the session goes on.
func TestServeTrailingData(t *testing.T) {
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	w.send(`{"jsonrpc":"2.0","id":10,"method":"ping"}  ` + "\t\r")
	if got := w.line(); got != `{"jsonrpc":"2.0","id":10,"result":{}}` {
		t.Errorf("trailing spaces: %s", got)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":11,"method":"ping"}{"jsonrpc":"2.0","id":12,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":13,"method":"ping"} x`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
	} {
		w.send(line)
		if got := w.line(); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not one JSON value"}}` {
			t.Errorf("%s: %s", line, got)
		}
	}
	w.ping(14)
	if err := w.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// Batches, messages that are no objects and messages of another
// version are invalid requests; the session goes on.
func TestServeNotRequests(t *testing.T) {
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	for line, want := range map[string]string{
		`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`,
		`[]`:  `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`,
		`"x"`: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message must be a JSON object"}}`,
		`{"jsonrpc":"1.0","id":"a","method":"ping"}`: `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"invalid message version tag \"1.0\"; expected \"2.0\""}}`,
	} {
		w.send(line)
		if got := w.line(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", line, got, want)
		}
	}
	// Deeper than the SDK decodes, or than Go's decoder follows.
	for depth, code := range map[int]string{2000: "-32600", 20000: "-32700"} {
		w.send(`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"read","arguments":{"path":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}`)
		if got := w.line(); !strings.Contains(got, `"error":{"code":`+code+`,`) {
			t.Errorf("nested %d deep: %.300s", depth, got)
		}
	}
	w.ping(21)
	w.close()
}

// Ids the SDK would not echo exactly are refused with the id as sent;
// an id's key is matched exactly ("ID" is another member); a request
// whose id is in flight is refused. Every request is answered once, so
// the end of the input still ends Serve.
func TestServeIDs(t *testing.T) {
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	for _, id := range []string{"1.5", "1e300", "99999999999999999999", "9007199254740992", "-9007199254740992", "-0", "1e2", "7.0"} {
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		want := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"id must be a string or an integer from -9007199254740991 to 9007199254740991, written without a fraction or an exponent"}}`
		if got := w.line(); got != want {
			t.Errorf("id %s:\n got %s\nwant %s", id, got, want)
		}
	}
	// An id of null is no notification: it is refused, and the tool is
	// not run.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id" : null ,"method":"tools/call","params":{"name":"write","arguments":{"path":"/workspace/null.txt","content":"x"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","id":null,"params":{"requestId":1}}`,
	} {
		// A ping after it: its answer comes next when the line got none.
		w.send(line + "\n" + `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		got, want := w.line(), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must be a string or an integer, not null"}}`
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", line, got, want)
		}
		if !strings.Contains(got, `"id":7,`) {
			w.line()
		}
	}
	w.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read","arguments":{"path":"/workspace/null.txt"}}}`)
	if got := w.line(); !strings.Contains(got, `"isError":true`) {
		t.Errorf("the tools/call with id null ran: %.300s", got)
	}
	w.send(`{"jsonrpc":"2.0","id":6,"ID":5,"method":"ping"}`)
	if got := w.line(); got != `{"jsonrpc":"2.0","id":6,"result":{}}` {
		t.Errorf("id and ID: %s", got)
	}
	for _, id := range []string{"-9007199254740991", "9007199254740991", `"1"`, "1", "0"} {
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if got, want := w.line(), `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`; got != want {
			t.Errorf("id %s: %s", id, got)
		}
	}
	done := make(chan error, 1)
	go func() { done <- w.close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the input ended")
	}
}

// A message up to MaxMessageBytes is read; a longer one is refused
// whether its end comes in the same read as the rest or not, and the
// session goes on.
func TestServeLongMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("sends messages of 16 MiB")
	}
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	// A tools/call whose path fills the message to n bytes.
	message := func(id, n int) string {
		head := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"read","arguments":{"path":"/`
		tail := `"}}}`
		return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
	}
	w.send(message(30, mcp.MaxMessageBytes))
	var res struct {
		ID     int
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if err := json.Unmarshal([]byte(w.line()), &res); err != nil || res.ID != 30 || !res.Result.IsError || !strings.HasPrefix(res.Result.Content[0].Text, "Invalid path (longer than 4096 bytes)") {
		t.Errorf("a message of MaxMessageBytes: %+v %v", res, err)
	}
	for i, over := range []int{1, 1000, 65000, 70000, 1 << 20} {
		// The refusal may come before the whole line is written: the
		// line is written while the answer is read.
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			w.send(message(31+i, mcp.MaxMessageBytes+over))
		}()
		got := w.line()
		<-sent
		if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message longer than ` + strconv.Itoa(mcp.MaxMessageBytes) + ` bytes"}}`; got != want {
			t.Errorf("%d bytes over: %.300s", over, got)
		}
		w.ping(40 + i)
	}
	w.close()
}

// A client may reuse an id as soon as it has read the answer.
func TestServeIDReuse(t *testing.T) {
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	for range 2000 {
		w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if got := w.line(); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("ping: %s", got)
		}
	}
	w.close()
}

// A string id the SDK would not echo exactly (a lone surrogate, a byte
// that is not UTF-8) is refused; a replacement character the client
// wrote itself is echoed.
func TestServeStringIDs(t *testing.T) {
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	for _, id := range []string{`"\ud800"`, `"a\udc00"`, "\"\xff\""} {
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if got := w.line(); !strings.Contains(got, `"error":{"code":-32600,"message":"id must be a string of Unicode text (no lone surrogate, no byte that is not UTF-8)"}`) {
			t.Errorf("id %q: %s", id, got)
		}
	}
	for id, echo := range map[string]string{`"\ufffd"`: `"` + "\uFFFD" + `"`, `"\uD83D\uDE00"`: `"😀"`, `"\u0031"`: `"1"`} {
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if got, want := w.line(), `{"jsonrpc":"2.0","id":`+echo+`,"result":{}}`; got != want {
			t.Errorf("id %s: got %s, want %s", id, got, want)
		}
	}
	w.close()
}

// A message with an id and neither a method, a result nor an error is
// an invalid request, answered with its id (the SDK would take it for
// an answer and drop it).
func TestServeNeitherRequestNorAnswer(t *testing.T) {
	w := serveWire(t, vfs.New(memfs.New()), agenttools.Options{})
	for line, want := range map[string]string{
		`{"jsonrpc":"2.0","id":5}`:                                  `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"a message with an id must have a method, a result or an error"}}`,
		`{"jsonrpc":"2.0","id":"x","params":{}}`:                    `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"a message with an id must have a method, a result or an error"}}`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`:                      "",
		`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}`: "",
	} {
		w.send(line)
		if want == "" {
			continue // an answer to no request of the server's: dropped
		}
		if got := w.line(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", line, got, want)
		}
	}
	w.ping(8)
	if err := w.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// Before initialize the SDK refuses every request but ping: the answer
// is an invalid request (-32600), not the SDK's code 0, and the session
// goes on to be initialized. A request sent right behind initialize,
// before its answer, is served.
func TestServeBeforeInitialize(t *testing.T) {
	set, err := mcp.New(vfs.New(memfs.New()), agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := serveSet(t, context.WithoutCancel(t.Context()), set)
	refused := func(id int, method string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"error":{"code":-32600,"message":"method \"` + method + `\" is invalid during session initialization"}}`
	}
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got, want := w.line(), refused(1, "tools/list"); got != want {
		t.Errorf("tools/list before initialize:\n got %s\nwant %s", got, want)
	}
	w.ping(2)
	// An initialize that fails leaves the session as it was.
	w.send(`{"jsonrpc":"2.0","id":3,"method":"initialize"}`)
	if got := w.line(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,`) {
		t.Errorf("initialize without params: %s", got)
	}
	w.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ls","arguments":{}}}`)
	if got, want := w.line(), refused(4, "tools/call"); got != want {
		t.Errorf("tools/call after a failed initialize:\n got %s\nwant %s", got, want)
	}
	w.send(`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ls","arguments":{"path":"/"}}}`)
	if got := w.line(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":5,"result":{`) {
		t.Errorf("initialize: %s", got)
	}
	if got := w.line(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"{\"path\":\"/\"`) {
		t.Errorf("a call right behind initialize: %s", got)
	}
	if err := w.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}
