package golden_test

import (
	"testing"

	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// langchaingo hands the model the string Call returns: the text, the
// JSON, or the text part of an image or PDF.
func init() {
	frameworkAdapters = append(frameworkAdapters, paritytest.Adapter{
		Name: "langchaingo",
		Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
			set, err := langchaingo.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T, tool, args string) string {
				for _, lt := range set.All() {
					if lt.Name() == tool {
						got, err := lt.Call(t.Context(), args)
						if err != nil {
							t.Fatalf("%s: %v", tool, err)
						}
						return got
					}
				}
				t.Fatalf("langchaingo offers no tool %s", tool)
				return ""
			}
		},
		Render: func(t *testing.T, args string, out toolspec.Output) string {
			switch out.Kind {
			case toolspec.OutputText, toolspec.OutputErrorText, toolspec.OutputContent:
				return out.Text
			case toolspec.OutputJSON:
				return string(out.JSON)
			}
			t.Fatalf("output kind %q", out.Kind)
			return ""
		},
	})
}
