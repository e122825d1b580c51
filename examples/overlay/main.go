// Command overlay serves the agenttools workspace tools over MCP on stdin
// and stdout, with this module's texts and limits (agenttools.cue, built
// into ./tools by go generate): grep's shorter description and read's
// 500-line default.
//
//	go generate ./...        # after editing agenttools.cue
//	go run . -dir ~/project  # an MCP client starts this
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"

	"example.com/overlay/tools"
)

func main() {
	dir := flag.String("dir", ".", "host directory the tools see at /workspace")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	// The workspace: "/" in memory, the directory at /workspace.
	host, err := hostfs.Open(*dir)
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		log.Fatal(err)
	}

	// tools.NewMCP is adapters/mcp.New with the surface of agenttools.cue;
	// every option works as there.
	set, err := tools.NewMCP(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := set.Serve(ctx, os.Stdin, os.Stdout, "overlay", "v0.1.0"); err != nil {
		log.Fatal(err)
	}
}
