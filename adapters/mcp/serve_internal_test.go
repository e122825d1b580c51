package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// call is a ping request with id.
func call(t *testing.T, id any) *jsonrpc.Request {
	t.Helper()
	v, err := jsonrpc.MakeID(id)
	if err != nil {
		t.Fatal(err)
	}
	return &jsonrpc.Request{ID: v, Method: "ping"}
}

// answer is the answer to req.
func answer(req *jsonrpc.Request) *jsonrpc.Response {
	return &jsonrpc.Response{ID: req.ID, Result: []byte("{}")}
}

// At most MaxInFlight requests wait for answers; the next is refused as
// busy until one is answered. An id in flight is refused; once its
// answer is being written it can be used again.
func TestFlightAdmits(t *testing.T) {
	f := newFlight(t.Context(), GracePeriod)
	for n := range MaxInFlight {
		if code, reason := f.admit(call(t, float64(n)), 100); code != 0 {
			t.Fatalf("request %d: %d %s", n, code, reason)
		}
	}
	if code, reason := f.admit(call(t, float64(MaxInFlight)), 100); code != CodeBusy || reason != "server busy: "+strconv.Itoa(MaxInFlight)+" requests are waiting for their answers" {
		t.Errorf("one more: %d %s", code, reason)
	}
	if send, _ := f.answering(answer(call(t, float64(5)))); !send {
		t.Errorf("the answer to 5 is not sent")
	}
	if code, reason := f.admit(call(t, float64(3)), 100); code != jsonrpc.CodeInvalidRequest || reason != "a request with id 3 is still in flight" {
		t.Errorf("an id in flight: %d %s", code, reason)
	}
	// The answer to 5 is not written yet, and 5 is free already.
	if code, _ := f.admit(call(t, float64(5)), 100); code != 0 {
		t.Errorf("an answered id again: %d", code)
	}
	f.written()
	// A string id is another id than the number with its digits.
	f.answering(&jsonrpc.Response{ID: call(t, float64(6)).ID, Error: &jsonrpc.Error{Code: 1, Message: "x"}})
	f.written()
	if code, _ := f.admit(call(t, "7"), 100); code != 0 {
		t.Errorf(`id "7" while 7 is in flight: %d`, code)
	}
}

// The lines waiting for answers hold at most MaxInFlightBytes, except
// that one request is always let in.
func TestFlightBytes(t *testing.T) {
	f := newFlight(t.Context(), GracePeriod)
	a, b, c := call(t, "a"), call(t, "b"), call(t, "c")
	if code, _ := f.admit(a, MaxInFlightBytes+1); code != 0 {
		t.Errorf("a lone request over the budget: %d", code)
	}
	if code, reason := f.admit(b, 1); code != CodeBusy || reason != "server busy: the requests waiting for their answers hold 64 MiB" {
		t.Errorf("one more: %d %s", code, reason)
	}
	f.answering(answer(a))
	if code, _ := f.admit(b, MaxInFlightBytes/2); code != 0 {
		t.Errorf("after the answer: %d", code)
	}
	if code, _ := f.admit(c, MaxInFlightBytes/2); code != 0 {
		t.Errorf("a second half: %d", code)
	}
	if code, _ := f.admit(a, 1); code != CodeBusy {
		t.Errorf("over the budget: %d", code)
	}
}

// drain returns once every request is answered and its answer written.
func TestFlightDrain(t *testing.T) {
	f := newFlight(t.Context(), 1<<62) // no grace period runs out here
	a := call(t, "a")
	f.admit(a, 10)
	drained := make(chan struct{})
	go func() {
		f.drain()
		close(drained)
	}()
	f.answering(answer(a))
	select {
	case <-drained:
		t.Fatal("drain returned before the answer was written")
	default:
	}
	f.written()
	<-drained
	if f.ctx.Err() != nil {
		t.Errorf("the session ended: %v", f.ctx.Err())
	}
}

// When the grace period passes, drain returns with the client gone,
// the request still in flight.
func TestFlightDrainGrace(t *testing.T) {
	f := newFlight(t.Context(), 1) // 1 ns
	f.admit(call(t, "a"), 10)
	f.drain()
	if cause := context.Cause(f.ctx); cause != errClientGone {
		t.Errorf("after the grace period: %v", cause)
	}
}

// The answer to a request the client cancelled is not sent, and ends
// the request all the same; a cancellation of an id not in flight
// changes nothing.
func TestFlightCancel(t *testing.T) {
	f := newFlight(t.Context(), GracePeriod)
	a, b := call(t, "a"), call(t, "b")
	f.admit(a, 10)
	f.admit(b, 10)
	f.cancel(a.ID)
	f.cancel(call(t, "c").ID)
	if send, _ := f.answering(answer(a)); send {
		t.Errorf("the answer to a cancelled request is sent")
	}
	f.written()
	if send, _ := f.answering(answer(b)); !send {
		t.Errorf("the answer to b is dropped")
	}
	f.written()
	if len(f.pending) != 0 || f.writing != 0 || f.bytes != 0 {
		t.Errorf("left in flight: %v, %d writing, %d bytes", f.pending, f.writing, f.bytes)
	}
}

// recorder is a connection that keeps what is written to it.
type recorder struct {
	sdk.Connection
	sent []jsonrpc.Message
}

func (r *recorder) Write(_ context.Context, msg jsonrpc.Message) error {
	r.sent = append(r.sent, msg)
	return nil
}

// An error answer without a JSON-RPC code gets one: -32600 before the
// session is initialized (the SDK's refusal), -32603 after; an error
// with a code keeps it.
func TestConnCodes(t *testing.T) {
	f := newFlight(t.Context(), GracePeriod)
	r := &recorder{}
	c := &conn{Connection: r, f: f}
	write := func(req *jsonrpc.Request, resp *jsonrpc.Response) {
		t.Helper()
		f.admit(req, 10)
		if err := c.Write(t.Context(), resp); err != nil {
			t.Fatal(err)
		}
	}
	code := func() int64 {
		t.Helper()
		var werr *jsonrpc.Error
		if !errors.As(r.sent[len(r.sent)-1].(*jsonrpc.Response).Error, &werr) {
			t.Fatalf("no code: %v", r.sent[len(r.sent)-1])
		}
		return werr.Code
	}
	list := call(t, "list")
	list.Method = "tools/list"
	write(list, &jsonrpc.Response{ID: list.ID, Error: errors.New(`method "tools/list" is invalid during session initialization`)})
	if got := code(); got != jsonrpc.CodeInvalidRequest {
		t.Errorf("before initialize: %d", got)
	}
	init := call(t, "init")
	init.Method = "initialize"
	write(init, &jsonrpc.Response{ID: init.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "x"}})
	if got := code(); got != jsonrpc.CodeInvalidParams {
		t.Errorf("a coded error: %d", got)
	}
	write(list, &jsonrpc.Response{ID: list.ID, Error: errors.New("still not initialized")})
	if got := code(); got != jsonrpc.CodeInvalidRequest {
		t.Errorf("after a failed initialize: %d", got)
	}
	write(init, answer(init))
	tool := call(t, "tool")
	tool.Method = "tools/call"
	write(tool, &jsonrpc.Response{ID: tool.ID, Error: fmt.Errorf("reading the database: %w", io.ErrUnexpectedEOF)})
	if got := code(); got != jsonrpc.CodeInternalError {
		t.Errorf("a Go error after initialize: %d", got)
	}
	if msg := r.sent[len(r.sent)-1].(*jsonrpc.Response).Error.Error(); msg != "reading the database: unexpected EOF" {
		t.Errorf("the message: %q", msg)
	}
}
