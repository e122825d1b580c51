package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/openai"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// exampleReplies are the stand-in model's turns, by API path: three
// function calls (a read, an ls of a missing directory, a tool the set
// does not offer), then an answer.
var exampleReplies = map[string][]string{
	"/chat/completions": {
		`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"tool_calls","logprobs":null,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"/workspace/hello.txt\"}"}},
			{"id":"call_2","type":"function","function":{"name":"ls","arguments":"{\"path\":\"/workspace/missing\"}"}},
			{"id":"call_3","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}}]}`,
		`{"id":"chatcmpl-2","object":"chat.completion","created":2,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"stop","logprobs":null,"message":{"role":"assistant","content":"hello.txt says hello.","refusal":null}}]}`,
	},
	"/responses": {
		`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-4.1","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[
			{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{\"path\":\"/workspace/hello.txt\"}","status":"completed"},
			{"type":"function_call","id":"fc_2","call_id":"call_2","name":"ls","arguments":"{\"path\":\"/workspace/missing\"}","status":"completed"},
			{"type":"function_call","id":"fc_3","call_id":"call_3","name":"bash","arguments":"{\"command\":\"ls\"}","status":"completed"}]}`,
		`{"id":"resp_2","object":"response","created_at":2,"status":"completed","model":"gpt-4.1","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[
			{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hello.txt says hello.","annotations":[]}]}]}`,
	},
}

// exampleClient is an SDK client of a local stand-in for both APIs that
// replays exampleReplies and prints the answers each request carries
// (Chat Completions tool messages, Responses function_call_outputs):
// what the model would receive. stop stops the stand-in.
func exampleClient() (client oai.Client, stop func()) {
	var mu sync.Mutex
	sent := map[string]int{}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				ID      string `json:"tool_call_id"`
				Content any    `json:"content"`
			} `json:"messages"`
			Input json.RawMessage `json:"input"` // a string, or a list of items
		}
		var items []struct {
			Type   string `json:"type"`
			ID     string `json:"call_id"`
			Output any    `json:"output"`
		}
		path := strings.TrimPrefix(r.URL.Path, "/v1")
		body, _ := io.ReadAll(r.Body)
		replies := exampleReplies[path]
		if json.Unmarshal(body, &req) != nil || sent[path] == len(replies) {
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				fmt.Printf("tool message %s: %v\n", m.ID, m.Content)
			}
		}
		_ = json.Unmarshal(req.Input, &items)
		for _, item := range items {
			if item.Type == "function_call_output" {
				fmt.Printf("function_call_output %s: %v\n", item.ID, item.Output)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[sent[path]])
		sent[path]++
	}))
	return oai.NewClient(option.WithBaseURL(api.URL+"/v1"), option.WithAPIKey("test")), api.Close
}

// A Chat Completions loop on the SDK's client, against a local stand-in
// for the API that prints the tool messages it receives: a result, a
// failure (the same text as through any adapter; Chat Completions has no
// error flag), and the answer to a tool the set does not offer.
func Example() {
	ctx := context.Background()
	client, stop := exampleClient() // an SDK client of the stand-in
	defer stop()

	ws := agentcase.Hello(ctx) // in memory, /workspace/hello.txt holding "hello\n"
	set, err := openai.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	params := oai.ChatCompletionNewParams{Model: oai.ChatModelGPT5_4Mini, Tools: set.Chat(),
		Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("What does hello.txt say?")}}
	for {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		msg := completion.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
			break
		}
		answers, err := set.ChatTurn(ctx, msg)
		if err != nil {
			log.Fatal(err) // a cancelled context, or an Approver's error
		}
		params.Messages = append(append(params.Messages, msg.ToParam()), answers...)
	}
	// Output:
	// tool message call_1: hello
	// tool message call_2: {"error":"no such path: /workspace/missing"}
	// tool message call_3: Unknown tool "bash". Available tools: "read", "ls", "find", "grep", "write", "edit", "delete".
	// hello.txt says hello.
}

// A Responses API loop: each turn's function_call_outputs go to the next
// request with previous_response_id, which holds the calls.
func ExampleTools_ResponsesTurn() {
	ctx := context.Background()
	client, stop := exampleClient() // an SDK client of the stand-in
	defer stop()

	ws := agentcase.Hello(ctx) // in memory, /workspace/hello.txt holding "hello\n"
	set, err := openai.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	params := responses.ResponseNewParams{Model: oai.ChatModelGPT5_4Mini, Tools: set.Responses(),
		Input: responses.ResponseNewParamsInputUnion{OfString: oai.String("What does hello.txt say?")}}
	for {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		outputs, err := set.ResponsesTurn(ctx, resp)
		if err != nil {
			log.Fatal(err)
		}
		if len(outputs) == 0 {
			fmt.Println(resp.OutputText())
			break
		}
		params.PreviousResponseID = oai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: outputs}
	}
	// Output:
	// function_call_output call_1: hello
	// function_call_output call_2: {"error":"no such path: /workspace/missing"}
	// function_call_output call_3: Unknown tool "bash". Available tools: "read", "ls", "find", "grep", "write", "edit", "delete".
	// hello.txt says hello.
}
