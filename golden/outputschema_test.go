package golden_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// outputSchemaField is the field of a deviation entry (testdata/
// deviations.json) about a tool's output schema; its case is
// outputSchemaCase and its call the line of the tool in
// testdata/oracle/output-schemas.jsonl (0-based).
const (
	outputSchemaField = "outputSchema"
	outputSchemaCase  = "output-schemas"
)

// outputSchemaExtras is what each of our output schemas adds to the
// reference's, by deviation: the text that, cut out of ours, leaves the
// reference's bytes.
var outputSchemaExtras = map[string]string{
	// editFuzzyMatch: the success branch allows our fuzzyMatch flag.
	toolspec.ToolEdit: `,"fuzzyMatch":{"type":"boolean"}`,
}

// TestOutputSchemas requires each tool's generated output schema to be
// the reference's, byte for byte (testdata/oracle/output-schemas.jsonl,
// printed by the oracle's output-schemas.mjs), except what a deviation
// in testdata/deviations.json adds; a tool the reference gives an output
// schema must have one once the spec declares the tool, and no other
// tool may have one.
func TestOutputSchemas(t *testing.T) {
	f, err := os.Open("testdata/oracle/output-schemas.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	devs := map[int]string{}
	for _, d := range loadDeviations(t) {
		if d.Field == outputSchemaField {
			if d.Case != outputSchemaCase {
				t.Errorf("deviation %s[%d] %s: an output schema deviation belongs to case %s", d.Case, d.Call, d.Field, outputSchemaCase)
			}
			devs[d.Call] = d.Reason
		}
	}
	ref := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var rec struct {
			Tool         string          `json:"tool"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		ref[rec.Tool] = true
		info, ok := toolspec.Info(rec.Tool)
		if !ok {
			t.Logf("%s: the spec does not declare the tool yet", rec.Tool)
			continue
		}
		got := info.OutputSchema
		extra, deviates := outputSchemaExtras[rec.Tool]
		if _, listed := devs[i]; listed != deviates {
			t.Errorf("%s (line %d): listed in deviations.json %v, has an extra %q", rec.Tool, i, listed, extra)
		}
		if deviates {
			if !strings.Contains(got, extra) {
				t.Errorf("%s: output schema lacks our %s", rec.Tool, extra)
			}
			got = strings.Replace(got, extra, "", 1)
		}
		if !bytes.Equal([]byte(got), rec.OutputSchema) {
			t.Errorf("%s output schema differs from the reference's (-reference +ours):\n%s\nchanged on purpose? Declare a deviation in spec/tools.cue and golden/testdata/deviations.json (and its text in outputSchemaExtras)",
				rec.Tool, strings.TrimSuffix(goldentest.Diff(string(rec.OutputSchema), got), "\n"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ref) < 3 {
		t.Fatalf("only %d output schemas in the reference's file", len(ref))
	}
	for _, info := range toolspec.Tools {
		if info.OutputSchema != "" && !ref[info.Name] {
			t.Errorf("%s has an output schema; the reference gives it none", info.Name)
		}
	}
}
