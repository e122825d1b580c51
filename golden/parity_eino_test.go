package golden_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// eino hands the model the tool message a compose.ToolsNode builds: for
// ls, find, grep, write, edit, delete and read the invoked string as
// Content, read's image or PDF then attached by the set's MediaRewriter
// (the message becomes its text and media parts as
// UserInputMultiContent); for exec
// the concatenation of the streamed chunks as Content (the ToolsNode is
// streamed, as a streamed react agent runs it). As text: the Content, or
// each part in order, a text part as its text and a media part on a line
// of its own as [type mime-type base64].
func init() {
	frameworkAdapters = append(frameworkAdapters, paritytest.Adapter{
		Name: "eino",
		Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
			set, err := eino.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			node, err := compose.NewToolNode(t.Context(), &compose.ToolsNodeConfig{Tools: set.All()})
			if err != nil {
				t.Fatal(err)
			}
			attach := set.MediaRewriter()
			return func(t *testing.T, tool, args string) string {
				in := schema.AssistantMessage("", []schema.ToolCall{{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: tool, Arguments: args}}})
				ctx := t.Context()
				if refused(t, set.Executor(), tool, args) {
					// With no decision a call waiting for approval
					// interrupts; the case's answer, core's with no
					// decision, is the refusal, which a resume without
					// approval gives.
					_, err := node.Invoke(ctx, in)
					if _, interrupted := compose.IsInterruptRerunError(err); !interrupted {
						t.Fatalf("%s: %v, want an interrupt for approval", tool, err)
					}
					ctx = core.WithApproval(ctx, false)
				}
				var msgs []*schema.Message
				if tool == toolspec.ToolExec {
					msgs = streamToolsNode(t, ctx, node, in)
				} else if msgs, err = node.Invoke(ctx, in); err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				msgs = attach(t.Context(), msgs)
				if len(msgs) != 1 || msgs[0].Role != schema.Tool || msgs[0].ToolCallID != "call_1" || msgs[0].ToolName != tool {
					t.Fatalf("%s: tool messages %+v", tool, msgs)
				}
				return einoMessageText(msgs[0])
			}
		},
		Render: func(t *testing.T, args string, out toolspec.Output) string {
			switch out.Kind {
			case toolspec.OutputText, toolspec.OutputErrorText:
				return out.Text
			case toolspec.OutputJSON:
				return string(out.JSON)
			case toolspec.OutputContent:
				kind := "file_url"
				if strings.HasPrefix(out.Media.MediaType, "image/") {
					kind = "image_url"
				}
				return out.Text + "\n[" + kind + " " + out.Media.MediaType + " " + base64.StdEncoding.EncodeToString(out.Media.Data) + "]"
			}
			t.Fatalf("output kind %q", out.Kind)
			return ""
		},
	})
}

// streamToolsNode streams node on in and concatenates the chunks, as an
// eino graph does before the chat model node.
func streamToolsNode(t *testing.T, ctx context.Context, node *compose.ToolsNode, in *schema.Message) []*schema.Message {
	t.Helper()
	sr, err := node.Stream(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var chunks [][]*schema.Message
	for {
		c, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
	if len(chunks) == 1 {
		return chunks[0]
	}
	msgs, err := schema.ConcatMessageArray(chunks)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// einoMessageText is a tool message as text (see init).
func einoMessageText(msg *schema.Message) string {
	if len(msg.UserInputMultiContent) == 0 {
		return msg.Content
	}
	var parts []string
	for _, p := range msg.UserInputMultiContent {
		var common schema.MessagePartCommon
		switch {
		case p.Type == schema.ChatMessagePartTypeText:
			parts = append(parts, p.Text)
			continue
		case p.Image != nil:
			common = p.Image.MessagePartCommon
		case p.File != nil:
			common = p.File.MessagePartCommon
		}
		data := "<no data>"
		if common.Base64Data != nil {
			data = *common.Base64Data
		}
		parts = append(parts, "["+string(p.Type)+" "+common.MIMEType+" "+data+"]")
	}
	return strings.Join(parts, "\n")
}
