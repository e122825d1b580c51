package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// standIn is an OpenAI API stand-in for both APIs: its first answer
// calls ls on /workspace, its second says what the tool answered, read
// from the request (the tool message's content, or the
// function_call_output's output). It keeps the request bodies.
type standIn struct {
	t      *testing.T
	mu     sync.Mutex
	bodies []map[string]json.RawMessage
}

const lsArgs = `{"path":"/workspace"}`

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(data, &body)
	}
	if err != nil {
		s.t.Errorf("request %s: %v", data, err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	turn := len(s.bodies)
	s.mu.Unlock()
	var reply any
	switch {
	case r.URL.Path == "/v1/chat/completions" && turn == 1:
		reply = completion(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "ls", "arguments": lsArgs}},
		}})
	case r.URL.Path == "/v1/chat/completions":
		var msgs []struct{ Role, Content string }
		_ = json.Unmarshal(body["messages"], &msgs)
		reply = completion(map[string]any{"role": "assistant", "content": "ls said: " + msgs[len(msgs)-1].Content})
	case r.URL.Path == "/v1/responses" && turn == 1:
		reply = response(map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "ls", "arguments": lsArgs, "status": "completed"})
	case r.URL.Path == "/v1/responses":
		var items []struct{ Output string }
		_ = json.Unmarshal(body["input"], &items)
		reply = response(map[string]any{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": "ls said: " + items[0].Output, "annotations": []any{}}}})
	default:
		s.t.Errorf("request to %s", r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

func completion(msg map[string]any) any {
	finish := "stop"
	if msg["tool_calls"] != nil {
		finish = "tool_calls"
	}
	return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": "gpt-4.1-mini",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}}
}

func response(item map[string]any) any {
	return map[string]any{"id": "resp_1", "object": "response", "created_at": 1767225600, "status": "completed",
		"model": "gpt-4.1-mini", "output": []any{item}}
}

// The example's loop, on either API, declares the tools, runs the
// model's ls on the directory and returns the answer the model gave
// after it saw the result.
func TestRun(t *testing.T) {
	for _, api := range []string{"chat", "responses"} {
		t.Run(api, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := &standIn{t: t}
			srv := httptest.NewServer(s)
			defer srv.Close()
			var trace strings.Builder
			answer, err := run(t.Context(), config{
				Dir: dir, API: api, Model: "gpt-4.1-mini", BaseURL: srv.URL + "/v1/", APIKey: "test", Prompt: "What is here?", MaxTurns: 5,
			}, &trace)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(answer, `ls said: {"path":"/workspace","count":1,"entries":[{"name":"hello.txt","size":3,`) {
				t.Errorf("answer %q", answer)
			}
			if trace.String() != "ls "+lsArgs+"\n" {
				t.Errorf("trace %q", trace.String())
			}
			if len(s.bodies) != 2 {
				t.Fatalf("%d requests, want 2", len(s.bodies))
			}
			var tools []struct {
				Name     string
				Function struct{ Name string }
			}
			if err := json.Unmarshal(s.bodies[0]["tools"], &tools); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name+tool.Function.Name)
			}
			if got := strings.Join(names, " "); got != "read ls find grep write edit delete exec" {
				t.Errorf("declared tools %s", got)
			}
		})
	}
}
