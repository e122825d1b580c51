package langchaingo_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/bedrock"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/googleai/vertex"
	"github.com/tmc/langchaingo/llms/mistral"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
	"google.golang.org/api/option"

	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// fakeAPI is a local stand-in for a provider's HTTP API: it answers the
// nth request with replies[n] (the last one again after that) and keeps
// each request's path and body.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	paths  []string
	bodies [][]byte
}

func serveAPI(t *testing.T, replies ...string) *fakeAPI {
	t.Helper()
	api := &fakeAPI{}
	api.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		api.mu.Lock()
		n := len(api.bodies)
		api.paths = append(api.paths, r.URL.Path)
		api.bodies = append(api.bodies, body)
		api.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[min(n, len(replies)-1)])
	}))
	t.Cleanup(api.Close)
	return api
}

// only is the one request the agent made.
func (api *fakeAPI) only(t *testing.T) (string, []byte) {
	t.Helper()
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.bodies) != 1 {
		t.Fatalf("the API received %d requests (%v), want 1", len(api.bodies), api.paths)
	}
	return api.paths[0], api.bodies[0]
}

// The providers' answers: a final text, so the executor stops after one
// request.
const (
	openAIReply    = `{"id":"r1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	anthropicReply = `{"id":"r1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	geminiReply    = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
	ollamaReply    = `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"ok"},"done":true}`
)

// newSet is our tool set over the session's workspace.
func newSet(t *testing.T) *langchaingo.Tools {
	t.Helper()
	ws, opts := agentcase.Workspace(t)
	set, err := langchaingo.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// openAIModel is langchaingo's openai provider talking to api.
func openAIModel(t *testing.T, api *fakeAPI) llms.Model {
	t.Helper()
	llm, err := openai.New(openai.WithBaseURL(api.URL+"/v1"), openai.WithToken("test"), openai.WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

// runExecutor runs agent in langchaingo's executor on input and checks
// its answer.
func runExecutor(t *testing.T, agent agents.Agent, input, want string) {
	t.Helper()
	answer, err := chains.Run(t.Context(), agents.NewExecutor(agent, agents.WithMaxIterations(4)), input)
	if err != nil {
		t.Fatal(err)
	}
	if answer != want {
		t.Fatalf("answer %q, want %q", answer, want)
	}
}

// provider is one of langchaingo's providers under test: how to build it
// against a stand-in API, what the stand-in answers, where the request
// goes and how its body lists the tools.
type provider struct {
	name  string
	reply string
	path  string
	model func(t *testing.T, url string) (llms.Model, error)
	tools func(t *testing.T, body []byte) []sentTool
}

// request runs langchaingo's functions agent in its executor over the
// session's workspace, on p's model wrapped by WithDefinitions, to its
// answer, and returns our tool set and the one request body the API
// received. The agent has our tools, then extra.
func (p provider) request(t *testing.T, extra ...tools.Tool) (*langchaingo.Tools, []byte) {
	t.Helper()
	api := serveAPI(t, p.reply)
	llm, err := p.model(t, api.URL)
	if err != nil {
		t.Fatal(err)
	}
	set := newSet(t)
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(llm, set.Definitions()), append(set.All(), extra...))
	runExecutor(t, agent, "hi", "ok")
	path, body := api.only(t)
	if path != p.path {
		t.Errorf("request to %s, want %s", path, p.path)
	}
	return set, body
}

// sentTool is one tool of a request body: its name and its schema as
// the body spells it.
type sentTool struct {
	Name   string
	Schema json.RawMessage
}

// functionTools are the tools of a body in OpenAI's form (openai,
// mistral): {"tools":[{"function":{"name","parameters"}}]}.
func functionTools(t *testing.T, body []byte) []sentTool {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	var out []sentTool
	for _, tool := range req.Tools {
		out = append(out, sentTool{tool.Function.Name, tool.Function.Parameters})
	}
	return out
}

// inputSchemaTools are the tools of a body in Anthropic's form
// (anthropic, bedrock's Anthropic models): {"tools":[{"name","input_schema"}]}.
func inputSchemaTools(t *testing.T, body []byte) []sentTool {
	t.Helper()
	var req struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	var out []sentTool
	for _, tool := range req.Tools {
		out = append(out, sentTool{tool.Name, tool.InputSchema})
	}
	return out
}

// geminiTools are the function declarations of a Gemini request body
// (googleai, vertex: {"tools":[{"functionDeclarations":[{"name","parameters"}]}]}).
func geminiTools(t *testing.T, body []byte) []sentTool {
	t.Helper()
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	var out []sentTool
	for _, tool := range req.Tools {
		for _, fd := range tool.FunctionDeclarations {
			out = append(out, sentTool{fd.Name, fd.Parameters})
		}
	}
	return out
}

// checkExact checks that the request sent each of set's tools, in order,
// with its exact schema bytes.
func checkExact(t *testing.T, set *langchaingo.Tools, sent []sentTool) {
	t.Helper()
	tools := set.All()
	if len(sent) != len(tools) {
		t.Fatalf("the request has %d tools, want %d", len(sent), len(tools))
	}
	for i, tool := range tools {
		want := tool.(*langchaingo.Tool).Definition().Function.Parameters.(json.RawMessage)
		if sent[i].Name != tool.Name() || !bytes.Equal(sent[i].Schema, want) {
			t.Errorf("tool %d: sent %s %s\nwant %s %s", i, sent[i].Name, sent[i].Schema, tool.Name(), want)
		}
	}
}

// Providers that send a schema as it is get our exact bytes, in the
// spec's key order, from WithDefinitions in langchaingo's executor; each
// provider's client talks to a local stand-in for its API.
func TestProvidersSendExactSchemas(t *testing.T) {
	const bedrockModel = "anthropic.claude-3-haiku-20240307-v1:0"
	for _, p := range []provider{{
		name: "openai", reply: openAIReply, path: "/v1/chat/completions", tools: functionTools,
		model: func(t *testing.T, url string) (llms.Model, error) {
			return openai.New(openai.WithBaseURL(url+"/v1"), openai.WithToken("test"), openai.WithModel("m"))
		},
	}, {
		name: "mistral", reply: openAIReply, path: "/v1/chat/completions", tools: functionTools,
		model: func(t *testing.T, url string) (llms.Model, error) {
			return mistral.New(mistral.WithEndpoint(url), mistral.WithAPIKey("test"), mistral.WithModel("m"), mistral.WithMaxRetries(0))
		},
	}, {
		name: "anthropic", reply: anthropicReply, path: "/v1/messages", tools: inputSchemaTools,
		model: func(t *testing.T, url string) (llms.Model, error) {
			return anthropic.New(anthropic.WithBaseURL(url+"/v1"), anthropic.WithToken("test"), anthropic.WithModel("m"))
		},
	}, {
		name: "bedrock", reply: anthropicReply, path: "/model/" + bedrockModel + "/invoke", tools: inputSchemaTools,
		model: func(t *testing.T, url string) (llms.Model, error) {
			client := bedrockruntime.New(bedrockruntime.Options{
				Region:       "us-east-1",
				Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
				BaseEndpoint: aws.String(url),
			})
			return bedrock.New(bedrock.WithClient(client), bedrock.WithModel(bedrockModel))
		},
	}} {
		t.Run(p.name, func(t *testing.T) {
			set, body := p.request(t)
			checkExact(t, set, p.tools(t, body))
		})
	}
}

// langchaingo's ollama provider (v0.1.14) builds its chat request without
// tools: it reads neither llms.WithTools nor llms.WithFunctions, so no
// schema, ours or the agent's, reaches Ollama through it. The request is
// built and answered all the same. Should a later langchaingo send them,
// this test fails, to be turned into an exact-bytes check.
func TestOllamaSendsNoTools(t *testing.T) {
	p := provider{name: "ollama", reply: ollamaReply, path: "/api/chat", model: func(t *testing.T, url string) (llms.Model, error) {
		return ollama.New(ollama.WithServerURL(url), ollama.WithModel("m"))
	}}
	_, body := p.request(t)
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if _, ok := req["messages"]; !ok {
		t.Errorf("no messages in %s", body)
	}
	for key, v := range req {
		if strings.Contains(key, "tool") || strings.Contains(key, "function") || bytes.Contains(v, []byte("__arg1")) || bytes.Contains(v, []byte(`"properties"`)) {
			t.Errorf("the ollama request now carries %s: %s; check its schemas byte for byte", key, v)
		}
	}
}

// geminiTypes are Gemini's type names by their enum number, which
// vertex's REST client sends instead of the name.
var geminiTypes = []string{"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}

// checkGemini checks what a Gemini request says of one of our schemas
// (both decoded), as far as the provider keeps it: the type (Gemini's
// upper-case name), the description and required; properties and items
// for levels more levels (-1: all). A string-or-list argument (anyOf) is
// a list of strings.
func checkGemini(t *testing.T, where string, ours, sent map[string]any, levels int) {
	t.Helper()
	for key := range sent {
		if !slices.Contains([]string{"type", "description", "properties", "items", "required"}, key) {
			t.Errorf("%s: sent %s, which the provider does not keep", where, key)
		}
	}
	if alts, ok := ours["anyOf"].([]any); ok {
		ours = map[string]any{"description": ours["description"], "type": "array", "items": alts[1].(map[string]any)["items"]}
	}
	typ := sent["type"]
	if n, ok := typ.(float64); ok && int(n) < len(geminiTypes) {
		typ = geminiTypes[int(n)]
	}
	if want, _ := ours["type"].(string); typ != strings.ToUpper(want) {
		t.Errorf("%s: type %v, want %q", where, sent["type"], strings.ToUpper(want))
	}
	if sent["description"] != ours["description"] {
		t.Errorf("%s: description %q, want %q", where, sent["description"], ours["description"])
	}
	if want, _ := json.Marshal(ours["required"]); ours["required"] != nil {
		if got, _ := json.Marshal(sent["required"]); !bytes.Equal(got, want) {
			t.Errorf("%s: required %s, want %s", where, got, want)
		}
	}
	if levels == 0 {
		for _, key := range []string{"properties", "items"} {
			if sent[key] != nil {
				t.Errorf("%s: %s sent, which the provider does not keep at this level", where, key)
			}
		}
		return
	}
	props, _ := ours["properties"].(map[string]any)
	sentProps, _ := sent["properties"].(map[string]any)
	if len(props) != len(sentProps) {
		t.Errorf("%s: %d properties sent, want %d", where, len(sentProps), len(props))
	}
	for name, p := range props {
		sp, ok := sentProps[name].(map[string]any)
		if !ok {
			t.Errorf("%s: property %s not sent", where, name)
			continue
		}
		checkGemini(t, where+"."+name, p.(map[string]any), sp, levels-1)
	}
	if items, ok := ours["items"].(map[string]any); ok {
		si, _ := sent["items"].(map[string]any)
		checkGemini(t, where+"[]", items, si, levels-1)
	}
}

// checkGoogle checks that the request declared each of set's tools, in
// order, with the meaning of its schema that the provider keeps, then the
// calculator the agent was given too, in the agent's one-string form.
func checkGoogle(t *testing.T, set *langchaingo.Tools, sent []sentTool, levels int) {
	t.Helper()
	tools := set.All()
	if len(sent) != len(tools)+1 {
		t.Fatalf("the request has %d function declarations, want %d", len(sent), len(tools)+1)
	}
	calc := sent[len(tools)]
	var got map[string]any
	if err := json.Unmarshal(calc.Schema, &got); err != nil {
		t.Fatal(err)
	}
	agentForm := map[string]any{"type": "object", "required": []any{"__arg1"}, "properties": map[string]any{"__arg1": map[string]any{"type": "string"}}}
	if calc.Name != "calculator" {
		t.Errorf("last declaration %s, want calculator", calc.Name)
	}
	checkGemini(t, calc.Name, agentForm, got, levels)
	for i, tool := range tools {
		if sent[i].Name != tool.Name() {
			t.Errorf("declaration %d is %s, want %s", i, sent[i].Name, tool.Name())
		}
		var ours, got map[string]any
		if err := json.Unmarshal(tool.(*langchaingo.Tool).Definition().Function.Parameters.(json.RawMessage), &ours); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sent[i].Schema, &got); err != nil {
			t.Fatalf("%s: %v in %s", tool.Name(), err, sent[i].Schema)
		}
		checkGemini(t, tool.Name(), ours, got, levels)
	}
}

// Google's providers take a map of part of JSON Schema; WithDefinitions
// sees them under the agent and hands them that, so the request declares
// every tool, ours and the agent's calculator, with the meaning the
// provider keeps: googleai all of type,
// description, properties, items and required, at every level; vertex
// the top level's properties (their type and description) and required.
func TestGoogleProvidersSendSchemaMeaning(t *testing.T) {
	for _, c := range []struct {
		provider
		levels int
	}{{
		// googleai streams the answer: a JSON array of responses.
		provider: provider{name: "googleai", reply: "[" + geminiReply + "]", path: "/v1beta/models/m:streamGenerateContent", tools: geminiTools,
			model: func(t *testing.T, url string) (llms.Model, error) {
				return googleai.New(t.Context(), googleai.WithAPIKey("test"), googleai.WithDefaultModel("m"), withEndpoint(url, false))
			}},
		levels: -1,
	}, {
		provider: provider{name: "vertex", reply: geminiReply, path: "/v1beta1/projects/p/locations/l/publishers/google/models/m:generateContent", tools: geminiTools,
			model: func(t *testing.T, url string) (llms.Model, error) {
				return vertex.New(t.Context(), googleai.WithRest(), googleai.WithCloudProject("p"), googleai.WithCloudLocation("l"),
					googleai.WithDefaultModel("m"), withEndpoint(url, true))
			}},
		levels: 1,
	}} {
		t.Run(c.name, func(t *testing.T) {
			set, body := c.request(t, tools.Calculator{})
			checkGoogle(t, set, c.tools(t, body), c.levels)
		})
	}
}

// withEndpoint points a Google provider's client at url; anonymous
// leaves out credentials (vertex, which would look for the machine's).
func withEndpoint(url string, anonymous bool) googleai.Option {
	return func(o *googleai.Options) {
		o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(url))
		if anonymous {
			o.ClientOptions = append(o.ClientOptions, option.WithoutAuthentication())
		}
	}
}

// openAIAnswer is an OpenAI chat answer with message, finished for
// reason.
func openAIAnswer(reason string, message map[string]any) string {
	message["role"] = "assistant"
	answer, _ := json.Marshal(map[string]any{
		"id": "r", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": reason, "message": message}},
	})
	return string(answer)
}

// openAIToolCall is an OpenAI chat answer that calls tool with args.
func openAIToolCall(id, tool, args string) string {
	return openAIAnswer("tool_calls", map[string]any{
		"content":    "",
		"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tool, "arguments": args}}},
	})
}

// openAIText is an OpenAI chat answer whose message is text.
func openAIText(text string) string {
	return openAIAnswer("stop", map[string]any{"content": text})
}

// WithDefinitions merges with the agent's own tools: given our tools and
// langchaingo's calculator, the functions agent sends them all (ours with
// their exact schemas, the calculator in the agent's __arg1 form), and
// the model can call both.
func TestDefinitionsMergeWithAgentTools(t *testing.T) {
	api := serveAPI(t,
		openAIToolCall("call_calc", "calculator", `{"__arg1":"6*7"}`),
		openAIToolCall("call_read", "read", agentcase.ReadArgs),
		openAIReply)
	set := newSet(t)
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(openAIModel(t, api), set.Definitions()), append(set.All(), tools.Calculator{}))
	runExecutor(t, agent, "What is 6*7, and what do the notes say?", "ok")
	if len(api.bodies) != 3 {
		t.Fatalf("the API received %d requests, want 3", len(api.bodies))
	}
	for i, body := range api.bodies {
		sent := functionTools(t, body)
		ours := len(set.All())
		if len(sent) != ours+1 {
			t.Fatalf("request %d: %d tools sent, want %d", i+1, len(sent), ours+1)
		}
		checkExact(t, set, sent[:ours])
		calc := sent[ours]
		if calc.Name != "calculator" || !bytes.Contains(calc.Schema, []byte(`"__arg1"`)) {
			t.Errorf("request %d: last tool %s %s, want the calculator in the agent's __arg1 form", i+1, calc.Name, calc.Schema)
		}
	}
	if got := agentcase.ChatToolMessages(t, api.bodies[1])["call_calc"]; got != "42" {
		t.Errorf("the calculator answered %q, want 42", got)
	}
	read, _ := set.Read()
	want, err := read.Call(t.Context(), agentcase.ReadArgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := agentcase.ChatToolMessages(t, api.bodies[2])["call_read"]; got != want || !strings.Contains(got, "status: draft") {
		t.Errorf("read answered %q, want %q", got, want)
	}
}
