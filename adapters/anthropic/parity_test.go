package anthropic_test

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttools/agenttools/adapters/anthropic"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// notJSON is what the parity test compares for arguments that are not a
// JSON value (blank ones too): a tool_use block carries its input as
// JSON, so the API never hands a program such arguments.
const notJSON = "(not JSON: a tool_use block cannot carry it)"

// TestAdapterParity runs every golden call (golden/testdata/calls) through
// the adapter, as golden's TestAdapterParity does for the adapters of the
// main module: the tool_use block decoded by the SDK from the API's JSON,
// Execute's tool_result encoded by the SDK as a request carries it. As
// text: "is_error: <value>" (absent when the block has none), then each
// content block: a text as it is, an image as "[image MIME BASE64]", a
// document as "[document MIME BASE64]", one per line.
func TestAdapterParity(t *testing.T) {
	paritytest.Run(t, messagesParity, betaMessagesParity, toolRunnerParity)
}

var messagesParity = paritytest.Adapter{
	Name: "anthropic",
	Open: openExecute(func(t *testing.T, set *anthropic.Tools, block []byte) (any, error) {
		var b sdk.ToolUseBlock
		if err := json.Unmarshal(block, &b); err != nil {
			t.Fatal(err)
		}
		return set.Execute(t.Context(), b)
	}),
	Render: renderExecute,
}

// betaMessagesParity is messagesParity through ExecuteBeta, for a loop on
// the beta Messages API: the same results.
var betaMessagesParity = paritytest.Adapter{
	Name: "anthropic-beta",
	Open: openExecute(func(t *testing.T, set *anthropic.Tools, block []byte) (any, error) {
		var b sdk.BetaToolUseBlock
		if err := json.Unmarshal(block, &b); err != nil {
			t.Fatal(err)
		}
		return set.ExecuteBeta(t.Context(), b)
	}),
	Render: renderExecute,
}

// openExecute is the parity Open of a set's Execute or ExecuteBeta:
// execute decodes the tool_use block (the API's JSON) and answers it; the
// tool_result is read as the SDK encodes it into a request.
func openExecute(execute func(t *testing.T, set *anthropic.Tools, block []byte) (any, error)) func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
	return func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
		set, err := anthropic.New(ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		return func(t *testing.T, tool, args string) string {
			if !json.Valid([]byte(args)) {
				return notJSON
			}
			r, err := execute(t, set, []byte(`{"type":"tool_use","id":"toolu_01","name":`+strconv.Quote(tool)+`,"input":`+args+`}`))
			if err != nil {
				t.Fatalf("%s %s: %v", tool, args, err)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			sent := decodeResult(t, data)
			if sent.Type != "tool_result" || sent.ToolUseID != "toolu_01" {
				t.Errorf("%s %s: %s", tool, args, data)
			}
			return renderSent(sent)
		}
	}
}

// renderExecute is the raw adapter's output out as Execute must answer
// it, in renderSent's text.
func renderExecute(t *testing.T, args string, out toolspec.Output) string {
	if !json.Valid([]byte(args)) {
		return notJSON
	}
	lines := []string{"is_error: " + strconv.FormatBool(out.IsError()), out.AsText()}
	if out.HasMedia() {
		kind := "document"
		if strings.HasPrefix(out.Media.MediaType, "image/") {
			kind = "image"
		}
		lines = append(lines, "["+kind+" "+out.Media.MediaType+" "+base64.StdEncoding.EncodeToString(out.Media.Data)+"]")
	}
	return strings.Join(lines, "\n")
}

// renderSent is a sent tool_result as the parity test's text.
func renderSent(r resultBlock) string {
	isError := "absent"
	if r.IsError != nil {
		isError = strconv.FormatBool(*r.IsError)
	}
	lines := []string{"is_error: " + isError}
	for _, c := range r.Content {
		switch {
		case c.Type == "text" && c.Text != nil && c.Source == nil:
			lines = append(lines, *c.Text)
		case c.Source != nil && c.Source.Type == "base64" && c.Text == nil:
			lines = append(lines, "["+c.Type+" "+c.Source.MediaType+" "+c.Source.Data+"]")
		default:
			lines = append(lines, "[unexpected block "+mustJSON(c)+"]")
		}
	}
	return strings.Join(lines, "\n")
}

// toolRunnerParity runs each call through the SDK's beta tool runner
// (RunToCompletion against a stand-in API that asks for the call, then
// answers) with the set's BetaTools, and reads the tool_result from the
// request that answers it. The runner flags a failure only by a tool's Go
// error, which it sends after "Error: ": a failure is "is_error: true" and
// that text; other results have no is_error.
var toolRunnerParity = paritytest.Adapter{
	Name: "anthropic-toolrunner",
	Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
		set, err := anthropic.New(ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		api := newAPI(t)
		client := api.client()
		return func(t *testing.T, tool, args string) string {
			if !json.Valid([]byte(args)) {
				return notJSON
			}
			api.replay(
				json.RawMessage(`{"id":"msg_01","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_01","name":`+strconv.Quote(tool)+`,"input":`+args+`}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`),
				json.RawMessage(`{"id":"msg_02","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`))
			runner := client.Beta.Messages.NewToolRunner(set.BetaTools(), sdk.BetaToolRunnerParams{
				BetaMessageNewParams: sdk.BetaMessageNewParams{Model: model, MaxTokens: 1024,
					Messages: []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("go"))}},
			})
			if _, err := runner.RunToCompletion(t.Context()); err != nil {
				t.Fatalf("%s %s: %v", tool, args, err)
			}
			sent, _ := results(t, api.requests(t))
			return renderSent(decodeResult(t, sent["toolu_01"]))
		}
	},
	Render: func(t *testing.T, args string, out toolspec.Output) string {
		if !json.Valid([]byte(args)) {
			return notJSON
		}
		if out.IsError() {
			return "is_error: true\nError: " + out.AsText()
		}
		return strings.Replace(messagesParity.Render(t, args, out), "is_error: false", "is_error: absent", 1)
	},
}
