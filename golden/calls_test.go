package golden_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/paritytest"
)

// TestCalls runs the call cases of testdata/calls through the raw adapter
// on an in-memory workspace with the oracle's fixed clock, and pins each
// call's model output byte for byte.
func TestCalls(t *testing.T) {
	files, err := filepath.Glob("testdata/calls/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no call cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a := goldentest.Load(t, file)
			c := paritytest.ParseCallCase(t, a)
			tools, err := raw.New(c.Open(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range c.Calls {
				out, err := tools.Execute(t.Context(), call.Tool, []byte(call.Args))
				if err != nil {
					t.Fatalf("call %s: %v", call.Name, err)
				}
				a.Check(t, "want "+call.Name, string(raw.ModelOutput(out)))
			}
			a.Save(t, func(name string) bool { return !strings.HasPrefix(name, "want ") })
		})
	}
}
