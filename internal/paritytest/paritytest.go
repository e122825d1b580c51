// Package paritytest is the adapter parity test, importable so that an
// adapter in a module of its own (adapters/anthropic) runs every golden
// call through its framework exactly as golden's TestAdapterParity does
// for the others: each call of golden/testdata/calls through the raw
// adapter and through the framework, each on its own copy of the case's
// workspace, the framework's answer compared byte for byte with the raw
// output rendered for it. It holds the call cases' format (CallCase)
// too. Only tests import it.
package paritytest

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// Adapter is one framework adapter under the parity test.
type Adapter struct {
	// Name is the adapter's package name (toolgen.AdapterTarget.Package).
	Name string
	// Open builds the adapter's tools over ws and returns a function that
	// runs one call through the framework's own tool interface and gives
	// what the framework hands the model, as text.
	Open func(t *testing.T, ws *vfs.Workspace, opts core.Options) func(t *testing.T, tool, args string) string
	// Render is what the framework must hand the model for a raw output
	// of a call with args, as the same text: the mapping of
	// docs/ARCHITECTURE.md, written independently of the adapter.
	Render func(t *testing.T, args string, out toolspec.Output) string
}

// Run runs every call of the golden call cases (golden/testdata/calls
// under goldentest.RepoRoot) through the raw adapter and through each
// adapter, in subtests named "<Name>/<case>", and requires the adapter's
// text to be the raw output rendered for it, byte for byte. It prints at
// most MaxFailures differences.
func Run(t *testing.T, adapters ...Adapter) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldentest.RepoRoot(t), "golden", "testdata", "calls", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no call cases: %v", err)
	}
	// The cases as the test's directory reaches them, so that a message
	// names one as golden's own tests do (testdata/calls/...).
	if wd, err := os.Getwd(); err == nil {
		for i, f := range files {
			if rel, err := filepath.Rel(wd, f); err == nil {
				files[i] = rel
			}
		}
	}
	failures := &Failures{}
	defer failures.Report(t)
	for _, fa := range adapters {
		for _, file := range files {
			t.Run(fa.Name+"/"+strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
				c := ParseCallCase(t, goldentest.Load(t, file))
				reference, err := raw.New(c.Open(t))
				if err != nil {
					t.Fatal(err)
				}
				ws, opts := c.Open(t)
				call := fa.Open(t, ws, opts)
				for _, cl := range c.Calls {
					out, err := reference.Execute(t.Context(), cl.Tool, []byte(cl.Args))
					if err != nil {
						t.Fatalf("raw %s: %v", cl.Name, err)
					}
					want := fa.Render(t, cl.Args, out)
					if got := call(t, cl.Tool, cl.Args); got != want {
						failures.Errorf(t, "call %s (%s %s):\n got: %s\nwant: %s", cl.Name, cl.Tool, cl.Args, got, want)
					}
				}
			})
		}
	}
}

// MaxFailures is how many failures a parity test prints: a change that
// breaks every case shows its first few, and their number.
const MaxFailures = 10

// Failures prints the first MaxFailures failures it is given (to the
// test, or subtest, each belongs to) and counts the rest.
type Failures struct {
	n int
	// What the failures are, for the count; "failures" if empty.
	What string
}

// Errorf fails t, printing the failure if it is one of the first
// MaxFailures.
func (c *Failures) Errorf(t testing.TB, format string, args ...any) {
	t.Helper()
	c.n++
	if c.n <= MaxFailures {
		t.Errorf(format, args...)
	} else {
		t.Fail()
	}
}

// Report fails t with the number of failures not printed, if any.
func (c *Failures) Report(t testing.TB) {
	t.Helper()
	if c.n > MaxFailures {
		t.Errorf("and %d more %s (%d in all; the first %d are shown)", c.n-MaxFailures, cmp.Or(c.What, "failures"), c.n, MaxFailures)
	}
}
