package golden_test

import (
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// TestArgumentList pins the opt-in argument listing (deviation
// argumentList) for every tool: the description an agent that shows the
// model only names and descriptions is given, for the default options
// and for exec's schemas that differ with its backends. The deviation
// must be listed in testdata/deviations.json as an opt-in.
func TestArgumentList(t *testing.T) {
	a := goldentest.Load(t, "testdata/arguments.txtar")
	for _, d := range newTools(t, core.Options{Publisher: &publish.Scripted{}}).Definitions() {
		a.Check(t, d.Name, toolspec.DescribeArguments(d.Description, string(d.InputSchema)))
	}
	for _, v := range []struct {
		name     string
		backends []toolspec.ExecBackend
	}{
		{"fast shell", []toolspec.ExecBackend{{ID: "shell", Text: "fast shell"}}},
		{"two backends", []toolspec.ExecBackend{{ID: "shell", Text: "fast shell"}, {ID: "container", Text: "full Linux container"}}},
		{"shell and callable", []toolspec.ExecBackend{{ID: "shell"}, {ID: "js", Callable: true}}},
	} {
		desc := toolspec.ExecDescription("", v.backends, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault)
		a.Check(t, "exec "+v.name, toolspec.DescribeArguments(desc, toolspec.ExecInputSchema(v.backends)))
	}
	a.Save(t, nil)

	checkOptIn(t, "argumentList", "arguments")
}

// checkOptIn fails t unless testdata/deviations.json lists the opt-in
// deviation (its reason starts with the spec's name of it) for the case
// named after the golden archive that pins its text.
func checkOptIn(t *testing.T, deviation, archive string) {
	t.Helper()
	for _, d := range loadDeviations(t) {
		if d.OptIn != "" && d.Case == archive && strings.HasPrefix(d.Reason, deviation+":") {
			return
		}
	}
	t.Errorf("testdata/deviations.json does not list the opt-in deviation %s (case %s)", deviation, archive)
}
