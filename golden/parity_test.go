package golden_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/toolspec"
)

// frameworkAdapters are the framework adapters of the main module under
// the parity test. Each adapter's parity_<package>_test.go adds itself
// in an init function; an adapter in a module of its own runs
// paritytest.Run in its own tests.
var frameworkAdapters []paritytest.Adapter

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
// raw output rendered for it, byte for byte (paritytest.Run). It prints
// at most paritytest.MaxFailures differences.
func TestAdapterParity(t *testing.T) {
	var registered []string
	for _, fa := range frameworkAdapters {
		registered = append(registered, fa.Name)
	}
	for _, target := range toolgen.AdapterTargets {
		if target.Module != "" {
			continue // its own module's tests run it through the parity
		}
		if !slices.Contains(registered, target.Package) {
			t.Errorf("adapter %s is not under the parity test (no parity_%s_test.go)", target.Dir, target.Package)
		}
	}
	paritytest.Run(t, frameworkAdapters...)
}
