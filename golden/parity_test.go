package golden_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/toolspec"
)

// frameworkAdapter is one framework adapter under the parity test. Each
// adapter's parity_<package>_test.go adds itself in an init function.
type frameworkAdapter struct {
	// pkg is the adapter's package name (toolgen.AdapterTarget.Package).
	pkg string
	// open builds the adapter's tools over ws and returns a function that
	// runs one call through the framework's own tool interface and gives
	// what the framework hands the model, as text.
	open func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string
	// render is what the framework must hand the model for a raw output
	// of a call with args, as the same text: the mapping of
	// docs/ARCHITECTURE.md, written independently of the adapter.
	render func(t *testing.T, args string, out toolspec.Output) string
}

var frameworkAdapters []frameworkAdapter

// refused reports whether core refuses the call for want of approval
// (Options.Approve names the tool, and the arguments are valid), which
// it does, with no decision, without running it.
func refused(t *testing.T, ex *core.Executor, tool, args string) bool {
	t.Helper()
	if !ex.NeedsApproval(tool) {
		return false
	}
	out, err := ex.Call(core.WithApproval(t.Context(), false), tool, []byte(args))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return strings.Contains(out.AsText(), toolspec.MsgApprovalRefused(tool))
}

// TestAdapterParity runs every call of the golden call cases through the
// raw adapter and through each framework adapter, each on its own copy of
// the case's workspace, and requires the framework to hand the model the
// raw output rendered for it, byte for byte. It prints at most
// maxFailures differences.
func TestAdapterParity(t *testing.T) {
	var registered []string
	for _, fa := range frameworkAdapters {
		registered = append(registered, fa.pkg)
	}
	for _, target := range toolgen.AdapterTargets {
		if target.Module != "" {
			continue // its own module's tests run it through the parity
		}
		if !slices.Contains(registered, target.Package) {
			t.Errorf("adapter %s is not under the parity test (no parity_%s_test.go)", target.Dir, target.Package)
		}
	}
	files, err := filepath.Glob("testdata/calls/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no call cases: %v", err)
	}
	failures := &failureCap{}
	defer failures.report(t)
	for _, fa := range frameworkAdapters {
		for _, file := range files {
			t.Run(fa.pkg+"/"+strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
				c := parseCallCase(t, goldentest.Load(t, file))
				reference, err := raw.New(c.Open(t))
				if err != nil {
					t.Fatal(err)
				}
				ws, opts := c.Open(t)
				call := fa.open(t, ws, opts)
				for _, cl := range c.Calls {
					out, err := reference.Execute(t.Context(), cl.Tool, []byte(cl.Args))
					if err != nil {
						t.Fatalf("raw %s: %v", cl.Name, err)
					}
					want := fa.render(t, cl.Args, out)
					if got := call(t, cl.Tool, cl.Args); got != want {
						failures.Errorf(t, "call %s (%s %s):\n got: %s\nwant: %s", cl.Name, cl.Tool, cl.Args, got, want)
					}
				}
			})
		}
	}
}
