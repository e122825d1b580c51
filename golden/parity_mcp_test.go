package golden_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools/adapters/mcp/mcptest"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// mcpNotJSON is what the parity test compares for arguments that are not
// JSON: a tools/call request carries its arguments as a JSON object, so
// no client can send them.
const mcpNotJSON = "(not JSON: an MCP request cannot carry it)"

// MCP hands the client a CallToolResult. As text: each content, a text
// as it is, an image as "[image MIME BASE64]", an embedded resource as
// "[resource URI MIME BASE64]", one per line, and "[isError]" first when
// the result is a failure.
func init() {
	frameworkAdapters = append(frameworkAdapters, paritytest.Adapter{
		Name: "mcp",
		Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
			cs := mcptest.Connect(t, ws, opts, nil)
			return func(t *testing.T, tool, args string) string {
				params := &sdk.CallToolParams{Name: tool}
				switch {
				case strings.TrimSpace(args) == "":
					// No arguments at all.
				case !json.Valid([]byte(args)):
					return mcpNotJSON
				default:
					params.Arguments = json.RawMessage(args)
				}
				res, err := cs.CallTool(t.Context(), params)
				if err != nil {
					t.Fatalf("%s %s: %v", tool, args, err)
				}
				var lines []string
				if res.IsError {
					lines = append(lines, "[isError]")
				}
				for _, c := range res.Content {
					switch c := c.(type) {
					case *sdk.TextContent:
						lines = append(lines, c.Text)
					case *sdk.ImageContent:
						lines = append(lines, "[image "+c.MIMEType+" "+base64.StdEncoding.EncodeToString(c.Data)+"]")
					case *sdk.EmbeddedResource:
						lines = append(lines, "[resource "+c.Resource.URI+" "+c.Resource.MIMEType+" "+base64.StdEncoding.EncodeToString(c.Resource.Blob)+"]")
					default:
						t.Fatalf("%s: content %T", tool, c)
					}
				}
				return strings.Join(lines, "\n")
			}
		},
		Render: func(t *testing.T, args string, out toolspec.Output) string {
			if strings.TrimSpace(args) != "" && !json.Valid([]byte(args)) {
				return mcpNotJSON
			}
			var lines []string
			if out.IsError() {
				lines = append(lines, "[isError]")
			}
			switch out.Kind {
			case toolspec.OutputJSON:
				lines = append(lines, string(out.JSON))
			case toolspec.OutputText, toolspec.OutputErrorText:
				lines = append(lines, out.Text)
			case toolspec.OutputContent:
				lines = append(lines, out.Text)
				data := base64.StdEncoding.EncodeToString(out.Media.Data)
				if strings.HasPrefix(out.Media.MediaType, "image/") {
					lines = append(lines, "[image "+out.Media.MediaType+" "+data+"]")
				} else {
					lines = append(lines, "[resource file://"+out.Media.Path+" "+out.Media.MediaType+" "+data+"]")
				}
			}
			return strings.Join(lines, "\n")
		},
	})
}
