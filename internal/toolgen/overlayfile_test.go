package toolgen_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/toolspec"
)

// TestLoadOverlay reads an overlay that changes every kind of field, in
// CUE (with a package clause, nested and flat) and in JSON, and gets the
// same toolspec.Overlay.
func TestLoadOverlay(t *testing.T) {
	want := toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"grep": {Description: new("Search file contents; results give paths and line numbers.")},
		"read": {Params: map[string]string{"path": "Absolute path of the file"}, Limits: map[string]int64{"maxLines": 500}},
		"edit": {Params: map[string]string{"edits.oldText": "The exact text to replace"}},
		"exec": {Offered: new(false)},
	}}
	for _, c := range []struct{ file, src string }{
		{"agenttools.cue", `package agenttools

tools: grep: description: "Search file contents; results give paths and line numbers."
tools: read: limits: maxLines: 500
tools: read: params: path: "Absolute path of the file"
tools: edit: params: "edits.oldText": "The exact text to replace"
tools: exec: offered: false
`},
		{"overlay.cue", `tools: {
	grep: description: "Search file contents; results give paths and line numbers."
	read: {
		limits: maxLines: 250 * 2
		params: path:     "Absolute path of the file"
	}
	edit: params: "edits.oldText": "The exact text to replace"
	exec: offered: false
}
`},
		{"agenttools.json", `{"tools": {
  "grep": {"description": "Search file contents; results give paths and line numbers."},
  "read": {"limits": {"maxLines": 500}, "params": {"path": "Absolute path of the file"}},
  "edit": {"params": {"edits.oldText": "The exact text to replace"}},
  "exec": {"offered": false}
}}
`},
	} {
		got, err := toolgen.LoadOverlay(c.file, []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.file, diff)
		}
	}
}

// TestOverlayErrors: every mistake of an overlay is reported at its
// file:line:col, in CUE's words when the schema (spec/overlay.cue) refuses
// it (a type error, an unknown field, an unknown tool) and in
// toolspec.Surface.With's when the spec does (a renamed parameter, a
// limit that is not settable or out of range); several at once, in the
// order of the file.
func TestOverlayErrors(t *testing.T) {
	const (
		renamed    = "read has no parameter file (it takes path, offset, byteOffset, limit): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added"
		outOfRange = "0 is out of range: read.maxLines must be from 1 to 9007199254740990"
		settable   = "read.maxLines, read.maxBytes, read.maxModelBytes, read.mediaSniffBytes, write.maxBytes, edit.maxBytes, edit.maxDiffLines, edit.maxDiffBytes, exec.maxLines, exec.maxBytes, publish.expiresAfter"
		fixed      = "ls's page is fixed: the input schema's bounds, a description or a message the model sees carry it, or core relies on it; settable limits: " + settable
	)
	cases := []struct {
		name, file, src string
		want            []string
	}{
		{"type error", "agenttools.cue", "package agenttools\n\ntools: read: limits: maxLines: \"500\"\n", []string{
			`agenttools.cue:3:32: tools.read.limits.maxLines: conflicting values "500" and int64 (mismatched types string and int)`,
		}},
		{"unknown field", "agenttools.cue", "tools: read: descripton: \"x\"\n", []string{
			`agenttools.cue:1:14: tools.read.descripton: field not allowed; a tool's fields: offered, description, params, limits`,
		}},
		{"unknown tool", "agenttools.cue", "tools: bash: offered: false\n", []string{
			`agenttools.cue:1:8: tools.bash: field not allowed; tools: read, ls, find, grep, write, edit, delete, exec, publish`,
		}},
		{"a message", "agenttools.cue", "tools: read: messages: fileNotFound: \"Missing: {path}\"\n", []string{
			`agenttools.cue:1:14: tools.read.messages: field not allowed; a tool's fields: offered, description, params, limits`,
		}},
		{"a field beside tools", "agenttools.cue", "tools: read: offered: true\nprompt: \"x\"\n", []string{
			`agenttools.cue:2:1: prompt: field not allowed; an overlay's fields: tools`,
		}},
		{"several schema errors", "agenttools.cue", "tools: grep: offered: 0\ntools: find: limits: page: 10.5\ntools: read: descripton: \"x\"\n", []string{
			`agenttools.cue:1:23: tools.grep.offered: conflicting values 0 and bool (mismatched types int and bool)`,
			`agenttools.cue:2:28: tools.find.limits.page: conflicting values 10.5 and int64 (mismatched types float and int)`,
			`agenttools.cue:3:14: tools.read.descripton: field not allowed; a tool's fields: offered, description, params, limits`,
		}},
		{"json type error", "agenttools.json", "{\"tools\": {\n  \"read\": {\"limits\": {\"maxLines\": \"500\"}}\n}}\n", []string{
			`agenttools.json:2:35: tools.read.limits.maxLines: conflicting values "500" and int64 (mismatched types string and int)`,
		}},
		{"renamed parameter", "agenttools.cue", "tools: read: params: file: \"The file\"\n", []string{
			`agenttools.cue:1:22: tools.read.params.file: ` + renamed,
		}},
		{"limit out of range", "agenttools.cue", "tools: read: limits: maxLines: 0\n", []string{
			`agenttools.cue:1:22: tools.read.limits.maxLines: ` + outOfRange,
		}},
		{"non-settable limit", "agenttools.cue", "tools: ls: limits: page: 50\n", []string{
			`agenttools.cue:1:20: tools.ls.limits.page: ` + fixed,
		}},
		{"a limit a parameter description states, without a new one", "agenttools.cue", "tools: publish: limits: expiresAfter: 60000\n", []string{
			`agenttools.cue:1:25: tools.publish.limits.expiresAfter: the description of publish's expiresAfterMs states the default ("Link lifetime in milliseconds. Defaults to one hour."): an overlay that changes publish.expiresAfter must also give params.expiresAfterMs a description that states the new one`,
		}},
		{"several refusals", "agenttools.cue", `package agenttools

tools: read: {
	limits: maxLines: 0
	params: file:     "The file"
}
tools: edit: params: "edits.oldTxt": "The old text"
tools: ls: limits: page: 50
`, []string{
			`agenttools.cue:4:10: tools.read.limits.maxLines: ` + outOfRange,
			`agenttools.cue:5:10: tools.read.params.file: ` + renamed,
			`agenttools.cue:7:22: tools.edit.params."edits.oldTxt": edit has no parameter edits.oldTxt (it takes path, edits, edits.oldText, edits.newText): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added`,
			`agenttools.cue:8:20: tools.ls.limits.page: ` + fixed,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := toolgen.LoadOverlay(c.file, []byte(c.src))
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(strings.Join(c.want, "\n"), err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var pe *toolgen.PosError
			if !errors.As(err, &pe) {
				t.Errorf("%T is no *toolgen.PosError", err)
			}
		})
	}
}

// TestGenerateUserIsDeterministic: the user's package is the same bytes
// however Go orders the overlay's maps (tools, parameters and limits are
// written sorted), and names no adapter it was not asked for.
func TestGenerateUserIsDeterministic(t *testing.T) {
	o, err := toolgen.LoadOverlay("agenttools.cue", []byte(`tools: {
	read: limits: {maxLines: 500, maxBytes: 65536, maxModelBytes: 1048576, mediaSniffBytes: 256}
	edit: params: {path: "File to edit", "edits.oldText": "Text to find", "edits.newText": "Text to put"}
	write: offered: false
	delete: offered: false
	ls: description: "List a directory."
	find: description: "Find files by glob."
}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := toolgen.UserPackage{Overlay: o, Source: "agenttools.cue", Package: "tools", Adapters: []string{"raw"}}
	first, err := toolgen.GenerateUser(p)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := toolgen.GenerateUser(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(first), string(again)); diff != "" {
			t.Fatalf("a second run differs (-first +again):\n%s", diff)
		}
	}
	for _, s := range []string{`"edits.newText": "Text to put",` + "\n\t\t\t\t\"edits.oldText\"", `"delete": {`, "func NewRaw("} {
		if !strings.Contains(string(first), s) {
			t.Errorf("the file lacks %q", s)
		}
	}
	for _, s := range []string{"langchaingo", "sdkmcp", "genkit", "eino"} {
		if strings.Contains(string(first), s) {
			t.Errorf("the file names %s, which -adapters did not ask for", s)
		}
	}
}

// TestGenerateUserTexts: any text an overlay may give (every valid UTF-8
// string but the empty one) is written as a Go string literal that holds
// it exactly: with quotes and a byte order mark, invisible characters,
// backquotes, a carriage return, a newline and what would close a
// comment. (With refuses a NUL and other control characters.)
func TestGenerateUserTexts(t *testing.T) {
	for _, text := range []string{
		"say \"hi\"\uFEFF", "a\"\u00ad\u200b", "\u2028\"\u2029", "a `b` \"c\"", "a\r\n\"b\"",
		"x\n*/ var injected = 1 /*", "tab\t\"and\" \\ newline\n", "ü \"ok\"",
	} {
		o := toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"grep": {Description: &text, Params: map[string]string{"query": text}}}}
		if _, err := toolspec.Ours().With(o); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		src, err := toolgen.GenerateUser(toolgen.UserPackage{Overlay: o, Source: "agenttools.cue", Package: "tools"})
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), toolgen.UserFile, src, parser.ParseComments)
		if err != nil {
			t.Errorf("%q: the file does not parse: %v", text, err)
			continue
		}
		found := 0
		ast.Inspect(f, func(n ast.Node) bool {
			if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
				if v, err := strconv.Unquote(l.Value); err == nil && v == text {
					found++
				}
			}
			return true
		})
		if found != 2 {
			t.Errorf("%q: %d string literals hold the text, want 2 (the description and the parameter's)", text, found)
		}
		if obj := f.Scope.Lookup("injected"); obj != nil {
			t.Errorf("%q: the text became a declaration", text)
		}
	}
}

// TestLoadOverlayBOM: an overlay saved with a UTF-8 byte order mark (as
// editors on Windows save it) loads as one without, in JSON as in CUE,
// and a mistake in it is still placed at its line and column.
func TestLoadOverlayBOM(t *testing.T) {
	want := toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"read": {Limits: map[string]int64{"maxLines": 500}}}}
	for name, src := range map[string]string{
		"agenttools.json": "\uFEFF{\"tools\": {\"read\": {\"limits\": {\"maxLines\": 500}}}}\n",
		"agenttools.cue":  "\uFEFFtools: read: limits: maxLines: 500\n",
	} {
		got, err := toolgen.LoadOverlay(name, []byte(src))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	_, err := toolgen.LoadOverlay("agenttools.json", []byte("\uFEFF{\"tools\": {\"ls\": {\"limits\": {\"page\": 50}}}}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "agenttools.json:1:") || !strings.Contains(err.Error(), "tools.ls.limits.page: ls's page is fixed") {
		t.Errorf("a refused change after a byte order mark: %v", err)
	}
}

// TestGenerateUserSource: an overlay file name with a newline (which a
// Unix file name may hold) cannot end the header's line comment: the
// header stays one line that matches Go's generated-code convention, and
// the name becomes no declaration.
func TestGenerateUserSource(t *testing.T) {
	source := "a\n*/ var injected = 1 /*\n.cue"
	src, err := toolgen.GenerateUser(toolgen.UserPackage{Source: source, Package: "tools"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), toolgen.UserFile, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("the file does not parse: %v\n%s", err, src)
	}
	if f.Scope.Lookup("injected") != nil {
		t.Error("the file name became a declaration")
	}
	first, _, _ := strings.Cut(string(src), "\n")
	if want := "// Code generated by toolgen from " + strconv.Quote(source) + ". DO NOT EDIT."; first != want {
		t.Errorf("header %q, want %q", first, want)
	}
}
