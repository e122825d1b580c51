package paritytest_test

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/toolspec"
)

// rawAdapter puts the raw adapter itself under the parity test; broken,
// it renders every output with one byte more than the adapter gives.
func rawAdapter(broken bool) paritytest.Adapter {
	render := func(t *testing.T, args string, out toolspec.Output) string { return string(raw.ModelOutput(out)) }
	return paritytest.Adapter{
		Name: "raw",
		Open: func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string {
			tools, err := raw.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T, tool, args string) string {
				out, err := tools.Execute(t.Context(), tool, []byte(args))
				if err != nil {
					t.Fatal(err)
				}
				return render(t, args, out)
			}
		},
		Render: func(t *testing.T, args string, out toolspec.Output) string {
			if broken {
				return render(t, args, out) + "x"
			}
			return render(t, args, out)
		},
	}
}

// Run finds the golden call cases from a package outside golden (as a
// nested module's test does) and passes an adapter that gives what its
// Render says; one that does not fails every call, with the first
// differences printed and the rest counted.
func TestRun(t *testing.T) {
	if os.Getenv("PARITYTEST_BROKEN") != "" {
		paritytest.Run(t, rawAdapter(true))
		return
	}
	paritytest.Run(t, rawAdapter(false))

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestRun$")
	cmd.Env = append(os.Environ(), "PARITYTEST_BROKEN=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the broken adapter passed:\n%s", out)
	}
	shown := regexp.MustCompile(`(?m)^\s+paritytest\.go:\d+: call `).FindAll(out, -1)
	if len(shown) != paritytest.MaxFailures || !regexp.MustCompile(`and \d+ more failures \(\d+ in all; the first 10 are shown\)`).Match(out) ||
		!regexp.MustCompile(`--- FAIL: TestRun/raw/\w`).Match(out) {
		t.Errorf("the broken adapter's failures (%d shown):\n%s", len(shown), out)
	}
}
