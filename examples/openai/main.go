// Command openai runs an agent loop written directly on the official
// OpenAI Go SDK (github.com/openai/openai-go/v3) with the workspace tools
// over a host directory: Chat Completions by default, the Responses API
// with -api responses.
//
//	OPENAI_API_KEY=... go run ./examples/openai -dir . "Which files mention TODO?"
//
// -model (or OPENAI_MODEL) names the model, gpt-5.4-mini by default;
// -base-url (or OPENAI_BASE_URL) sends the requests to another server
// that speaks the API (a local one needs no key). Each tool call is
// printed on stderr, the answer on stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/openai"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// config is what one run needs.
type config struct {
	Dir     string // host directory mounted at /workspace
	API     string // "chat" or "responses"
	Model   string
	BaseURL string // empty: the SDK's default (OPENAI_BASE_URL, else OpenAI's)
	APIKey  string // empty: the SDK's default (OPENAI_API_KEY)
	Prompt  string
	// MaxTurns bounds the model requests of the loop.
	MaxTurns int
}

func main() {
	cfg := config{MaxTurns: 30}
	flag.StringVar(&cfg.Dir, "dir", ".", "host directory mounted at /workspace")
	flag.StringVar(&cfg.API, "api", "chat", `API to use: "chat" (Chat Completions) or "responses"`)
	flag.StringVar(&cfg.Model, "model", envOr("OPENAI_MODEL", string(oai.ChatModelGPT5_4Mini)), "model")
	flag.StringVar(&cfg.BaseURL, "base-url", "", "API base URL (default OPENAI_BASE_URL, else OpenAI's)")
	flag.Parse()
	cfg.Prompt = strings.Join(flag.Args(), " ")
	if cfg.Prompt == "" {
		cfg.Prompt = "What is in /workspace?"
	}
	if os.Getenv("OPENAI_API_KEY") == "" && cfg.BaseURL == "" && os.Getenv("OPENAI_BASE_URL") == "" {
		log.Fatal("set OPENAI_API_KEY (or -base-url for a server that needs no key)")
	}
	answer, err := run(context.Background(), cfg, os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// run runs the agent loop for cfg and returns the model's answer; each
// tool call is written to trace.
func run(ctx context.Context, cfg config, trace io.Writer) (string, error) {
	// The workspace: "/" in memory, the directory at /workspace.
	host, err := hostfs.Open(cfg.Dir)
	if err != nil {
		return "", err
	}
	defer host.Close()
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		return "", err
	}
	// exec runs bash in the directory.
	shell, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		return "", err
	}
	// MediaMessage: Chat Completions models see the images and PDFs that
	// read opens (the Responses API always does).
	set, err := openai.New(ws, agenttools.Options{Backends: []execbackend.Backend{shell}, ExecTimeout: 120_000}, openai.MediaMessage())
	if err != nil {
		return "", err
	}

	opts := []option.RequestOption{option.WithMaxRetries(2)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	client := oai.NewClient(opts...)
	switch cfg.API {
	case "chat":
		return chat(ctx, client, set, cfg, trace)
	case "responses":
		return respond(ctx, client, set, cfg, trace)
	}
	return "", fmt.Errorf("-api %q: want chat or responses", cfg.API)
}

// errTurns stops a loop that runs out of turns.
var errTurns = errors.New("the model was still calling tools after the last turn")

// chat is the loop on Chat Completions: send the history and the tools;
// append the assistant message and, when it calls tools, their answers
// (ChatTurn); until a message without tool calls.
func chat(ctx context.Context, client oai.Client, set *openai.Tools, cfg config, trace io.Writer) (string, error) {
	params := oai.ChatCompletionNewParams{
		Model:    cfg.Model,
		Tools:    set.Chat(),
		Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage(cfg.Prompt)},
	}
	for range cfg.MaxTurns {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		if len(completion.Choices) == 0 {
			return "", errors.New("the completion has no choice")
		}
		msg := completion.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		for _, c := range msg.ToolCalls {
			fmt.Fprintf(trace, "%s %s\n", c.Function.Name, c.Function.Arguments)
		}
		answers, err := set.ChatTurn(ctx, msg)
		if err != nil {
			return "", err
		}
		params.Messages = append(params.Messages, msg.ToParam())
		params.Messages = append(params.Messages, answers...)
	}
	return "", errTurns
}

// respond is the loop on the Responses API: the server keeps the
// history, so each request sends the previous response's id and the
// outputs of its function calls (ResponsesTurn); until a response
// without function calls.
func respond(ctx context.Context, client oai.Client, set *openai.Tools, cfg config, trace io.Writer) (string, error) {
	params := responses.ResponseNewParams{
		Model: cfg.Model,
		Tools: set.Responses(),
		Input: responses.ResponseNewParamsInputUnion{OfString: oai.String(cfg.Prompt)},
	}
	for range cfg.MaxTurns {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			return "", err
		}
		for _, item := range resp.Output {
			if item.Type == "function_call" {
				call := item.AsFunctionCall()
				fmt.Fprintf(trace, "%s %s\n", call.Name, call.Arguments)
			}
		}
		outputs, err := set.ResponsesTurn(ctx, resp)
		if err != nil {
			return "", err
		}
		if len(outputs) == 0 {
			return resp.OutputText(), nil
		}
		params.PreviousResponseID = oai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: outputs}
	}
	return "", errTurns
}
