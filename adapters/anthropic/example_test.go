package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/anthropic"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// exampleReplies are the stand-in model's turns: three tool calls (a
// read, an ls of a missing directory, a tool the set does not offer),
// then an answer.
var exampleReplies = []string{
	`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},"content":[
		{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"/workspace/hello.txt"}},
		{"type":"tool_use","id":"toolu_2","name":"ls","input":{"path":"/workspace/missing"}},
		{"type":"tool_use","id":"toolu_3","name":"bash","input":{"command":"ls"}}]}`,
	`{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[
		{"type":"text","text":"hello.txt says hello."}]}`,
}

// exampleAPI is a local stand-in for the Messages API that replays
// exampleReplies and prints the tool_result blocks each request ends
// with: what the model would receive.
func exampleAPI() *httptest.Server {
	var mu sync.Mutex
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var req struct {
			Messages []struct {
				Content []struct {
					Type    string `json:"type"`
					ID      string `json:"tool_use_id"`
					IsError bool   `json:"is_error"`
					Content []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
				} `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || n == len(exampleReplies) {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		for _, block := range req.Messages[len(req.Messages)-1].Content {
			if block.Type == "tool_result" {
				for _, c := range block.Content {
					fmt.Printf("%s is_error=%t %s: %s\n", block.ID, block.IsError, c.Type, c.Text)
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, exampleReplies[n])
		n++
	}))
}

// exampleClient is an SDK client of a new exampleAPI, and the function
// that stops the stand-in.
func exampleClient() (sdk.Client, func()) {
	api := exampleAPI()
	return sdk.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test")), api.Close
}

// The package documentation's loop on the SDK's client, against a local
// stand-in for the Messages API that prints the tool_result blocks it
// receives: a result, a failure with is_error, and the answer to a tool
// the set does not offer.
func Example() {
	ctx := context.Background()
	client, stop := exampleClient() // an SDK client of the stand-in
	defer stop()

	ws := agentcase.Hello(ctx) // in memory, /workspace/hello.txt holding "hello\n"
	set, err := anthropic.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	params := sdk.MessageNewParams{Model: sdk.ModelClaudeSonnet5_5, MaxTokens: 4096, Tools: set.Params(),
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("What does hello.txt say?"))}}
	for {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		results, ok, err := set.ExecuteTurn(ctx, msg)
		if err != nil {
			log.Fatal(err) // a cancelled context, or an Approver's error
		}
		if !ok {
			fmt.Println(msg.Content[0].Text)
			break
		}
		params.Messages = append(params.Messages, results)
	}
	// Output:
	// toolu_1 is_error=false text: hello
	// toolu_2 is_error=true text: {"error":"no such path: /workspace/missing"}
	// toolu_3 is_error=true text: Unknown tool "bash". Available tools: "read", "ls", "find", "grep", "write", "edit", "delete".
	// hello.txt says hello.
}

// The SDK's beta tool runner runs the loop itself. It sends a failure as
// "Error: " and the tool's text, and answers a tool it does not hold
// with its own text.
func ExampleTools_BetaTools() {
	ctx := context.Background()
	client, stop := exampleClient() // an SDK client of the stand-in
	defer stop()

	ws := agentcase.Hello(ctx) // in memory, /workspace/hello.txt holding "hello\n"
	set, err := anthropic.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	runner := client.Beta.Messages.NewToolRunner(set.BetaTools(), sdk.BetaToolRunnerParams{
		BetaMessageNewParams: sdk.BetaMessageNewParams{Model: sdk.ModelClaudeSonnet5_5, MaxTokens: 4096,
			Messages: []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("What does hello.txt say?"))}},
	})
	answer, err := runner.RunToCompletion(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer.Content[0].Text)
	// Output:
	// toolu_1 is_error=false text: hello
	// toolu_2 is_error=true text: Error: {"error":"no such path: /workspace/missing"}
	// toolu_3 is_error=true text: Error: Tool 'bash' not found
	// hello.txt says hello.
}
