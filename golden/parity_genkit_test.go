package golden_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	gcore "github.com/firebase/genkit/go/core"

	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// What the parity test compares for a call that Genkit's own input
// handling decides before the tool runs. Genkit checks every tool input
// against the tool's schema (gojsonschema) and refuses a violation with
// an INVALID_ARGUMENT error: the tool never runs, Generate fails, and
// the model sees nothing, neither core's message nor Genkit's. Genkit
// also drops null-valued fields before it checks, and the tool then runs
// without them (adapters/genkit TestInvalidArgumentsThroughGenerate pins
// what the model receives then). Arguments that are not JSON reach a
// Genkit tool, if at all, as a JSON string (compat_oai's streaming path
// passes the raw text as the input; its other path fails the model
// call), which the schema refuses.
const (
	genkitRefuses   = "(Genkit refuses the input; the tool does not run and Generate fails)"
	genkitDropsNull = "(Genkit drops the null arguments and runs the tool without them)"
)

// Genkit hands the model a tool response: its Output, a string (the
// text, the exact JSON text, or the text part of an image or PDF), and
// for an image or PDF a media part whose URL is a data: URI. As text:
// the Output, then a line with the media part's content type and URL.
func init() {
	frameworkAdapters = append(frameworkAdapters, frameworkAdapter{
		pkg: "genkit",
		open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
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
				resp, err := gt.RunRawMultipart(t.Context(), input)
				var gerr *gcore.GenkitError
				if errors.As(err, &gerr) && gerr.Status == gcore.INVALID_ARGUMENT {
					t.Logf("%s %s: Genkit refuses: %v", tool, args, err)
					return genkitRefuses
				}
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
				if hasNullField(input) {
					t.Logf("%s %s: Genkit ran it without the nulls: %q", tool, args, text)
					return genkitDropsNull
				}
				return text
			}
		},
		render: func(t *testing.T, args string, out toolspec.Output) string {
			switch out.Kind {
			case toolspec.OutputText, toolspec.OutputContent:
				if out.Media == nil {
					return out.Text
				}
				return out.Text + "\n" + out.Media.MediaType + " data:" + out.Media.MediaType + ";base64," + base64.StdEncoding.EncodeToString(out.Media.Data)
			case toolspec.OutputJSON:
				return string(out.JSON)
			case toolspec.OutputErrorText:
				return genkitErrorText(out.Text)
			}
			t.Fatalf("output kind %q", out.Kind)
			return ""
		},
	})
}

// genkitErrorText is what Genkit makes of an error text: core's
// invalid-arguments message stands for Genkit's refusal when a problem
// is one JSON Schema expresses, for a run without the null arguments
// when the only such problems are nulls of optional arguments, and
// reaches the model when every problem is an argument rule the schema
// cannot express. Any other error text reaches the model.
func genkitErrorText(text string) string {
	prefix, between, _ := strings.Cut(toolspec.MsgArgumentsInvalid("\x00", ""), "\x00")
	rest, ok := strings.CutPrefix(text, prefix)
	if !ok {
		return text
	}
	tool, problems, _ := strings.Cut(rest, between)
	info := toolspec.Tools[slices.IndexFunc(toolspec.Tools, func(i toolspec.ToolInfo) bool { return i.Name == tool })]
	result := text
	for _, p := range strings.Split(problems, toolspec.ArgumentsProblemSeparator) {
		if slices.ContainsFunc(info.Rules, func(r toolspec.Rule) bool { return r.Message == p }) {
			continue
		}
		// Every type problem ends ", got <value>"; a null is dropped,
		// and a required argument then is missing.
		name, _, _ := strings.Cut(p, " ")
		i := slices.IndexFunc(info.Params, func(param toolspec.Param) bool { return param.Name == name })
		if strings.HasSuffix(p, ", got null") && i >= 0 && (info.Params[i].Optional || info.Params[i].HasDefault) {
			result = genkitDropsNull
			continue
		}
		return genkitRefuses
	}
	return result
}

// hasNullField reports whether an input holds an object field whose
// value is null, at any depth: Genkit drops those.
func hasNullField(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, f := range v {
			if f == nil || hasNullField(f) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, hasNullField)
	}
	return false
}
