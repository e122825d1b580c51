// Package mcptest connects a go-sdk client to the MCP tool set over
// in-memory transports, for tests of code that talks to the tools as an
// MCP client would (as net/http/httptest does for HTTP).
package mcptest

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/core/vfs"
)

// Connect serves the tool set for ws over in-memory transports and
// returns a client session on it (copts may be nil), closed when the
// test ends.
func Connect(t *testing.T, ws *vfs.Workspace, opts agenttools.Options, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return ConnectVersion(t, ws, opts, copts, "")
}

// ConnectVersion is Connect with the client speaking protocol version
// (an MCP protocol version such as "2025-11-25"; the go-sdk's latest when
// empty).
func ConnectVersion(t *testing.T, ws *vfs.Workspace, opts agenttools.Options, copts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	server, err := mcp.NewServer(ws, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, copts).Connect(t.Context(), clientEnd, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}
