// Command anthropic runs the workspace tools in an agent loop written
// directly on the official Anthropic Go SDK: it sends the conversation
// to the Messages API with the tools declared, runs the tool calls of
// each reply, sends their results back, and prints the model's answer.
//
//	ANTHROPIC_API_KEY=... go run . -prompt 'What is in /workspace?'
//	ANTHROPIC_API_KEY=... go run . -dir ~/project -write -prompt 'Fix the typo in README.md'
//
// Flags: -model (default claude-sonnet-5-5), -base-url (default
// ANTHROPIC_BASE_URL, else the API's; a local stand-in for the API, such
// as TestRun's, still needs some ANTHROPIC_API_KEY: the SDK refuses to
// send a request without one), -dir (the host directory the
// tools see at /workspace; default the current one), -write (offer
// write, edit and delete too; without it the tools only read),
// -prompt, -max-turns, -max-retries.
//
// This is its own module, as is adapters/anthropic (see the README:
// anthropic-sdk-go and Genkit cannot share a program yet).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/anthropic"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run parses args, runs the agent loop and prints the answer to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("anthropic", flag.ContinueOnError)
	model := flags.String("model", string(sdk.ModelClaudeSonnet5_5), "the model to ask")
	baseURL := flags.String("base-url", "", "the API's base URL (default: ANTHROPIC_BASE_URL, else Anthropic's)")
	dir := flags.String("dir", ".", "host directory to mount at /workspace")
	write := flags.Bool("write", false, "offer the tools that change the workspace (write, edit, delete)")
	prompt := flags.String("prompt", "What is in /workspace?", "what to ask the model")
	maxTurns := flags.Int("max-turns", 20, "the most requests to send")
	maxRetries := flags.Int("max-retries", 2, "how often to retry a failed request")
	if err := flags.Parse(args); err != nil {
		return err
	}

	// The tools see "/" in memory, with dir at /workspace, confined
	// there (os.Root).
	host, err := hostfs.Open(*dir)
	if err != nil {
		return err
	}
	defer host.Close()
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		return err
	}
	tools, err := anthropic.New(ws, agenttools.Options{Readonly: !*write})
	if err != nil {
		return err
	}

	// The client reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) from
	// the environment.
	opts := []option.RequestOption{option.WithMaxRetries(*maxRetries)}
	if *baseURL != "" {
		opts = append(opts, option.WithBaseURL(*baseURL))
	}
	client := sdk.NewClient(opts...)

	params := sdk.MessageNewParams{
		Model:     sdk.Model(*model),
		MaxTokens: 4096,
		Tools:     tools.Params(),
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(*prompt))},
	}
	for range *maxTurns {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			return err
		}
		params.Messages = append(params.Messages, msg.ToParam())
		// Every tool_use block is answered, failures included (is_error
		// and the tool's text); err is only a cancelled context.
		results, ok, err := tools.ExecuteTurn(ctx, msg)
		if err != nil {
			return err
		}
		if !ok {
			_, err := fmt.Fprintln(stdout, answer(msg))
			return err
		}
		params.Messages = append(params.Messages, results)
	}
	return errors.New("no answer after -max-turns requests")
}

// answer is the text of the model's last message.
func answer(msg *sdk.Message) string {
	var text []string
	for _, block := range msg.Content {
		if block.Type == "text" {
			text = append(text, block.Text)
		}
	}
	return strings.Join(text, "")
}
