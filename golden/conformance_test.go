package golden_test

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/paritytest"
	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/internal/replay"
	"github.com/agenttools/agenttools/toolspec"
)

// The oracle's case files kept in testdata/oracle, each with the
// reference's answers (FILE.jsonl, made by the oracle's harness.mjs).
var oracleFiles = []string{"smoke", "extra", "edit", "exec", "publish"}

type deviation struct {
	Case   string `json:"case"`
	Call   int    `json:"call"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
	// OptIn, when set, names the option that turns the deviation on. The
	// reference's cases run without it, so such an entry names the golden
	// archive that pins the text instead of an oracle case.
	OptIn string `json:"optIn,omitempty"`
}

func loadDeviations(t *testing.T) []deviation {
	t.Helper()
	data, err := os.ReadFile("testdata/deviations.json")
	if err != nil {
		t.Fatal(err)
	}
	var devs []deviation
	if err := json.Unmarshal(data, &devs); err != nil {
		t.Fatal(err)
	}
	return devs
}

// refCall is what the conformance test compares of one reference call.
type refCall struct {
	Tool        string          `json:"tool"`
	Description json.RawMessage `json:"description"`
	// DescriptionLength is the description's length as JavaScript counts
	// it (UTF-16 code units).
	DescriptionLength json.RawMessage `json:"descriptionLength"`
	InputSchema       json.RawMessage `json:"inputSchema"`
	InputError        *string         `json:"inputError"`
	ModelOutput       json.RawMessage `json:"modelOutput"`
	After             json.RawMessage `json:"after"`
}

type refRecord struct {
	Case  string    `json:"case"`
	Tools []string  `json:"tools"`
	Calls []refCall `json:"calls"`
}

func loadAnswers(t *testing.T, path string) map[string]refRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]refRecord{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r refRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.Case] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// unavailable are the tools the spec declares but core does not offer yet.
func unavailable() map[string]bool {
	out := map[string]bool{}
	for _, info := range toolspec.Tools {
		if !info.Available {
			out[info.Name] = true
		}
	}
	return out
}

// TestConformance replays the oracle's cases through our tools and
// requires every call of the tools built so far to give the model
// exactly what the reference gives (description and its length, schema,
// model output, probes after the call), byte for byte, except the
// deviations listed in testdata/deviations.json. Each deviation must
// still be needed and must name a deviation the spec declares; one an
// option turns on (optIn) is pinned by its own golden test instead.
// Where the reference refused the arguments, only our refusing them too
// is required (the wording is the AI SDK's; ours is declared in the
// spec). It runs on an in-memory workspace, on an SQLite one and on a
// PostgreSQL one (each case in a workspace of its own in a database made
// for the test), which must give the same answers.
//
// A description or input schema that differs from the reference's is
// reported once per text, with what to do if the change is on purpose
// (surfaceDiffs), and the rest of each case is still compared; at most
// paritytest.MaxFailures other failures are printed.
func TestConformance(t *testing.T) {
	diffs := surfaceDiffs{}
	failures := &paritytest.Failures{}
	for _, ws := range []struct {
		name string
		open func(t *testing.T) replay.Workspace
	}{
		{"memfs", func(*testing.T) replay.Workspace { return replay.Memory }},
		{"sqlitefs", func(*testing.T) replay.Workspace { return replay.SQLite }},
		{"pgfs", func(t *testing.T) replay.Workspace { return replay.Postgres(pgtest.Database(t)) }},
	} {
		t.Run(ws.name, func(t *testing.T) { conformance(t, ws.open(t), diffs, failures) })
	}
	diffs.report(t)
	failures.Report(t)
}

// conformance replays the oracle cases on workspaces from open; texts
// that differ from the reference's go to diffs, other failures to
// failures.
func conformance(t *testing.T, open replay.Workspace, diffs surfaceDiffs, failures *paritytest.Failures) {
	devs := loadDeviations(t)
	declared := map[string]bool{}
	for _, d := range toolspec.Deviations {
		declared[d.Name] = true
	}
	used := map[deviation]bool{}
	for _, d := range devs {
		name, _, _ := strings.Cut(d.Reason, ":")
		if !declared[name] {
			t.Errorf("deviation %s[%d] %s: reason %q does not start with a deviation the spec declares", d.Case, d.Call, d.Field, d.Reason)
		}
	}
	isDeviation := func(c string, i int, field string) bool {
		for _, d := range devs {
			if d.Case == c && d.Call == i && (d.Field == field || d.Field == "*") {
				used[d] = true
				return true
			}
		}
		return false
	}
	skip := unavailable()
	compared := 0
	for _, file := range oracleFiles {
		data, err := os.ReadFile("testdata/oracle/" + file + ".json")
		if err != nil {
			t.Fatal(err)
		}
		cases, err := replay.ParseCases(data)
		if err != nil {
			t.Fatal(err)
		}
		answers := loadAnswers(t, "testdata/oracle/"+file+".jsonl")
		for _, c := range cases {
			ref, ok := answers[c.Name]
			if !ok {
				failures.Errorf(t, "%s: case %s has no reference answer", file, c.Name)
				continue
			}
			if slices.ContainsFunc(ref.Calls, func(rc refCall) bool { return skip[rc.Tool] }) {
				continue
			}
			rec := replay.Run(t.Context(), c, open)
			if rec.HarnessError != nil || rec.SetupError != nil || rec.ToolSetError != nil {
				failures.Errorf(t, "%s: case %s did not run: %+v %+v %+v", file, c.Name, rec.HarnessError, rec.SetupError, rec.ToolSetError)
				continue
			}
			ours, err := core.MarshalJSON(rec)
			if err != nil {
				t.Fatal(err)
			}
			var got refRecord
			if err := json.Unmarshal(ours, &got); err != nil {
				t.Fatal(err)
			}
			// The tools offered (publish only with a publisher, not
			// read-only, not with assets false).
			if !slices.Equal(ref.Tools, got.Tools) {
				failures.Errorf(t, "%s: tools %v, the reference's %v", c.Name, got.Tools, ref.Tools)
			}
			for i, rc := range ref.Calls {
				compared++
				if i >= len(got.Calls) {
					failures.Errorf(t, "%s[%d]: no call", c.Name, i)
					continue
				}
				oc := got.Calls[i]
				fields := []struct {
					name      string
					want, got json.RawMessage
				}{
					{"description", rc.Description, oc.Description},
					{"descriptionLength", rc.DescriptionLength, oc.DescriptionLength},
					{"inputSchema", rc.InputSchema, oc.InputSchema},
					{"modelOutput", rc.ModelOutput, oc.ModelOutput},
					{"after", rc.After, oc.After},
				}
				for _, f := range fields {
					same := bytes.Equal(compact(f.want), compact(f.got))
					if f.name == "modelOutput" && rc.InputError != nil {
						same = oc.InputError != nil && bytes.HasPrefix(oc.ModelOutput, []byte(`{"type":"error-text"`))
					}
					if same {
						continue
					}
					if isDeviation(c.Name, i, f.name) {
						continue
					}
					switch f.name {
					case "descriptionLength":
						if !bytes.Equal(compact(rc.Description), compact(oc.Description)) {
							continue // the description's difference says it
						}
						fallthrough
					case "description", "inputSchema":
						diffs.add(file, c.Name, i, rc, oc, f.name)
						continue
					}
					failures.Errorf(t, "%s[%d] %s %s:\nreference: %s\nours:      %s", c.Name, i, rc.Tool, f.name, shorten(f.want), shorten(f.got))
				}
			}
		}
	}
	for _, d := range devs {
		// The output schemas are no call's: TestOutputSchemas checks theirs.
		if !used[d] && d.OptIn == "" && d.Field != outputSchemaField {
			t.Errorf("deviation %s[%d] %s is declared but the call no longer differs (remove it)", d.Case, d.Call, d.Field)
		}
	}
	if compared < 500 {
		t.Errorf("compared only %d calls; the case files went missing?", compared)
	}
}

// onPurpose is what a failure about a text that differs from the
// reference's suggests, for a change made on purpose.
const onPurpose = `changed on purpose? Keep the spec's text and change it for your module with an overlay ` +
	`(README "Change what the model sees"), or declare a deviation in spec/tools.cue and golden/testdata/deviations.json`

// surfaceDiff is one text of the tool surface (a tool's description or
// input schema) that differs from the reference's, with the calls it
// differs in.
type surfaceDiff struct {
	tool, field string
	ref, ours   json.RawMessage
	// refLength and oursLength are a description's lengths, as
	// JavaScript counts them.
	refLength, oursLength json.RawMessage
	first                 string // the first call it differs in
	// calls are the calls it differs in (each once, whatever the
	// workspace).
	calls map[string]bool
}

// surfaceDiffs are the texts that differ from the reference's, by tool,
// field and both texts: the same text differs in every call of the tool,
// and is reported once.
type surfaceDiffs map[string]*surfaceDiff

// add records that field of call i of case name in file differs.
func (s surfaceDiffs) add(file, name string, i int, ref, ours refCall, field string) {
	call := fmt.Sprintf("%s %s[%d]", file, name, i)
	d := &surfaceDiff{tool: ref.Tool, field: field, first: call, calls: map[string]bool{}}
	if field == "description" || field == "descriptionLength" {
		d.ref, d.ours, d.refLength, d.oursLength = ref.Description, ours.Description, ref.DescriptionLength, ours.DescriptionLength
	} else {
		d.ref, d.ours = ref.InputSchema, ours.InputSchema
	}
	key := strings.Join([]string{d.tool, field, string(compact(d.ref)), string(compact(d.ours)), string(d.oursLength)}, "\x00")
	if s[key] == nil {
		s[key] = d
	}
	s[key].calls[call] = true
}

// report fails t once per text, in the order of tool and field, at most
// paritytest.MaxFailures times.
func (s surfaceDiffs) report(t *testing.T) {
	t.Helper()
	diffs := slices.Collect(maps.Values(s))
	slices.SortFunc(diffs, func(a, b *surfaceDiff) int {
		return cmp.Or(strings.Compare(a.tool, b.tool), strings.Compare(a.field, b.field), strings.Compare(a.first, b.first))
	})
	failures := paritytest.Failures{What: "texts that differ from the reference's"}
	for _, d := range diffs {
		head := fmt.Sprintf("%s %s differs from the reference's (%d calls; the first: %s)", d.tool, d.field, len(d.calls), d.first)
		switch d.field {
		case "descriptionLength":
			failures.Errorf(t, "%s: the same text, which the reference counts %s characters and we count %s (does vfs.UTF16Len still count UTF-16 code units, as JavaScript does?):\n%s",
				head, d.refLength, d.oursLength, shorten(d.ours))
		case "description":
			ref := fmt.Sprintf("reference (%s characters):", d.refLength)
			ours := fmt.Sprintf("ours (%s characters):", d.oursLength)
			w := max(len(ref), len(ours))
			failures.Errorf(t, "%s:\n%-*s %s\n%-*s %s\n%s", head, w, ref, shorten(d.ref), w, ours, shorten(d.ours), onPurpose)
		default:
			failures.Errorf(t, "%s (-reference +ours):\n%s\n%s", head, strings.TrimSuffix(goldentest.Diff(string(compact(d.ref)), string(compact(d.ours))), "\n"), onPurpose)
		}
	}
	failures.Report(t)
}

// compact removes insignificant whitespace so that two JSON texts compare
// by their bytes otherwise (key order and spelling stay significant).
func compact(b json.RawMessage) []byte {
	if len(b) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

func shorten(b json.RawMessage) string {
	s := string(b)
	if len(s) > 600 {
		return s[:600] + fmt.Sprintf("... [%d bytes]", len(s))
	}
	return s
}
