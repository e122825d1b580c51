package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/adapters/mcp"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"

	"example.com/overlay/tools"
)

// grepText is grep's description in agenttools.cue.
const grepText = "Search file contents; results give paths and line numbers."

// The calls the model makes: a read of a 600-line file (the overlay's
// 500-line default cuts it) and a grep.
const (
	bigFile  = "/workspace/big.txt"
	readArgs = `{"path":"` + bigFile + `"}`
	grepArgs = `{"query":"line 42"}`
)

// TestOverlayFile keeps grepText what agenttools.cue says, and the
// generated package what agenttools.cue says (go generate rewrites it).
func TestOverlayFile(t *testing.T) {
	src, err := os.ReadFile("agenttools.cue")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(strconv.Quote(grepText))) {
		t.Errorf("agenttools.cue does not set grep's description to %q", grepText)
	}
	if got := tools.Overlay.Tools["grep"].Description; got == nil || *got != grepText {
		t.Errorf("tools.Overlay sets grep's description to %v, want %q: run go generate ./...", got, grepText)
	}
	if got := tools.Overlay.Tools["read"].Limits["maxLines"]; got != 500 {
		t.Errorf("tools.Overlay sets read's maxLines to %d, want 500: run go generate ./...", got)
	}
}

// workspace is a workspace in memory holding bigFile, 600 numbered
// lines.
func workspace(t *testing.T) *vfs.Workspace {
	t.Helper()
	var text strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	ws := vfs.New(memfs.New())
	if err := ws.WriteFile(t.Context(), bigFile, []byte(text.String()), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// The sets compared: ours is the adapter with no overlay; ours500 the
// same with read's line cap set to 500 through Options, which is what the
// overlay's default must amount to (its description included).
var (
	oursOptions    = agenttools.Options{}
	ours500Options = agenttools.Options{Read: agenttools.ReadOptions{MaxLines: 500}}
)

// checkLines fails unless result holds the file's lines up to last and
// none after, then (last < 600) a continuation naming the next line.
func checkLines(t *testing.T, who, result string, last int) {
	t.Helper()
	lines := regexp.MustCompile(`line (\d+)`).FindAllStringSubmatchIndex(result, -1)
	if len(lines) != last || result[lines[last-1][2]:lines[last-1][3]] != strconv.Itoa(last) {
		t.Errorf("%s's read of the 600-line file does not stop at line %d:\n%s", who, last, result)
	} else if after := result[lines[last-1][1]:]; last < 600 && !strings.Contains(after, strconv.Itoa(last+1)) {
		t.Errorf("%s's read of the 600-line file stops at line %d without a continuation: %q", who, last, after)
	}
}

// only replaces old with new in data, and fails unless old occurs
// exactly once: what the overlay's model sees is ours with that one
// change.
func only(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(new)
	if c := bytes.Count(data, o); c != 1 {
		t.Fatalf("%s occurs %d times in %s, want once", o, c, data)
	}
	return bytes.Replace(data, o, n, 1)
}

// firstDifference shows where got and want part: the offset and up to
// 100 bytes of each from a little before it.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-40, 0)
	return fmt.Sprintf("at byte %d (-want +got):\n-%q\n+%q", i, want[from:min(from+100, len(want))], got[from:min(from+100, len(got))])
}

// fakeOpenAI is a local stand-in for OpenAI's chat API: it answers the
// nth request with replies[n] and keeps each request's body.
type fakeOpenAI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func serveOpenAI(t *testing.T, replies ...string) *fakeOpenAI {
	t.Helper()
	api := &fakeOpenAI{}
	api.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		api.mu.Lock()
		n := len(api.bodies)
		api.bodies = append(api.bodies, body)
		api.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[min(n, len(replies)-1)])
	}))
	t.Cleanup(api.Close)
	return api
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

// langchaingoSession runs langchaingo's functions agent in its executor
// with set's tools on the openai provider against a stand-in API, which
// has the model read bigFile, grep, then answer, and returns the three
// request bodies: the first with the tools as the model receives them,
// the next two ending with the read's and the grep's results.
func langchaingoSession(t *testing.T, set *langchaingo.Tools) [][]byte {
	t.Helper()
	api := serveOpenAI(t,
		openAIToolCall("call_read", "read", readArgs),
		openAIToolCall("call_grep", "grep", grepArgs),
		openAIAnswer("stop", map[string]any{"content": "done"}))
	llm, err := openai.New(openai.WithBaseURL(api.URL+"/v1"), openai.WithToken("test"), openai.WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	// WithDefinitions makes the functions agent send our exact schemas.
	agent := agents.NewOpenAIFunctionsAgent(langchaingo.WithDefinitions(llm, set.Definitions()), set.All())
	answer, err := chains.Run(t.Context(), agents.NewExecutor(agent, agents.WithMaxIterations(4)), "Look at big.txt.")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "done" {
		t.Fatalf("answer %q, want done", answer)
	}
	if len(api.bodies) != 3 {
		t.Fatalf("the API received %d requests, want 3", len(api.bodies))
	}
	return api.bodies
}

// sentTools are the functions of an OpenAI chat request body: name and
// description.
func sentTools(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	out := map[string]string{}
	for _, f := range req.Tools {
		out[f.Function.Name] = f.Function.Description
	}
	return out
}

// lastToolResult is the content of the last tool message of an OpenAI
// chat request body.
func lastToolResult(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i].Content
		}
	}
	t.Fatalf("no tool result in %s", body)
	return ""
}

// Through langchaingo's agent and executor and its openai provider, the
// model receives grep's description from agenttools.cue, read's saying
// 500 lines, and a read of 600 lines cut at 500 with a continuation; every
// other byte of every request is what the adapter sends with no overlay
// and read's line cap set to 500 through Options.
func TestLangchaingo(t *testing.T) {
	overlaid, err := tools.NewLangchaingo(workspace(t), agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := langchaingo.New(workspace(t), oursOptions)
	if err != nil {
		t.Fatal(err)
	}
	ours500, err := langchaingo.New(workspace(t), ours500Options)
	if err != nil {
		t.Fatal(err)
	}
	got, base, base500 := langchaingoSession(t, overlaid), langchaingoSession(t, ours), langchaingoSession(t, ours500)

	sent, oursSent := sentTools(t, got[0]), sentTools(t, base[0])
	if sent["grep"] != grepText {
		t.Errorf("grep's description %q, want agenttools.cue's %q", sent["grep"], grepText)
	}
	ourLines := strconv.FormatInt(toolspec.ReadMaxLinesDefault, 10)
	if want := strings.Replace(oursSent["read"], ourLines, "500", 1); sent["read"] != want || want == oursSent["read"] {
		t.Errorf("read's description %q, want ours with %s lines made 500: %q", sent["read"], ourLines, want)
	}
	checkLines(t, "ours", lastToolResult(t, base[1]), 600)
	checkLines(t, "the overlay", lastToolResult(t, got[1]), 500)
	for i := range got {
		if want := only(t, base500[i], oursSent["grep"], grepText); !bytes.Equal(got[i], want) {
			t.Errorf("request %d differs from ours beyond grep's description and read's line cap: %s", i+1, firstDifference(got[i], want))
		}
	}
}

// mcpSession serves server to a go-sdk client over in-memory transports
// and returns what the client lists and the read's and the grep's
// results, as JSON.
func mcpSession(t *testing.T, server *sdk.Server) (list, read, grep []byte) {
	t.Helper()
	ctx := t.Context()
	serverEnd, clientEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) []byte {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return marshal(t, res)
	}
	return marshal(t, tools), call("read", readArgs), call("grep", grepArgs)
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Through the MCP go-sdk client: tools/list gives grep's description from
// agenttools.cue and read's saying 500 lines, a read of 600 lines stops at
// 500 with a continuation, and everything else listed and answered is
// what the adapter serves with no overlay and read's line cap set to 500
// through Options.
func TestMCP(t *testing.T) {
	session := func(server *sdk.Server, err error) (list, read, grep []byte) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return mcpSession(t, server)
	}
	list, read, grep := session(tools.NewMCPServer(workspace(t), agenttools.Options{}, nil))
	oursList, oursRead, oursGrep := session(mcp.NewServer(workspace(t), oursOptions, nil))
	list500, read500, grep500 := session(mcp.NewServer(workspace(t), ours500Options, nil))

	var listed, oursListed sdk.ListToolsResult
	if err := json.Unmarshal(list, &listed); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(oursList, &oursListed); err != nil {
		t.Fatal(err)
	}
	descriptions := func(r sdk.ListToolsResult) map[string]string {
		out := map[string]string{}
		for _, tool := range r.Tools {
			out[tool.Name] = tool.Description
		}
		return out
	}
	got, ours := descriptions(listed), descriptions(oursListed)
	if got["grep"] != grepText {
		t.Errorf("grep's description %q, want agenttools.cue's %q", got["grep"], grepText)
	}
	ourLines := strconv.FormatInt(toolspec.ReadMaxLinesDefault, 10)
	if want := strings.Replace(ours["read"], ourLines, "500", 1); got["read"] != want || want == ours["read"] {
		t.Errorf("read's description %q, want ours with %s lines made 500: %q", got["read"], ourLines, want)
	}
	if want := only(t, list500, ours["grep"], grepText); !bytes.Equal(list, want) {
		t.Errorf("tools/list differs from ours beyond grep's description and read's line cap: %s", firstDifference(list, want))
	}

	var text struct {
		Content []struct{ Text string }
	}
	for _, c := range []struct {
		who    string
		result []byte
		last   int
	}{{"ours", oursRead, 600}, {"the overlay", read, 500}} {
		if err := json.Unmarshal(c.result, &text); err != nil || len(text.Content) == 0 {
			t.Fatalf("read answered %s (%v)", c.result, err)
		}
		checkLines(t, c.who, text.Content[0].Text, c.last)
	}
	if !bytes.Equal(read, read500) {
		t.Errorf("the overlay's read differs from ours with a 500-line cap: %s", firstDifference(read, read500))
	}
	if !bytes.Equal(grep, oursGrep) || !bytes.Equal(grep, grep500) {
		t.Errorf("the overlay's grep differs from ours: %s", firstDifference(grep, oursGrep))
	}
}
