package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// guard bounds each wait of the SDK tests, against a hang: a test that
// passes takes a fraction of it. A wait that runs out is also how a test
// fails when the SDK stopped doing something (answering a cancelled
// request, cancelling calls at the end of its input).
const guard = time.Minute

// changed fails t, naming the assumption of sdkWire the SDK broke.
func changed(t testing.TB, which, format string, args ...any) {
	t.Helper()
	t.Fatalf("the go-sdk changed an assumption adapters/mcp/serve.go relies on: %s; revisit sdkWire (adapters/mcp/sdkwire.go): %s", which, fmt.Sprintf(format, args...))
}

// feed is the SDK's input: the lines the test sends, at most one per
// Read (as the flightReader gives them). Each time the SDK asks for more
// it posts the count of lines the SDK took whole (the latest only).
type feed struct {
	lines chan []byte
	asked chan int // capacity 1
	cur   []byte
	taken int
	once  sync.Once
	done  chan struct{} // closed by Close
}

func newFeed() *feed {
	return &feed{lines: make(chan []byte), asked: make(chan int, 1), done: make(chan struct{})}
}

func (f *feed) Read(p []byte) (int, error) {
	if len(f.cur) == 0 {
		select { // Read is the only sender: the send below never blocks
		case <-f.asked:
		default:
		}
		f.asked <- f.taken
		select {
		case line, ok := <-f.lines:
			if !ok {
				return 0, io.EOF
			}
			f.cur = line
		case <-f.done:
			return 0, io.ErrClosedPipe
		}
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	if len(f.cur) == 0 {
		f.taken++
	}
	return n, nil
}

func (f *feed) Close() error {
	f.once.Do(func() { close(f.done) })
	return nil
}

// wrote is the SDK's output: each Write, in order. A Write that hold
// reports is held until release is closed.
type wrote struct {
	writes  chan []byte
	hold    func([]byte) bool
	held    chan struct{}
	release chan struct{}
}

func (w *wrote) Write(p []byte) (int, error) {
	data := bytes.Clone(p)
	if w.hold != nil && w.hold(data) {
		close(w.held)
		<-w.release
	}
	w.writes <- data
	return len(p), nil
}

func (*wrote) Close() error { return nil }

// bareSDK is the SDK's own server on an IOTransport, as Serve builds it
// but without Serve's wrapper, reading a feed and writing to a wrote.
// Its tools: "hold" runs until its context ends (reporting it) or the
// test releases it; "fail" fails with a Go error; "ok" succeeds.
type bareSDK struct {
	t       *testing.T
	which   string // the assumption checked, named when the SDK fails it
	in      *feed
	out     *wrote
	answers chan *jsonrpc.Response // what the SDK passes to Connection.Write, when spied on
	sent    int                    // lines sent
	ended   chan struct{}          // closed when Run returned
	runErr  error
	closeIn sync.Once
	started chan struct{} // a hold call started
	stopped chan struct{} // a hold call's context ended
	free    chan struct{} // closed: hold calls return
	freed   sync.Once
	noted   chan struct{} // a progress notification was handled
}

// bareOptions are the options of a bareSDK: spy passes the SDK's
// connection through a wrapper that keeps the answers written (hiding
// the connection's session hook, as Serve's does), hold holds a Write.
type bareOptions struct {
	spy  bool
	hold func([]byte) bool
}

// spyTransport keeps the answers the SDK passes to its connection.
type spyTransport struct {
	sdk.Transport
	answers chan *jsonrpc.Response
}

func (s *spyTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &spyConn{Connection: c, answers: s.answers}, nil
}

type spyConn struct {
	sdk.Connection
	answers chan *jsonrpc.Response
}

func (c *spyConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answers <- resp
	}
	return c.Connection.Write(ctx, msg)
}

func startBare(t *testing.T, which string, opts bareOptions) *bareSDK {
	t.Helper()
	b := &bareSDK{
		t:       t,
		which:   which,
		in:      newFeed(),
		out:     &wrote{writes: make(chan []byte, 1<<10), hold: opts.hold, held: make(chan struct{}), release: make(chan struct{})},
		answers: make(chan *jsonrpc.Response, 1<<10),
		ended:   make(chan struct{}),
		started: make(chan struct{}, 1<<10),
		stopped: make(chan struct{}, 1<<10),
		free:    make(chan struct{}),
		noted:   make(chan struct{}, 1<<10),
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, &sdk.ServerOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationServerRequest) { b.noted <- struct{}{} },
	})
	object := map[string]any{"type": "object"}
	server.AddTool(&sdk.Tool{Name: "hold", InputSchema: object}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		b.started <- struct{}{}
		select {
		case <-ctx.Done():
			b.stopped <- struct{}{}
			return nil, ctx.Err()
		case <-b.free:
			return &sdk.CallToolResult{}, nil
		}
	})
	server.AddTool(&sdk.Tool{Name: "fail", InputSchema: object}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return nil, errors.New("no code")
	})
	server.AddTool(&sdk.Tool{Name: "ok", InputSchema: object}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	})
	var transport sdk.Transport = &sdk.IOTransport{Reader: b.in, Writer: b.out}
	if opts.spy {
		transport = &spyTransport{Transport: transport, answers: b.answers}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	go func() {
		b.runErr = server.Run(ctx, transport)
		close(b.ended)
	}()
	t.Cleanup(func() {
		select {
		case <-b.out.release:
		default:
			close(b.out.release)
		}
		b.releaseHolds()
		cancel()
		b.endInput()
		select {
		case <-b.ended:
		case <-time.After(guard):
			t.Errorf("the SDK's Run did not return within %v", guard)
		}
	})
	return b
}

// send gives the SDK each line, with its line end, unless its
// connection has ended.
func (b *bareSDK) send(lines ...string) {
	b.t.Helper()
	for _, line := range lines {
		select {
		case b.in.lines <- []byte(line + "\n"):
			b.sent++
		case <-b.in.done:
			return
		case <-b.ended:
			return
		case <-time.After(guard):
			changed(b.t, b.which, "the SDK did not read a line within %v", guard)
		}
	}
}

// releaseHolds lets the hold calls return.
func (b *bareSDK) releaseHolds() {
	b.freed.Do(func() { close(b.free) })
}

// endInput ends the SDK's input.
func (b *bareSDK) endInput() {
	b.closeIn.Do(func() { close(b.in.lines) })
}

// read waits until the SDK asked for more input than the lines sent so
// far: it has taken the last one from its reader and passed the one
// before it to the server.
func (b *bareSDK) read() {
	b.t.Helper()
	for {
		select {
		case n := <-b.in.asked:
			if n >= b.sent {
				return
			}
		case <-time.After(guard):
			changed(b.t, b.which, "the SDK did not ask for more input within %v", guard)
		}
	}
}

// oneWrite is the assumption that the SDK writes each message with one
// Write.
const oneWrite = `the transport writes each message with one Write, its JSON and its "\n" together (sdkWire, 1)`

// next is the SDK's next message, without its line end, each Write
// holding exactly one.
func (b *bareSDK) next() string {
	b.t.Helper()
	select {
	case data := <-b.out.writes:
		if bytes.Count(data, []byte("\n")) != 1 || !bytes.HasSuffix(data, []byte("\n")) || !json.Valid(data[:len(data)-1]) {
			changed(b.t, oneWrite, "a Write of %.300q", data)
		}
		return string(data[:len(data)-1])
	case <-b.ended:
		changed(b.t, b.which, "the SDK's Run returned (%v) while a message was awaited", b.runErr)
	case <-time.After(guard):
		changed(b.t, b.which, "no message from the SDK within %v", guard)
	}
	return ""
}

// unread is the messages written that the test has not read, without
// waiting.
func (b *bareSDK) unread() []string {
	var rest []string
	for {
		select {
		case data := <-b.out.writes:
			rest = append(rest, string(data))
		default:
			return rest
		}
	}
}

// handled sends a notification, which the SDK handles in order with the
// requests before it and each alone but for calls other than initialize,
// and waits until it is handled: initialize, sent before, has been
// answered.
func (b *bareSDK) handled() {
	b.t.Helper()
	b.send(progress)
	select {
	case <-b.noted:
	case <-time.After(guard):
		changed(b.t, b.which, "a notification was not handled within %v", guard)
	}
}

// initialize initializes the session on protocol 2025-06-18.
func (b *bareSDK) initialize() {
	b.t.Helper()
	b.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bare","version":"1"}}}`)
	if got := b.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"init","result":{`) {
		changed(b.t, b.which, "initialize: %.300s", got)
	}
	b.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// endsConnection sends line and a ping, and requires that the SDK end
// its connection with an error, answering neither.
func (b *bareSDK) endsConnection(line string) {
	b.t.Helper()
	which := b.which // the assumption checked
	b.send(line, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	select {
	case <-b.ended:
		if b.runErr == nil {
			changed(b.t, which, "%.200q ended the connection without an error", line)
		}
		if rest := b.unread(); len(rest) > 0 {
			changed(b.t, which, "%.200q was answered: %.300q", line, rest)
		}
	case data := <-b.out.writes:
		changed(b.t, which, "the connection went on after %.200q: %.300q", line, data)
	case <-time.After(guard):
		changed(b.t, which, "%.200q: the SDK neither ended its connection nor wrote within %v", line, guard)
	}
}

// progress is a notification the SDK hands to the server's handler.
const progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`

// ping is a ping line with id as spelled.
func ping(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
}

// pong is the SDK's answer to a ping with id as it echoes it.
func pong(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`
}

// message is a ping of exactly n bytes, padded with spaces.
func message(n int) string {
	head, tail := `{"jsonrpc":"2.0","id":1,"method":"ping"`, `}`
	return head + strings.Repeat(" ", n-len(head)-len(tail)) + tail
}

// nested is a ping whose params nest depth deep, the message included.
func nested(depth int) string {
	arrays := depth - 3 // the message, params and _meta are objects
	return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":` + strings.Repeat("[", arrays) + strings.Repeat("]", arrays) + `}}}`
}

// TestSDKWire checks each assumption sdkWire lists against the SDK's own
// server over its IOTransport, without Serve: it fails, naming the
// assumption, when an SDK update changes one.
func TestSDKWire(t *testing.T) {
	t.Run("one Write per message", func(t *testing.T) {
		b := startBare(t, oneWrite, bareOptions{})
		b.initialize()
		const n = 50
		for i := range n {
			b.send(ping(strconv.Itoa(i)))
		}
		b.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
		for range n + 1 {
			b.next() // checks each Write
		}
	})

	t.Run("answer shape", func(t *testing.T) {
		const which = `the SDK writes an answer as {"jsonrpc":"2.0","id":…,"result"|"error":…}, members in that order (sdkWire, 2)`
		b := startBare(t, which, bareOptions{})
		b.send(ping("1"))
		if got, want := b.next(), pong("1"); got != want {
			changed(t, which, "got %s, want %s", got, want)
		}
		// Serve's refusal is spelled as the SDK spells an error.
		b.send(`{"jsonrpc":"2.0","id":2,"method":"nosuch"}`)
		got := b.next()
		var answer struct{ Error jsonrpc.Error }
		if err := json.Unmarshal([]byte(got), &answer); err != nil {
			changed(t, which, "%s: %v", got, err)
		}
		if want := strings.TrimSuffix(string(sdkWire{}.refusal([]byte("2"), int(answer.Error.Code), answer.Error.Message)), "\n"); got != want {
			changed(t, which, "got %s, refusal spells it %s", got, want)
		}
	})

	t.Run("line limit", func(t *testing.T) {
		const which = "the transport reads a message of up to sdk.DefaultMaxLineLength (16 MiB) bytes with its line end, one of more ends the connection (sdkWire, 3)"
		if sdk.DefaultMaxLineLength != 16<<20 {
			changed(t, which, "sdk.DefaultMaxLineLength is %d, the README says 16 MiB", sdk.DefaultMaxLineLength)
		}
		b := startBare(t, which, bareOptions{})
		b.send(message(MaxMessageBytes))
		if got, want := b.next(), pong("1"); got != want {
			changed(t, which, "a message of MaxMessageBytes: got %.300s, want %s", got, want)
		}
		b = startBare(t, which, bareOptions{})
		b.endsConnection(message(sdkMaxLine + 1))
	})

	t.Run("undecodable lines", func(t *testing.T) {
		const which = "a line that is not one JSON value, or that jsonrpc.DecodeMessage refuses, ends the connection (sdkWire, 4)"
		for _, line := range []string{
			`{bad`,
			`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
			`{"jsonrpc":"2.0","id":1,"method":"ping"}  `,
			`"x"`,
			`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
			`{"jsonrpc":"2.0"}`,
			nested(1001),
		} {
			startBare(t, which, bareOptions{}).endsConnection(line)
		}
		// The README's "nested over 1,000 deep (the SDK's limit)".
		b := startBare(t, which, bareOptions{})
		b.send(nested(1000))
		if got, want := b.next(), pong("1"); got != want {
			changed(t, which, "a message nested 1,000 deep: got %.300s, want %s", got, want)
		}
	})

	t.Run("batches", func(t *testing.T) {
		const which = "an empty batch, and any batch after protocol 2025-06-18 is negotiated, ends the connection (sdkWire, 5)"
		startBare(t, which, bareOptions{}).endsConnection(`[]`)
		b := startBare(t, which, bareOptions{})
		b.initialize()
		b.endsConnection(`[` + ping("1") + `]`)
	})

	t.Run("number ids", func(t *testing.T) {
		const which = "the SDK echoes a number id as the decimal of its float64's int64, exact only for integers within ±(2^53-1) (sdkWire, 6)"
		b := startBare(t, which, bareOptions{})
		for _, id := range []struct{ sent, echoed string }{
			{"7", "7"},
			{strconv.Itoa(maxID), strconv.Itoa(maxID)},
			{strconv.Itoa(-maxID), strconv.Itoa(-maxID)},
			{strconv.Itoa(maxID + 2), strconv.Itoa(maxID + 1)},
			{"1.5", "1"},
			{"1e2", "100"},
			{"-0", "0"},
		} {
			b.send(ping(id.sent))
			if got, want := b.next(), pong(id.echoed); got != want {
				changed(t, which, "id %s: got %s, want %s", id.sent, got, want)
			}
		}
	})

	t.Run("string ids", func(t *testing.T) {
		const which = "the SDK decodes a byte that is not UTF-8 and a lone surrogate in a string id to U+FFFD, and echoes the decoded string (sdkWire, 7)"
		b := startBare(t, which, bareOptions{})
		for _, id := range []struct{ sent, echoed string }{
			{`"\ud800"`, "\"\uFFFD\""},
			{"\"a\xff\"", "\"a\uFFFD\""},
			{`"\u0031"`, `"1"`},
			{`"\uD83D\uDE00"`, `"😀"`},
			{`"\ufffd"`, "\"\uFFFD\""},
		} {
			b.send(ping(id.sent))
			if got, want := b.next(), pong(id.echoed); got != want {
				changed(t, which, "id %s: got %q, want %q", id.sent, got, want)
			}
		}
	})

	t.Run("answer ids", func(t *testing.T) {
		const which = "the Response the SDK passes to Connection.Write holds the id DecodeMessage gave its request, an int64 or a string (sdkWire, 8)"
		b := startBare(t, which, bareOptions{spy: true})
		for _, line := range []string{ping("7"), ping(`"7"`), ping("-3")} {
			msg, err := jsonrpc.DecodeMessage([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			id := msg.(*jsonrpc.Request).ID
			b.send(line)
			b.next()
			var resp *jsonrpc.Response
			select {
			case resp = <-b.answers:
			default:
				changed(t, which, "%s: no Response passed to Connection.Write", line)
			}
			switch resp.ID.Raw().(type) {
			case int64, string:
			default:
				changed(t, which, "%s: the answer's id is a %T", line, resp.ID.Raw())
			}
			if resp.ID != id || (sdkWire{}).idKey(resp.ID) != (sdkWire{}).idKey(id) {
				changed(t, which, "%s: the answer's id is %#v, the request's %#v", line, resp.ID.Raw(), id.Raw())
			}
		}
	})

	t.Run("id null", func(t *testing.T) {
		const which = `a message with a method and "id":null is a notification to the SDK, never answered (sdkWire, 9)`
		b := startBare(t, which, bareOptions{})
		// initialize is handled alone: an answer to it would come before
		// the notification after it is handled.
		b.send(`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bare","version":"1"}}}`)
		b.handled()
		if rest := b.unread(); len(rest) > 0 {
			changed(t, which, "an initialize with id null was answered: %.300q", rest)
		}
		b.initialize()
		// A ping after each: its answer comes next when the line got none.
		for _, line := range []string{
			`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"ok","arguments":{}}}`,
		} {
			b.send(line, ping("2"))
			if got, want := b.next(), pong("2"); got != want {
				changed(t, which, "%s was answered: %s", line, got)
			}
		}
	})

	t.Run("neither method, result nor error", func(t *testing.T) {
		const which = "a message with an id and neither a method, a result nor an error is dropped unanswered (sdkWire, 10)"
		b := startBare(t, which, bareOptions{})
		for _, line := range []string{`{"jsonrpc":"2.0","id":5}`, `{"jsonrpc":"2.0","id":"x","params":{}}`} {
			b.send(line, ping("6"))
			if got, want := b.next(), pong("6"); got != want {
				changed(t, which, "%s was answered: %s", line, got)
			}
		}
	})

	t.Run("code 0", func(t *testing.T) {
		const which = "the SDK sends an error without a JSON-RPC code with code 0 (sdkWire, 11)"
		b := startBare(t, which, bareOptions{})
		b.initialize()
		b.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail","arguments":{}}}`)
		if got, want := b.next(), `{"jsonrpc":"2.0","id":3,"error":{"code":0,"message":"no code"}}`; got != want {
			changed(t, which, "got %s, want %s", got, want)
		}
	})

	t.Run("before initialize", func(t *testing.T) {
		const which = "before initialize the SDK refuses every request but initialize and ping with a Go error, and handles a request read before initialize's answer after it (sdkWire, 12)"
		b := startBare(t, which, bareOptions{hold: func(data []byte) bool { return bytes.Contains(data, []byte(`"id":"init"`)) }})
		b.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if got, want := b.next(), `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"method \"tools/list\" is invalid during session initialization"}}`; got != want {
			changed(t, which, "tools/list: got %s, want %s", got, want)
		}
		b.send(ping("2"))
		if got, want := b.next(), pong("2"); got != want {
			changed(t, which, "ping: got %s, want %s", got, want)
		}
		// initialize's answer is held until the call behind it is read.
		b.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bare","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok","arguments":{}}}`)
		<-b.out.held
		b.read()
		close(b.out.release)
		if got := b.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"init","result":{`) {
			changed(t, which, "initialize: %.300s", got)
		}
		if got, want := b.next(), `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`; got != want {
			changed(t, which, "a call read before initialize's answer: got %s, want %s", got, want)
		}
	})

	t.Run("id in flight", func(t *testing.T) {
		const which = "the SDK drops a request whose id is in flight without an answer (sdkWire, 13)"
		b := startBare(t, which, bareOptions{})
		b.initialize()
		b.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
		<-b.started
		b.send(ping("5"), ping("6"))
		if got, want := b.next(), pong("6"); got != want {
			changed(t, which, "a ping with id 5 in flight was answered: %s", got)
		}
		b.releaseHolds()
		if got, want := b.next(), `{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`; got != want {
			changed(t, which, "the call: got %s, want %s", got, want)
		}
	})

	t.Run("ids freed first", func(t *testing.T) {
		const which = "the SDK forgets a request's id before it writes the answer (sdkWire, 14)"
		var once sync.Once
		b := startBare(t, which, bareOptions{hold: func(data []byte) bool {
			hold := false
			once.Do(func() { hold = bytes.Contains(data, []byte(`"id":"r"`)) })
			return hold
		}})
		b.send(ping(`"r"`))
		<-b.out.held // the SDK is writing the answer to "r"
		// Another request with id "r", taken (or dropped) while that
		// answer is written. initialize is handled alone, and the
		// notification after it once initialize is answered.
		b.send(`{"jsonrpc":"2.0","id":"r","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bare","version":"1"}}}`,
			progress)
		b.read()
		close(b.out.release)
		select {
		case <-b.noted:
		case <-time.After(guard):
			changed(t, which, "the notification was not handled within %v", guard)
		}
		if got, want := b.next(), pong(`"r"`); got != want {
			changed(t, which, "the ping: got %s, want %s", got, want)
		}
		rest := b.unread()
		if len(rest) != 1 || !strings.HasPrefix(rest[0], `{"jsonrpc":"2.0","id":"r","result":{`) {
			changed(t, which, "a request with the id of an answer being written got %.300q", rest)
		}
	})

	t.Run("cancelled requests answered", func(t *testing.T) {
		const which = "the SDK cancels a request the client cancelled and still writes its answer (sdkWire, 15)"
		b := startBare(t, which, bareOptions{})
		b.initialize()
		b.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
		<-b.started
		b.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
		select {
		case <-b.stopped:
		case <-time.After(guard):
			changed(t, which, "the call's context did not end within %v", guard)
		}
		select {
		case data := <-b.out.writes:
			if !bytes.HasPrefix(data, []byte(`{"jsonrpc":"2.0","id":5,"error":`)) {
				changed(t, which, "after the cancellation: %.300s", data)
			}
		case <-time.After(guard):
			changed(t, which, "no answer to the cancelled request within %v", guard)
		}
	})

	t.Run("end of input", func(t *testing.T) {
		const which = "when its input ends the SDK cancels the requests in flight and writes no answer after (sdkWire, 16)"
		b := startBare(t, which, bareOptions{})
		b.initialize()
		b.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
		<-b.started
		b.endInput()
		select {
		case <-b.stopped:
		case <-time.After(guard):
			changed(t, which, "the call's context did not end within %v", guard)
		}
		select {
		case <-b.ended:
		case <-time.After(guard):
			changed(t, which, "the SDK's Run did not return within %v", guard)
		}
		if rest := b.unread(); len(rest) > 0 {
			changed(t, which, "written after the end of the input: %.300q", rest)
		}
	})
}
