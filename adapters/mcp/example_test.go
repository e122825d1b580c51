package mcp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// exampleWorkspace is a workspace in memory holding one file.
func exampleWorkspace() *vfs.Workspace {
	ws := vfs.New(memfs.New())
	err := ws.WriteFile(context.Background(), "/workspace/notes.txt", []byte("status: draft\n"), vfs.WriteOptions{CreateParents: true})
	if err != nil {
		log.Fatal(err)
	}
	return ws
}

// exampleClient connects a go-sdk client to server over in-memory
// transports; done closes the session and waits for the server's end.
func exampleClient(ctx context.Context, server *sdk.Server) (cs *sdk.ClientSession, done func()) {
	serverEnd, clientEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	cs, err = sdk.NewClient(&sdk.Implementation{Name: "example"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	return cs, func() {
		cs.Close()
		ss.Wait()
	}
}

// A server offering the tools, and a go-sdk client talking to it over
// in-memory transports (a real client would start `agenttools mcp`, or
// a server of yours on sdk.StdioTransport). The client sees each tool's
// title and annotations, and calls them.
func Example() {
	ctx := context.Background()
	server, err := mcp.NewServer(exampleWorkspace(), agenttools.Options{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	cs, done := exampleClient(ctx, server)
	defer done()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools { // in name order
		fmt.Printf("%s %q read-only: %v\n", t.Name, t.Title, t.Annotations.ReadOnlyHint)
	}
	for _, args := range []map[string]any{
		{"path": "/workspace/notes.txt"},
		{"path": "/workspace/missing.txt"},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read", Arguments: args})
		if err != nil {
			log.Fatal(err) // a protocol error: an unknown tool, a closed session
		}
		fmt.Printf("isError %v: %s\n", res.IsError, res.Content[0].(*sdk.TextContent).Text)
	}
	// Output:
	// delete "Delete file or directory" read-only: false
	// edit "Edit file" read-only: false
	// find "Find files" read-only: true
	// grep "Search file contents" read-only: true
	// ls "List directory" read-only: true
	// read "Read file" read-only: true
	// write "Write file" read-only: false
	// isError false: status: draft
	// isError true: File not found: /workspace/missing.txt
}

// The tools on a server of yours, next to its own tools: here a
// read-only set, which offers read, ls, find and grep.
func ExampleTools_Register() {
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "my-agent", Version: "1.0.0"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "hello", Description: "Say hello."}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil, nil
	})
	set, err := mcp.New(exampleWorkspace(), agenttools.Options{Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	set.Register(server)

	cs, done := exampleClient(ctx, server)
	defer done()
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		names = append(names, t.Name)
	}
	fmt.Println(strings.Join(names, " "))
	// Output:
	// find grep hello ls read
}

// Serve is the stdio loop of `agenttools mcp`: newline-delimited
// JSON-RPC on a reader and a writer (os.Stdin and os.Stdout there). When
// the input ends, the calls in flight are answered (within Tools.Grace)
// and Serve returns.
func ExampleTools_Serve() {
	set, err := mcp.New(exampleWorkspace(), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grep","arguments":{"query":"draft"}}}
`)
	var out strings.Builder
	if err := set.Serve(context.Background(), in, &out, "my-agent", "1.0.0"); err != nil {
		log.Fatal(err)
	}
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{},"tools":{"listChanged":true}},"protocolVersion":"2025-06-18","serverInfo":{"name":"my-agent","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"path\":\"/workspace\",\"query\":\"draft\",\"count\":1,\"matches\":[{\"path\":\"/workspace/notes.txt\",\"line\":1,\"text\":\"status: draft\"}]}"}]}}
}
