package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttools/agenttools/adapters/openai"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// Prompt is what the user asks in every loop.
const prompt = "Tidy up the workspace and run the tests."

// api is an OpenAI API stand-in: it answers each request to path with
// the next of replies (JSON bodies, as the API sends them) and keeps the
// request bodies.
type api struct {
	t       *testing.T
	path    string
	mu      sync.Mutex
	replies []json.RawMessage
	bodies  [][]byte
}

// newAPI serves replies on a local server and returns a client of the
// SDK's own that sends its requests there (no key, no retries).
func newAPI(t *testing.T, path string, replies []json.RawMessage) (*api, oai.Client) {
	t.Helper()
	a := &api{t: t, path: path, replies: replies}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return a, oai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// recorded reads the recorded API responses in testdata/file, a JSON
// array of them in the order the API sent them.
func recorded(t *testing.T, file string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var replies []json.RawMessage
	if err := json.Unmarshal(data, &replies); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return replies
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil || r.Method != http.MethodPost || r.URL.Path != "/v1"+a.path || len(a.bodies) == len(a.replies) {
		a.t.Errorf("unexpected request %s %s (%d of %d replies used, %v)", r.Method, r.URL.Path, len(a.bodies), len(a.replies), err)
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
		return
	}
	reply := a.replies[len(a.bodies)]
	a.bodies = append(a.bodies, body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(reply)
}

// requests are the bodies the client sent, in order.
func (a *api) requests() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bodies
}

// chatLoop is an agent loop on Chat Completions, as a program on the SDK
// writes it: the tools declared, each assistant message's tool calls
// answered by ChatTurn, until a message without tool calls, whose
// content it returns.
func chatLoop(t *testing.T, ctx context.Context, client oai.Client, set *openai.Tools) string {
	t.Helper()
	params := oai.ChatCompletionNewParams{
		Model:    "gpt-4.1",
		Tools:    set.Chat(),
		Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage(prompt)},
	}
	for range 10 {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		msg := completion.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return msg.Content
		}
		answers, err := set.ChatTurn(ctx, msg)
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		params.Messages = append(params.Messages, answers...)
	}
	t.Fatal("the loop did not end")
	return ""
}

// responsesLoop is the same loop on the Responses API: each response's
// function calls answered by ResponsesTurn, sent with the response's id
// as the previous one, until a response without function calls, whose
// output text it returns.
func responsesLoop(t *testing.T, ctx context.Context, client oai.Client, set *openai.Tools) string {
	t.Helper()
	params := responses.ResponseNewParams{
		Model: "gpt-4.1",
		Tools: set.Responses(),
		Input: responses.ResponseNewParamsInputUnion{OfString: oai.String(prompt)},
	}
	for range 10 {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		items, err := set.ResponsesTurn(ctx, resp)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) == 0 {
			return resp.OutputText()
		}
		params.PreviousResponseID = oai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	}
	t.Fatal("the loop did not end")
	return ""
}

// compact is data without the whitespace between tokens.
func compact(t *testing.T, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return buf.String()
}

// chatReplies are Chat Completions responses, in the API's shape: one
// per turn making the turn's tool calls, then one answering answer.
func chatReplies(t *testing.T, answer string, turns ...[]call) []json.RawMessage {
	t.Helper()
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	reply := func(i int, content any, calls []toolCall, finish string) json.RawMessage {
		msg := map[string]any{"role": "assistant", "content": content, "refusal": nil, "annotations": []any{}}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		data, err := json.Marshal(map[string]any{
			"id": "chatcmpl-" + strconv.Itoa(i+1), "object": "chat.completion", "created": 1767225600 + i, "model": "gpt-4.1-2025-04-14",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	var replies []json.RawMessage
	for i, turn := range turns {
		var calls []toolCall
		for _, c := range turn {
			calls = append(calls, toolCall{c.id, "function", function{c.name, c.args}})
		}
		replies = append(replies, reply(i, nil, calls, "tool_calls"))
	}
	return append(replies, reply(len(turns), answer, nil, "stop"))
}

// responsesReplies are Responses API responses, in the API's shape: one
// per turn making the turn's function calls, then one answering answer.
func responsesReplies(t *testing.T, answer string, turns ...[]call) []json.RawMessage {
	t.Helper()
	reply := func(i int, output []any) json.RawMessage {
		data, err := json.Marshal(map[string]any{
			"id": "resp_" + strconv.Itoa(i+1), "object": "response", "created_at": 1767225600 + i, "status": "completed",
			"model": "gpt-4.1-2025-04-14", "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	var replies []json.RawMessage
	n := 0
	for i, turn := range turns {
		var output []any
		for _, c := range turn {
			n++
			output = append(output, map[string]any{"type": "function_call", "id": "fc_" + strconv.Itoa(n), "call_id": c.id, "name": c.name, "arguments": c.args, "status": "completed"})
		}
		replies = append(replies, reply(i, output))
	}
	return append(replies, reply(len(turns), []any{map[string]any{
		"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": answer, "annotations": []any{}}},
	}}))
}
