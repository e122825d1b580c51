// Command genkit runs the workspace tools in Genkit's own agent loop:
// it builds a workspace, defines the tools on a *genkit.Genkit and calls
// Generate with them (agentgenkit.Generate, genkit.Generate bounding the
// tools' calls to it).
//
//	go run ./examples/genkit                 # a small in-memory workspace
//	go run ./examples/genkit -dir .          # this directory at /workspace
//
// It runs without network or keys: the model is a scripted stand-in that
// lists /workspace, reads the first file it finds, and answers with what
// it read. Put a real model plugin in its place (see main).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agenttools/agenttools"
	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

func main() {
	dir := flag.String("dir", "", "host directory to mount at /workspace (default: an in-memory workspace)")
	prompt := flag.String("prompt", "What is in /workspace?", "what to ask the model")
	flag.Parse()

	// genkit.Init swallows SIGINT and SIGTERM for the whole process, so
	// handle them here: Ctrl-C cancels ctx, which stops Generate and the
	// tool it runs.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ws, closeWS, err := workspace(ctx, *dir)
	if err != nil {
		log.Fatal(err)
	}
	defer closeWS()

	// A real model goes here, from a plugin, for example:
	//
	//	g := genkit.Init(ctx,
	//		genkit.WithPlugins(&googlegenai.GoogleAI{}),
	//		genkit.WithDefaultModel("googleai/gemini-2.5-flash"))
	//
	// and then no scripted model and no ai.WithModel below.
	g := genkit.Init(ctx)
	model := genkit.DefineModel(g, "example/scripted", &ai.ModelOptions{
		Label:    "scripted stand-in",
		Supports: &ai.ModelSupports{Multiturn: true, Tools: true, Media: true, SystemRole: true},
	}, scripted)

	// The tools, registered on g. agentgenkit.New builds them without
	// registering them, to pass to one Generate call instead.
	tools, err := agentgenkit.Define(g, ws, agenttools.Options{Readonly: true})
	if err != nil {
		log.Fatal(err)
	}

	// agentgenkit.Generate is genkit.Generate with the tools' calls bound
	// to it: none outlives it when a turn fails.
	resp, err := agentgenkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithPrompt(*prompt),
		ai.WithTools(tools.Refs()...),
		ai.WithMaxTurns(10))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
}

// workspace is "/" in memory, with dir mounted at /workspace, or, without
// dir, a sample file there.
func workspace(ctx context.Context, dir string) (*vfs.Workspace, func(), error) {
	ws := vfs.New(memfs.New())
	if dir == "" {
		err := ws.WriteFile(ctx, "/workspace/hello.txt", []byte("Hello from the workspace.\n"), vfs.WriteOptions{CreateParents: true})
		return ws, func() {}, err
	}
	host, err := hostfs.Open(dir) // confined with os.Root
	if err != nil {
		return nil, nil, err
	}
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		host.Close()
		return nil, nil, err
	}
	return ws, func() { host.Close() }, nil
}

// scripted is the stand-in model: it lists /workspace, reads the first
// file of the listing, then answers with what read returned. A tool
// request's Ref is the call id a real model gives.
func scripted(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	var last *ai.ToolResponse
	for _, msg := range req.Messages {
		for _, part := range msg.Content {
			if part.IsToolResponse() {
				last = part.ToolResponse
			}
		}
	}
	call := func(ref, tool string, input any) (*ai.ModelResponse, error) {
		return &ai.ModelResponse{
			Message:      ai.NewModelMessage(ai.NewToolRequestPart(&ai.ToolRequest{Name: tool, Ref: ref, Input: input})),
			FinishReason: ai.FinishReasonStop,
		}, nil
	}
	answer := func(text string) (*ai.ModelResponse, error) {
		return &ai.ModelResponse{Message: ai.NewModelTextMessage(text), FinishReason: ai.FinishReasonStop}, nil
	}
	switch {
	case last == nil:
		return call("call_1", "ls", map[string]any{"path": "/workspace"})
	case last.Name == "ls":
		// Every output is a string; a json one is the object's JSON text.
		var listing struct {
			Entries []struct {
				Name   string `json:"name"`
				IsFile bool   `json:"isFile"`
			} `json:"entries"`
		}
		text, _ := last.Output.(string)
		if json.Unmarshal([]byte(text), &listing) == nil {
			for _, e := range listing.Entries {
				if e.IsFile {
					return call("call_2", "read", map[string]any{"path": "/workspace/" + e.Name, "limit": 20})
				}
			}
		}
		return answer("The listing: " + text)
	default:
		text, _ := last.Output.(string)
		return answer("The first file says:\n" + text)
	}
}
