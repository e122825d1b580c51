// Command langchaingo runs a langchaingo agent with the workspace tools
// over a host directory.
//
//	go run ./examples/langchaingo -dir . "Which files mention TODO?"
//
// With OPENAI_API_KEY set it uses OpenAI (OPENAI_MODEL, default
// gpt-4.1-mini); without it, a stand-in model that lists the directory and
// answers, so the example runs offline.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

func main() {
	dir := flag.String("dir", ".", "host directory mounted at /workspace")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	if prompt == "" {
		prompt = "What is in /workspace?"
	}
	ctx := context.Background()

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
	// exec runs bash in the directory.
	shell, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		log.Fatal(err)
	}
	set, err := langchaingo.New(ws, agenttools.Options{Backends: []execbackend.Backend{shell}, ExecTimeout: 120_000})
	if err != nil {
		log.Fatal(err)
	}

	var model llms.Model = standIn{}
	if os.Getenv("OPENAI_API_KEY") != "" {
		name := os.Getenv("OPENAI_MODEL")
		if name == "" {
			name = "gpt-4.1-mini"
		}
		if model, err = openai.New(openai.WithModel(name)); err != nil {
			log.Fatal(err)
		}
	}
	// The functions agent would describe every tool as taking one string;
	// WithDefinitions makes it send the exact schemas.
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(model, set.Definitions()), set.All())
	executor := agents.NewExecutor(agent, agents.WithMaxIterations(20))
	answer, err := chains.Run(ctx, executor, prompt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}

// standIn lists /workspace, then answers with what it was told.
type standIn struct{}

func (standIn) GenerateContent(_ context.Context, messages []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	for _, m := range messages {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ls said: " + r.Content}}}, nil
			}
		}
	}
	args, _ := json.Marshal(map[string]string{"path": "/workspace"})
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{
		ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ls", Arguments: string(args)},
	}}}}}, nil
}

func (m standIn) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}
