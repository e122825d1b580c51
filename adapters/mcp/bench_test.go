package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// BenchmarkRead reads a small file through the tool's handler, as the
// SDK calls it (no transport).
func BenchmarkRead(b *testing.B) {
	set, err := mcp.New(agentcase.Workspace(b))
	if err != nil {
		b.Fatal(err)
	}
	read, _ := set.Read()
	req := callRequest("read", agentcase.ReadArgs)
	b.ReportAllocs()
	for b.Loop() {
		if res, err := read.Handler(b.Context(), req); err != nil || res.IsError {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkReadCore is the same read through core alone.
func BenchmarkReadCore(b *testing.B) {
	set, err := mcp.New(agentcase.Workspace(b))
	if err != nil {
		b.Fatal(err)
	}
	agentcase.BenchReadCore(b, set.Executor())
}

// BenchmarkServeRead is one read's round trip through Serve's stdio
// loop and the SDK: a request line in, the response line out.
func BenchmarkServeRead(b *testing.B) {
	ws, opts := agentcase.Workspace(b)
	w := serveWire(b, ws, opts)
	b.ReportAllocs()
	for b.Loop() {
		if line := w.request("tools/call", `{"name":"read","arguments":`+agentcase.ReadArgs+`}`); !strings.Contains(line, `"result"`) {
			b.Fatal(line)
		}
	}
	w.close()
}

// callRequest is a tools/call request as the SDK hands it to a handler.
func callRequest(name, args string) *sdk.CallToolRequest {
	return &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}}
}
