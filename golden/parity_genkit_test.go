package golden_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"

	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// Arguments that are not JSON reach a Genkit tool, if at all, as a JSON
// string (compat_oai's streaming path passes the raw text as the input;
// its other path fails the model call), which core refuses as not an
// object, where the raw adapter says they are not JSON. Any other
// arguments reach core as the model sent them (adapters/genkit
// TestInvalidArgumentsThroughGenerate runs them through Generate).
const genkitNotJSON = "(the arguments reach the tool as a JSON string, which core refuses)"

// Genkit hands the model a tool response: its Output, a string (the
// text, the exact JSON text, or the text part of an image or PDF), and
// for an image or PDF a media part whose URL is a data: URI. As text:
// the Output, then a line with the media part's content type and URL.
func init() {
	frameworkAdapters = append(frameworkAdapters, paritytest.Adapter{
		Name: "genkit",
		Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
			set, err := agentgenkit.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]ai.Tool{}
			for _, gt := range set.All() {
				tools[gt.Name()] = gt
			}
			return func(t *testing.T, tool, args string) string {
				gt, ok := tools[tool]
				if !ok {
					t.Fatalf("genkit offers no tool %s", tool)
				}
				// The input as a model plugin decodes it.
				var input any
				if err := json.Unmarshal([]byte(args), &input); err != nil {
					input = args
				}
				ctx := t.Context()
				if refused(t, set.Executor(), tool, args) {
					// With no decision a call waiting for approval
					// interrupts; the case's answer, core's with no
					// decision, is the refusal, which a restart without
					// approval gives.
					_, err := gt.RunRawMultipart(ctx, input)
					if interrupted, meta := ai.IsToolInterruptError(err); !interrupted || meta["Tool"] != tool {
						t.Fatalf("%s: %v, want an interrupt for approval", tool, err)
					}
					ctx = core.WithApproval(ctx, false)
				}
				resp, err := gt.RunRawMultipart(ctx, input)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				text, ok := resp.Output.(string)
				if !ok {
					t.Errorf("%s: output %T, want a string", tool, resp.Output)
				}
				for _, p := range resp.Content {
					if !p.IsMedia() {
						t.Errorf("%s: a content part of kind %d", tool, p.Kind)
					}
					text += "\n" + p.ContentType + " " + p.Text
				}
				if !json.Valid([]byte(args)) {
					if want := toolspec.MsgArgumentsInvalid(tool, ""); !strings.HasPrefix(text, want) {
						t.Errorf("%s %s: %q, want core's refusal", tool, args, text)
					}
					return genkitNotJSON
				}
				return text
			}
		},
		Render: func(t *testing.T, args string, out toolspec.Output) string {
			if !json.Valid([]byte(args)) {
				return genkitNotJSON
			}
			switch out.Kind {
			case toolspec.OutputText, toolspec.OutputContent:
				if out.Media == nil {
					return out.Text
				}
				return out.Text + "\n" + out.Media.MediaType + " data:" + out.Media.MediaType + ";base64," + base64.StdEncoding.EncodeToString(out.Media.Data)
			case toolspec.OutputJSON:
				return string(out.JSON)
			case toolspec.OutputErrorText:
				return out.Text
			}
			t.Fatalf("output kind %q", out.Kind)
			return ""
		},
	})
}
