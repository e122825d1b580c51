package toolgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/spec"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

func generate(t *testing.T, src []byte) map[string][]byte {
	t.Helper()
	m, err := toolgen.Load(spec.Filename, src)
	if err != nil {
		t.Fatal(err)
	}
	files, err := toolgen.Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGeneratedCodeIsCurrent regenerates everything in memory and fails,
// naming the file, when what is on disk differs: a spec edit without
// `go generate ./...` fails `go test ./...`.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	root, err := toolgen.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := toolgen.Diff(root, generate(t, spec.Source))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		t.Errorf("%s; run go generate ./...\n%s", c.Describe(), c.Unified())
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := generate(t, spec.Source), generate(t, spec.Source)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for p, data := range a {
		if !bytes.Equal(data, b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
		if strings.HasSuffix(p, ".go") && !bytes.HasPrefix(data, []byte("// "+toolgen.Header+"\n")) {
			t.Errorf("%s does not start with the generated-code header", p)
		}
	}
}

// TestSpecErrorsNameTheLine breaks the spec in several ways and checks
// each failure names spec/tools.cue and the line of the mistake.
func TestSpecErrorsNameTheLine(t *testing.T) {
	src := string(spec.Source)
	lineOf := func(s string) string {
		i := strings.Index(src, s)
		if i < 0 {
			t.Fatalf("spec does not contain %q", s)
		}
		return ":" + strconv.Itoa(strings.Count(src[:i], "\n")+1) + ":"
	}
	cases := []struct {
		name, old, new string
		want           *regexp.Regexp
	}{
		{"unknown parameter kind", `kind:        "integer"`, `kind:        "integr"`, regexp.MustCompile(`spec/tools\.cue:\d+:\d+`)},
		{"undeclared placeholder", `text: "File not found: {path}"`, `text: "File not found: {file}"`, regexp.MustCompile(`placeholder \{file\} is not declared`)},
		{"unknown format", `{maxBytes|kb}KB`, `{maxBytes|mb}KB`, regexp.MustCompile(`unknown format "mb"`)},
		{"misspelled field", `mutates: false`, `mutate: false`, regexp.MustCompile(`spec/tools\.cue:\d+:\d+`)},
		{"hint a read-only tool cannot have", `readOnlyHint: true, openWorldHint: false}`, `readOnlyHint: true, destructiveHint: false, openWorldHint: false}`, regexp.MustCompile(`read: destructiveHint means nothing for a read-only tool`)},
		{"read-only tool that mutates", `annotations: {title: "Write file", destructiveHint: true`, `annotations: {title: "Write file", readOnlyHint: true`, regexp.MustCompile(`write: a tool that mutates is not read-only`)},
		{"tool argument naming no tool", `args: {size: "int", maxBytes: "int", edit: "tool"}`, `args: {size: "int", maxBytes: "int", edit: "tool", edt: "tool"}`, regexp.MustCompile(`argument edt is of type tool but no tool has that name`)},
		{"both lower bounds", `exclusiveMinimum: 0`, "exclusiveMinimum: 0\n\t\t\tminimum: 1", regexp.MustCompile(`parameter expiresAfterMs: give minimum or exclusiveMinimum, not both`)},
		{"minLength on an integer", `kind:             "integer"`, "kind:             \"integer\"\n\t\t\tminLength:        1", regexp.MustCompile(`spec/tools\.cue:\d+:\d+`)},
		{"constant beside a json field", `result: {type: "json", optional: true`, `done: {type: "true"}, result: {type: "json", optional: true`, regexp.MustCompile(`ExecResult: a result with a json field cannot have a constant`)},
		{"optional false field", `ok: {type: "false"}`, `ok: {type: "false", optional: true}`, regexp.MustCompile(`spec/tools\.cue:\d+:\d+`)},
		{"output schema naming no result", `outputSchema: ["DeleteResult", "ErrorResult"]`, `outputSchema: ["DeletedResult", "ErrorResult"]`, regexp.MustCompile(`delete: outputSchema names DeletedResult, which is neither`)},
		{"output schema without a failure", `outputSchema: ["DeleteResult", "ErrorResult"]`, `outputSchema: ["DeleteResult"]`, regexp.MustCompile(`delete: outputSchema needs exactly one result with a required string field error`)},
		{"output schema naming another tool's result", `outputSchema: ["WriteResult", "ErrorResult"]`, `outputSchema: ["WriteResult", "ErrorResult", "GrepMatch"]`, regexp.MustCompile(`neither one of its results`)},
		{"description placeholder that is no limit", "capped at {maxLines} lines or {maxBytes|kb}KB and includes line and byte continuations when truncated.\"\n\t\targs: {maxLines: \"int\", maxBytes: \"int\"}",
			"capped at {maxRows} lines or {maxBytes|kb}KB and includes line and byte continuations when truncated.\"\n\t\targs: {maxRows: \"int\", maxBytes: \"int\"}", regexp.MustCompile(`read: the description's placeholder \{maxRows\} must name a limit of the tool`)},
		{"brace in a fixed description", `description: text: "Delete a file or directory.`, `description: text: "Delete a {file} or directory.`, regexp.MustCompile(`delete: a fixed description has no braces`)},
		{"settable default in a parameter description", `description: "Maximum number of lines to read"`, `description: "Maximum number of lines to read. Defaults to 2000."`, regexp.MustCompile(`read: parameter limit's description writes the default of the settable limit maxLines \(2000 lines\): list limit in the limit's statedIn`)},
		{"settable default in a message", `exceeds the {maxBytes}-byte write cap.`, `exceeds the 2 MiB write cap.`, regexp.MustCompile(`write: message contentTooLarge writes the default of the settable limit maxBytes \(2097152 bytes\)`)},
		{"settable default in KB in the description", `Text output is capped at {maxLines} lines or {maxBytes|kb}KB`, `Text output is capped at {maxLines} lines or 256KB`, regexp.MustCompile(`read: the description writes the default of the settable limit maxBytes`)},
		{"statedIn naming no parameter", `statedIn: ["expiresAfterMs"]`, `statedIn: ["expiresAfter"]`, regexp.MustCompile(`publish: limit expiresAfter: statedIn names expiresAfter, which is not a parameter`)},
		{"byte format on a limit in lines", `{maxBytes|kb}KB and includes`, `{maxLines|kb}KB and includes`, regexp.MustCompile(`read: the description's \{maxLines\|kb\} writes bytes and maxLines is in lines`)},
		{"unknown description variant", `mixed:    "Shell command`, `mixd:     "Shell command`, regexp.MustCompile(`spec/tools\.cue:\d+:\d+`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(src, c.old) {
				t.Fatalf("spec does not contain %q", c.old)
			}
			broken := strings.Replace(src, c.old, c.new, 1)
			_, err := toolgen.Load(spec.Filename, []byte(broken))
			if err == nil {
				t.Fatal("the broken spec loaded")
			}
			msg := err.Error()
			if !c.want.MatchString(msg) {
				t.Errorf("error %q does not match %s", msg, c.want)
			}
			if !strings.Contains(msg, spec.Filename+lineOf(c.old)) {
				t.Errorf("error does not name the line of %q (%s):\n%s", c.old, lineOf(c.old), msg)
			}
		})
	}
}

// TestOutputSchemaFields derives output schemas from result fields of
// every kind the spec may use: a required "true" field is a constant
// (the discriminant of a union, as publish's ok), an optional one a
// plain boolean (edit's diffTruncated), bool a boolean and int an
// integer within JavaScript's safe range; a json field has no form.
func TestOutputSchemaFields(t *testing.T) {
	src := string(spec.Source)
	const old = `fields: deleted: {type: "string"}`
	if !strings.Contains(src, old) {
		t.Fatalf("spec does not contain %q", old)
	}
	fields := `fields: {ok: {type: "true"}, deleted: {type: "string"}, flag: {type: "true", optional: true}, both: {type: "bool"}, n: {type: "int", optional: true}}`
	files := generate(t, []byte(strings.Replace(src, old, fields, 1)))
	want := `{"type":"object","properties":{"ok":{"type":"boolean","const":true},"deleted":{"type":"string"},"flag":{"type":"boolean"},"both":{"type":"boolean"},"n":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}},"required":["ok","deleted","both"],"additionalProperties":false}`
	if got := string(files["toolspec/delete_gen.go"]); !strings.Contains(got, "const DeleteOutputSchema = `{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"anyOf\":["+want+",") {
		t.Errorf("delete_gen.go does not declare the output schema with\n%s:\n%s", want, got)
	}
	_, err := toolgen.Load(spec.Filename, []byte(strings.Replace(src, old, `fields: {deleted: {type: "string"}, x: {type: "json"}}`, 1)))
	if err == nil || !strings.Contains(err.Error(), "delete: outputSchema: DeleteResult.x (json) has no output schema form") {
		t.Errorf("a json field in an output schema: %v", err)
	}
}

// TestApplyTouchesOnlyChanges writes into a scratch module: a file that
// is already right keeps its modification time, a stale one is
// rewritten, an orphan generated file is removed and a hand-written file
// in toolspec/ is left alone.
func TestApplyTouchesOnlyChanges(t *testing.T) {
	root := t.TempDir()
	files := generate(t, spec.Source)
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "toolspec"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	changes, err := toolgen.Diff(root, files)
	must(t, err)
	if len(changes) != len(files) {
		t.Fatalf("empty tree: %d changes for %d files", len(changes), len(files))
	}
	must(t, toolgen.Apply(root, changes))

	old := time.Unix(1_000_000, 0)
	for p := range files {
		must(t, os.Chtimes(filepath.Join(root, p), old, old))
	}
	must(t, os.WriteFile(filepath.Join(root, "toolspec/read_gen.go"), []byte("// stale\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "toolspec/orphan.go"), []byte("// "+toolgen.Header+"\npackage toolspec\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "toolspec/handwritten.go"), []byte("package toolspec\n"), 0o644))

	changes, err = toolgen.Diff(root, files)
	must(t, err)
	var described, applied []string
	for _, c := range changes {
		described = append(described, c.Describe())
		applied = append(applied, c.Applied())
	}
	want := []string{"toolspec/orphan.go: orphan (no longer generated)", "toolspec/read_gen.go: stale"}
	if strings.Join(described, "|") != strings.Join(want, "|") {
		t.Fatalf("changes %q, want %q", described, want)
	}
	// What -w prints once it has written them: not the state they left.
	want = []string{"removed toolspec/orphan.go (no longer generated)", "wrote toolspec/read_gen.go"}
	if strings.Join(applied, "|") != strings.Join(want, "|") {
		t.Fatalf("applied %q, want %q", applied, want)
	}
	must(t, toolgen.Apply(root, changes))
	for p, data := range files {
		got, err := os.ReadFile(filepath.Join(root, p))
		must(t, err)
		if !bytes.Equal(got, data) {
			t.Errorf("%s not written", p)
		}
		st, err := os.Stat(filepath.Join(root, p))
		must(t, err)
		if p != "toolspec/read_gen.go" && !st.ModTime().Equal(old) {
			t.Errorf("%s was rewritten though it had not changed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "toolspec/orphan.go")); !os.IsNotExist(err) {
		t.Errorf("orphan not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "toolspec/handwritten.go")); err != nil {
		t.Errorf("hand-written file removed: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
