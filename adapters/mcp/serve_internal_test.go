package mcp

import (
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// At most MaxInFlight requests wait for answers; the next is refused as
// busy until one is answered. An id in flight is refused; once answered
// it can be used again.
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
		if code, reason := f.admit(id(n)); code != 0 {
			t.Fatalf("request %d: %d %s", n, code, reason)
		}
	}
	if code, reason := f.admit(id(MaxInFlight)); code != CodeBusy || reason != "server busy: "+strconv.Itoa(MaxInFlight)+" requests are waiting for their answers" {
		t.Errorf("one more: %d %s", code, reason)
	}
	f.answered([]byte(`{"jsonrpc":"2.0","id":5,"result":{}}`))
	if code, reason := f.admit(id(3)); code != jsonrpc.CodeInvalidRequest || reason != "a request with id 3 is still in flight" {
		t.Errorf("an id in flight: %d %s", code, reason)
	}
	if code, _ := f.admit(id(5)); code != 0 {
		t.Errorf("an answered id again: %d", code)
	}
	// A string id is another id than the number with its digits.
	f.answered([]byte(`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}`))
	s, _ := jsonrpc.MakeID("7")
	if code, _ := f.admit(s); code != 0 {
		t.Errorf(`id "7" while 7 is in flight: %d`, code)
	}
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
