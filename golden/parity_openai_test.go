package golden_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttools/agenttools/adapters/openai"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// openai hands the model, for one call, what the loop sends after it,
// as the request JSON of each API; the parity test runs each API on its
// own copy of the workspace, under the names "openai" (Chat
// Completions) and "openai/responses".
//
// Chat Completions (with MediaMessage): the tool message's content, a
// string, and for an image or PDF a user message after it with one
// part, an image_url (a data: URI) or a file (filename, file_data a data:
// URI). As text: the content, then a line per media part, [image_url
// URL] or [file filename data].
//
// The Responses API: the function_call_output's output, a string, or for
// an image or PDF an input_text part and an input_image or input_file
// part. As text: the string or the input_text's text, then a line for
// the other part, [input_image URL] or [input_file filename data].
func init() {
	frameworkAdapters = append(frameworkAdapters,
		openaiParity("openai", openaiChatTurn, "image_url", "file"),
		openaiParity("openai/responses", openaiResponsesTurn, "input_image", "input_file"))
}

// openaiParity is the parity entry name of the API that run calls,
// whose media parts are rendered as [image ...] and [file ...].
func openaiParity(name string, run func(t *testing.T, set *openai.Tools, tool, args string) string, image, file string) paritytest.Adapter {
	return paritytest.Adapter{
		Name: name,
		Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
			set, err := openai.New(ws, opts, openai.MediaMessage())
			if err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T, tool, args string) string { return run(t, set, tool, args) }
		},
		Render: func(t *testing.T, args string, out toolspec.Output) string {
			if out.Kind == toolspec.OutputJSON {
				return string(out.JSON)
			}
			if out.Kind != toolspec.OutputContent || out.Media == nil {
				return out.Text
			}
			uri := "data:" + out.Media.MediaType + ";base64," + base64.StdEncoding.EncodeToString(out.Media.Data)
			if strings.HasPrefix(out.Media.MediaType, "image/") {
				return out.Text + "\n[" + image + " " + uri + "]"
			}
			return out.Text + "\n[" + file + " " + out.Media.Filename + " " + uri + "]"
		},
	}
}

// openaiChatTurn runs the call through ChatTurn, in an assistant message
// decoded as the SDK decodes a completion's, and returns the messages it
// gives as text (see init).
func openaiChatTurn(t *testing.T, set *openai.Tools, tool, args string) string {
	t.Helper()
	call, err := json.Marshal(map[string]any{"id": "call_1", "type": "function", "function": map[string]string{"name": tool, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	var msg oai.ChatCompletionMessage
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[`+string(call)+`]}`), &msg); err != nil {
		t.Fatal(err)
	}
	msgs, err := set.ChatTurn(t.Context(), msg)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(msgs) == 0 || len(msgs) > 2 {
		t.Fatalf("%s: %d messages", tool, len(msgs))
	}
	var toolMsg struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Content    any    `json:"content"`
	}
	decodeParam(t, msgs[0], &toolMsg)
	content, ok := toolMsg.Content.(string)
	if toolMsg.Role != "tool" || toolMsg.ToolCallID != "call_1" || !ok {
		t.Fatalf("%s: tool message %+v", tool, toolMsg)
	}
	text := content
	if len(msgs) == 2 {
		var user struct {
			Role    string `json:"role"`
			Content []struct {
				Type     string `json:"type"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
				File struct {
					Filename string `json:"filename"`
					FileData string `json:"file_data"`
				} `json:"file"`
			} `json:"content"`
		}
		decodeParam(t, msgs[1], &user)
		if user.Role != "user" {
			t.Fatalf("%s: second message %+v", tool, user)
		}
		for _, p := range user.Content {
			switch p.Type {
			case "image_url":
				text += "\n[image_url " + p.ImageURL.URL + "]"
			case "file":
				text += "\n[file " + p.File.Filename + " " + p.File.FileData + "]"
			default:
				t.Fatalf("%s: user message part %q", tool, p.Type)
			}
		}
	}
	return text
}

// openaiResponsesTurn runs the call through ResponsesTurn, in a response
// decoded as the SDK decodes one, and returns the output item it gives
// as text (see init).
func openaiResponsesTurn(t *testing.T, set *openai.Tools, tool, args string) string {
	t.Helper()
	item, err := json.Marshal(map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": tool, "arguments": args, "status": "completed"})
	if err != nil {
		t.Fatal(err)
	}
	var resp responses.Response
	if err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","status":"completed","output":[`+string(item)+`]}`), &resp); err != nil {
		t.Fatal(err)
	}
	items, err := set.ResponsesTurn(t.Context(), &resp)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(items) != 1 {
		t.Fatalf("%s: %d items", tool, len(items))
	}
	var out struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	decodeParam(t, items[0], &out)
	if out.Type != "function_call_output" || out.CallID != "call_1" {
		t.Fatalf("%s: item %+v", tool, out)
	}
	var s string
	if json.Unmarshal(out.Output, &s) == nil {
		return s
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
		Filename string `json:"filename"`
		FileData string `json:"file_data"`
	}
	if err := json.Unmarshal(out.Output, &parts); err != nil || len(parts) != 2 || parts[0].Type != "input_text" {
		t.Fatalf("%s: output %s (%v)", tool, out.Output, err)
	}
	text := parts[0].Text
	switch parts[1].Type {
	case "input_image":
		text += "\n[input_image " + parts[1].ImageURL + "]"
	case "input_file":
		text += "\n[input_file " + parts[1].Filename + " " + parts[1].FileData + "]"
	default:
		t.Fatalf("%s: output part %q", tool, parts[1].Type)
	}
	return text
}

// decodeParam decodes v's JSON, as the SDK sends it, into dst.
func decodeParam(t *testing.T, v any, dst any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}
