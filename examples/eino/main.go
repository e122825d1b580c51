// Command eino runs eino's react agent with the workspace tools.
//
//	go run ./examples/eino                  # an in-memory workspace
//	go run ./examples/eino -dir . -stream   # this directory at /workspace, exec on the host, streamed
//
// The model is a scripted stand-in that lists /workspace, reads the first
// file it sees, runs a command (with -dir) and answers with what it was
// told, so the example runs offline; see newModel for where a real one
// goes.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

func main() {
	dir := flag.String("dir", "", "host directory mounted at /workspace (default: an in-memory workspace)")
	stream := flag.Bool("stream", false, "stream the agent (exec's running output is printed as it comes)")
	flag.Parse()
	ctx := context.Background()

	// The workspace: "/" in memory, and at /workspace either a host
	// directory (with exec running bash there) or a file in memory.
	ws := vfs.New(memfs.New())
	var opts agenttools.Options
	if *dir != "" {
		host, err := hostfs.Open(*dir)
		if err != nil {
			log.Fatal(err)
		}
		defer host.Close()
		if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
			log.Fatal(err)
		}
		shell, err := execbackend.NewHost(ws, execbackend.HostOptions{})
		if err != nil {
			log.Fatal(err)
		}
		opts = agenttools.Options{Backends: []execbackend.Backend{shell}, ExecTimeout: 120_000}
	} else if err := ws.WriteFile(ctx, "/workspace/hello.txt", []byte("hello from memfs\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		log.Fatal(err)
	}

	set, err := eino.New(ws, opts)
	if err != nil {
		log.Fatal(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: newModel(*dir != ""),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.All()},
		MessageRewriter:  set.MediaRewriter(), // read's image or PDF as a part of its tool message
		MaxStep:          40,
	})
	if err != nil {
		log.Fatal(err)
	}
	input := []*schema.Message{schema.UserMessage("What is in /workspace?")}

	if !*stream {
		answer, err := agent.Generate(ctx, input)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(answer.Content)
		return
	}
	// Streamed, the model still receives exec's final result only; the
	// running snapshots go to the function on the context.
	ctx = core.WithSnapshots(ctx, func(snapshot toolspec.Output) { log.Printf("running: %s", snapshot.JSON) })
	sr, err := agent.Stream(ctx, input)
	if err != nil {
		log.Fatal(err)
	}
	defer sr.Close()
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(chunk.Content)
	}
	fmt.Println()
}

// newModel is the chat model. A real one goes here: any
// model.ToolCallingChatModel, for example eino-ext's OpenAI model
// (github.com/cloudwego/eino-ext/components/model/openai):
//
//	m, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{Model: "gpt-4.1-mini", APIKey: os.Getenv("OPENAI_API_KEY")})
//
// For read to hand it an image or PDF (MediaRewriter above), the model
// must send a tool message's UserInputMultiContent parts; without
// MediaRewriter it gets the text part alone.
func newModel(canExec bool) model.ToolCallingChatModel { return standIn{exec: canExec} }

// standIn lists /workspace, reads the first file listed, runs a command
// with exec when the workspace has a host directory, then answers with
// the last tool result it received.
type standIn struct{ exec bool }

func (m standIn) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func (m standIn) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	var results []*schema.Message
	for _, msg := range input {
		if msg.Role == schema.Tool {
			results = append(results, msg)
		}
	}
	call := func(name string, args any) (*schema.Message, error) {
		data, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		return schema.AssistantMessage("", []schema.ToolCall{{
			ID: fmt.Sprintf("call_%d", len(results)+1), Type: "function",
			Function: schema.FunctionCall{Name: name, Arguments: string(data)},
		}}), nil
	}
	switch len(results) {
	case 0:
		return call("ls", map[string]string{"path": "/workspace"})
	case 1:
		var listing struct {
			Entries []struct {
				Name   string `json:"name"`
				IsFile bool   `json:"isFile"`
			} `json:"entries"`
		}
		_ = json.Unmarshal([]byte(results[0].Content), &listing)
		for _, e := range listing.Entries {
			if e.IsFile {
				return call("read", map[string]any{"path": "/workspace/" + e.Name, "limit": 5})
			}
		}
	case 2:
		if m.exec {
			// Prints for a second, so -stream shows it running.
			return call("exec", map[string]string{"command": "for i in 1 2 3 4 5; do echo step $i; sleep 0.2; done; ls"})
		}
	}
	last := results[len(results)-1]
	text := last.Content
	for _, p := range last.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			text += p.Text
		}
	}
	return schema.AssistantMessage(fmt.Sprintf("%s said:\n%s", last.ToolName, strings.TrimRight(text, "\n")), nil), nil
}

func (m standIn) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}
