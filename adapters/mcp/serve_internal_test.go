package mcp

import (
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// At most MaxInFlight requests wait for answers; the next is refused as
// busy until one is answered. An id in flight is refused; once its
// answer is being written it can be used again.
func TestFlightAdmits(t *testing.T) {
	f := newFlight(t.Context())
	id := func(n int) jsonrpc.ID {
		v, err := jsonrpc.MakeID(float64(n))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for n := range MaxInFlight {
		if code, reason := f.admit(id(n), 100); code != 0 {
			t.Fatalf("request %d: %d %s", n, code, reason)
		}
	}
	if code, reason := f.admit(id(MaxInFlight), 100); code != CodeBusy || reason != "server busy: "+strconv.Itoa(MaxInFlight)+" requests are waiting for their answers" {
		t.Errorf("one more: %d %s", code, reason)
	}
	if n := f.answering([]byte(`{"jsonrpc":"2.0","id":5,"result":{}}` + "\n")); n != 1 {
		t.Errorf("answering: %d answers", n)
	}
	if code, reason := f.admit(id(3), 100); code != jsonrpc.CodeInvalidRequest || reason != "a request with id 3 is still in flight" {
		t.Errorf("an id in flight: %d %s", code, reason)
	}
	// The answer to 5 is not written yet, and 5 is free already.
	if code, _ := f.admit(id(5), 100); code != 0 {
		t.Errorf("an answered id again: %d", code)
	}
	f.written(1)
	// A string id is another id than the number with its digits.
	f.answering([]byte(`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}`))
	f.written(1)
	s, _ := jsonrpc.MakeID("7")
	if code, _ := f.admit(s, 100); code != 0 {
		t.Errorf(`id "7" while 7 is in flight: %d`, code)
	}
}

// The lines waiting for answers hold at most MaxInFlightBytes, except
// that one request is always let in.
func TestFlightBytes(t *testing.T) {
	f := newFlight(t.Context())
	a, _ := jsonrpc.MakeID("a")
	b, _ := jsonrpc.MakeID("b")
	c, _ := jsonrpc.MakeID("c")
	if code, _ := f.admit(a, MaxInFlightBytes+1); code != 0 {
		t.Errorf("a lone request over the budget: %d", code)
	}
	if code, reason := f.admit(b, 1); code != CodeBusy || reason != "server busy: the requests waiting for their answers hold 64 MiB" {
		t.Errorf("one more: %d %s", code, reason)
	}
	f.answering([]byte(`{"jsonrpc":"2.0","id":"a","result":{}}`))
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
	f := newFlight(t.Context())
	a, _ := jsonrpc.MakeID("a")
	f.admit(a, 10)
	drained := make(chan struct{})
	go func() {
		f.drain()
		close(drained)
	}()
	f.answering([]byte(`{"jsonrpc":"2.0","id":"a","result":{}}`))
	select {
	case <-drained:
		t.Fatal("drain returned before the answer was written")
	default:
	}
	f.written(1)
	<-drained
}

// responseID finds a response's id however its members are ordered, and
// nothing in a request or notification the server sends.
func TestResponseID(t *testing.T) {
	for line, want := range map[string]any{
		`{"jsonrpc":"2.0","id":12,"result":{"content":[]}}`:               int64(12),
		`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}`:     "a",
		`{"result":{},"jsonrpc":"2.0","id":3}`:                            int64(3),
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`: nil,
		`{"jsonrpc":"2.0","id":4,"method":"roots/list"}`:                  nil,
		`{"jsonrpc":"2.0","id":5}`:                                        nil,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`:    nil,
		`not json`: nil,
	} {
		id, ok := responseID([]byte(line))
		if want == nil {
			if ok {
				t.Errorf("%s: id %v, want none", line, id.Raw())
			}
			continue
		}
		if !ok || id.Raw() != want {
			t.Errorf("%s: id %v %v, want %v", line, id.Raw(), ok, want)
		}
	}
}
