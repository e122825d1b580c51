package toolspec_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// Ours describes every tool with the generated texts byte for byte: read's
// template is rendered at run time as ReadDescription renders it, for any
// limits and every format.
func TestOursDescribeIsGenerated(t *testing.T) {
	s := toolspec.Ours()
	fixed := map[string][2]string{
		toolspec.ToolLs:      {toolspec.LsDescription, toolspec.LsInputSchema},
		toolspec.ToolFind:    {toolspec.FindDescription, toolspec.FindInputSchema},
		toolspec.ToolGrep:    {toolspec.GrepDescription, toolspec.GrepInputSchema},
		toolspec.ToolWrite:   {toolspec.WriteDescription, toolspec.WriteInputSchema},
		toolspec.ToolEdit:    {toolspec.EditDescription, toolspec.EditInputSchema},
		toolspec.ToolDelete:  {toolspec.DeleteDescription, toolspec.DeleteInputSchema},
		toolspec.ToolPublish: {toolspec.PublishDescription, toolspec.PublishInputSchema},
	}
	for tool, want := range fixed {
		d, schema := s.Describe(tool, "ws_", nil, nil)
		if d != want[0] || schema != want[1] {
			t.Errorf("%s: Describe = %q, %q; want the generated %q, %q", tool, d, schema, want[0], want[1])
		}
	}
	for _, l := range [][2]int64{{2000, 262144}, {1, 1}, {500, 511}, {500, 512}, {7, 1 << 40}} {
		d, schema := s.Describe(toolspec.ToolRead, "", map[string]int64{"maxLines": l[0], "maxBytes": l[1]}, nil)
		if want := toolspec.ReadDescription(l[0], l[1]); d != want {
			t.Errorf("read %v: Describe = %q, want %q", l, d, want)
		}
		if schema != toolspec.ReadInputSchema {
			t.Errorf("read: schema = %s, want ReadInputSchema", schema)
		}
	}
	if d, _ := s.Describe(toolspec.ToolRead, "", nil, nil); d != toolspec.ReadDescription(toolspec.ReadMaxLinesDefault, toolspec.ReadMaxBytesDefault) {
		t.Errorf("read without limits: %q, want the defaults'", d)
	}
	for _, backends := range [][]toolspec.ExecBackend{{{ID: "a"}}, {{ID: "a"}, {ID: "b", Callable: true}}, {{ID: "js", Callable: true}}} {
		d, schema := s.Describe(toolspec.ToolExec, "ws_", map[string]int64{"maxLines": 10, "maxBytes": 2048}, backends)
		if want := toolspec.ExecDescription("ws_", backends, 10, 2048); d != want {
			t.Errorf("exec %v: Describe = %q, want %q", backends, d, want)
		}
		if want := toolspec.ExecInputSchema(backends); schema != want {
			t.Errorf("exec %v: schema = %s, want %s", backends, schema, want)
		}
	}
}

// A description in another format renders as the generated messages
// render that format.
func TestDescribeFormats(t *testing.T) {
	s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Description: ptr("at most {maxLines} lines, {maxBytes} bytes ({maxBytes|size}, {maxBytes|kb}KB)")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := s.Describe(toolspec.ToolRead, "", map[string]int64{"maxLines": 3, "maxBytes": 1536}, nil)
	if want := "at most 3 lines, 1536 bytes (" + toolspec.FormatSize(1536) + ", 2KB)"; d != want {
		t.Errorf("Describe = %q, want %q", d, want)
	}
}

// A parameter description an overlay gives replaces the spec's in the
// input schema, and only it: the schema is the generated one with that
// one string changed (escaped as JSON.stringify does), for a top-level
// parameter, an array's item property and one of exec's.
func TestDescribeReplacesParamDescriptions(t *testing.T) {
	tests := []struct {
		tool, param, old string
		backends         []toolspec.ExecBackend
	}{
		{"read", "path", "Path to the file to read", nil},
		{"grep", "include", `Glob relative to path that limits searched files, for example \"**/*.ts\" or [\"**/*.ts\", \"**/*.md\"].`, nil},
		{"edit", "edits.oldText", "Exact text for one targeted replacement. Must be unique in the original file and not overlap with any other edits[].oldText in the same call.", nil},
		{"exec", "cwd", "Working directory. Defaults to the workspace root.", []toolspec.ExecBackend{{ID: "a"}, {ID: "b"}}},
		{"exec", "backend", "Which backend to run on. If a command fails because the backend lacks that tool, retry on a backend whose description covers it.", []toolspec.ExecBackend{{ID: "a"}, {ID: "b"}}},
	}
	const text = "Said \"our\" way\n<&> \u2028 é"
	const quoted = `Said \"our\" way\n<&> ` + "\u2028 é"
	for _, tc := range tests {
		s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{tc.tool: {Params: map[string]string{tc.param: text}}}})
		if err != nil {
			t.Fatal(err)
		}
		_, before := toolspec.Ours().Describe(tc.tool, "", nil, tc.backends)
		_, after := s.Describe(tc.tool, "", nil, tc.backends)
		if strings.Count(before, `"description":"`+tc.old+`"`) != 1 {
			t.Fatalf("%s: the schema does not hold %s's description once: %s", tc.tool, tc.param, before)
		}
		want := strings.Replace(before, `"description":"`+tc.old+`"`, `"description":"`+quoted+`"`, 1)
		if after != want {
			t.Errorf("%s.%s: schema\n%s\nwant\n%s", tc.tool, tc.param, after, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// With refuses every change the core cannot honour, each with a reason
// that names what is allowed; all of an overlay's refusals come at once,
// sorted by path, and the surface it was applied to is unchanged.
func TestWithRefuses(t *testing.T) {
	one := func(tool string, c toolspec.ToolOverlay) toolspec.Overlay {
		return toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{tool: c}}
	}
	tests := []struct {
		name    string
		overlay toolspec.Overlay
		want    []toolspec.OverlayError
	}{
		{"unknown tool", one("cat", toolspec.ToolOverlay{Offered: ptr(false)}),
			[]toolspec.OverlayError{{"tools.cat", "no tool cat in the spec; tools: read, ls, find, grep, write, edit, delete, exec, publish"}}},
		{"unknown tool, not an identifier", one("my-tool", toolspec.ToolOverlay{}),
			[]toolspec.OverlayError{{`tools."my-tool"`, "no tool my-tool in the spec; tools: read, ls, find, grep, write, edit, delete, exec, publish"}}},
		{"unknown tool, a hidden field's name", one("_read", toolspec.ToolOverlay{}),
			[]toolspec.OverlayError{{`tools."_read"`, "no tool _read in the spec; tools: read, ls, find, grep, write, edit, delete, exec, publish"}}},
		{"renamed parameter", one("read", toolspec.ToolOverlay{Params: map[string]string{"lines": "x"}}),
			[]toolspec.OverlayError{{"tools.read.params.lines", "read has no parameter lines (it takes path, offset, byteOffset, limit): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added"}}},
		{"item property as a top-level parameter", one("edit", toolspec.ToolOverlay{Params: map[string]string{"oldText": "x"}}),
			[]toolspec.OverlayError{{"tools.edit.params.oldText", "edit has no parameter oldText (it takes path, edits, edits.oldText, edits.newText): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added"}}},
		{"unknown item property", one("edit", toolspec.ToolOverlay{Params: map[string]string{"edits.old": "x"}}),
			[]toolspec.OverlayError{{`tools.edit.params."edits.old"`, "edit has no parameter edits.old (it takes path, edits, edits.oldText, edits.newText): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added"}}},
		{"parameter with backend variants", one("exec", toolspec.ToolOverlay{Params: map[string]string{"command": "x"}}),
			[]toolspec.OverlayError{{"tools.exec.params.command", "the description of exec's command varies with its backends (the spec's variants); it cannot be replaced"}}},
		{"empty parameter description", one("read", toolspec.ToolOverlay{Params: map[string]string{"path": ""}}),
			[]toolspec.OverlayError{{"tools.read.params.path", "is empty; a description tells the model what to do"}}},
		{"parameter description not UTF-8", one("read", toolspec.ToolOverlay{Params: map[string]string{"path": "a\xffb"}}),
			[]toolspec.OverlayError{{"tools.read.params.path", "is not valid UTF-8"}}},
		{"blank description", one("grep", toolspec.ToolOverlay{Description: ptr(" \n\t ")}),
			[]toolspec.OverlayError{{"tools.grep.description", "is empty; a description tells the model what to do"}}},
		{"NUL in a parameter description", one("grep", toolspec.ToolOverlay{Params: map[string]string{"query": "Text\x00to find"}}),
			[]toolspec.OverlayError{{"tools.grep.params.query", "holds the control character U+0000 at byte 4; a description may hold line breaks and tabs, no other control character (a NUL cuts it short where it is read as a C string)"}}},
		{"escape in a description", one("grep", toolspec.ToolOverlay{Description: ptr("Search.\r\n\x1b[1mFast.")}),
			[]toolspec.OverlayError{{"tools.grep.description", "holds the control character U+001B at byte 9; a description may hold line breaks and tabs, no other control character (a NUL cuts it short where it is read as a C string)"}}},
		{"placeholder in a parameter description", one("read", toolspec.ToolOverlay{Params: map[string]string{"limit": "Lines to read, at most {maxLines}."}}),
			[]toolspec.OverlayError{{"tools.read.params.limit", "a parameter description takes no placeholder: {maxLines} would reach the model as written; write the value itself"}}},
		{"exec's description", one("exec", toolspec.ToolOverlay{Description: ptr("Run it.")}),
			[]toolspec.OverlayError{{"tools.exec.description", "exec's description is assembled from its backends by the spec's rule (its parts in spec/tools.cue: single.shell, single.callable, multiple, backendItem, callableMark, callableSection, defaultText, hints, outputHint); they cannot be overridden yet"}}},
		{"empty description", one("grep", toolspec.ToolOverlay{Description: ptr("")}),
			[]toolspec.OverlayError{{"tools.grep.description", "is empty; a description tells the model what to do"}}},
		{"description not UTF-8", one("grep", toolspec.ToolOverlay{Description: ptr("\xc3")}),
			[]toolspec.OverlayError{{"tools.grep.description", "is not valid UTF-8"}}},
		{"undeclared placeholder", one("read", toolspec.ToolOverlay{Description: ptr("Read {path}.")}),
			[]toolspec.OverlayError{{"tools.read.description", "{path} is not a placeholder of read's description, which declares {maxLines}, {maxBytes}"}}},
		{"placeholder in a fixed description", one("ls", toolspec.ToolOverlay{Description: ptr("List {maxLines}.")}),
			[]toolspec.OverlayError{{"tools.ls.description", "{maxLines} is not a placeholder of ls's description, which declares no placeholder"}}},
		{"stray brace", one("read", toolspec.ToolOverlay{Description: ptr("Read {maxLines lines.")}),
			[]toolspec.OverlayError{{"tools.read.description", `"{maxLines lines." is not a placeholder: a placeholder is {name} or {name|format}, formats json, kb, mode, size; read's description declares {maxLines}, {maxBytes}`}}},
		{"upper-case format", one("read", toolspec.ToolOverlay{Description: ptr("{maxBytes|KB}")}),
			[]toolspec.OverlayError{{"tools.read.description", `"{maxBytes|KB}" is not a placeholder: a placeholder is {name} or {name|format}, formats json, kb, mode, size; read's description declares {maxLines}, {maxBytes}`}}},
		{"unknown format", one("read", toolspec.ToolOverlay{Description: ptr("{maxBytes|mb}")}),
			[]toolspec.OverlayError{{"tools.read.description", "{maxBytes|mb}: unknown format mb; formats: json, kb, mode, size"}}},
		{"format of another type", one("read", toolspec.ToolOverlay{Description: ptr("{maxLines|json}")}),
			[]toolspec.OverlayError{{"tools.read.description", "{maxLines|json}: format json takes a string and maxLines is an integer"}}},
		{"byte format on a limit in lines", one("read", toolspec.ToolOverlay{Description: ptr("Up to {maxLines|kb}KB.")}),
			[]toolspec.OverlayError{{"tools.read.description", "{maxLines|kb}: format kb writes bytes and maxLines is in lines"}}},
		{"size format on a limit in lines", one("read", toolspec.ToolOverlay{Description: ptr("Up to {maxBytes|size}, {maxLines|size}.")}),
			[]toolspec.OverlayError{{"tools.read.description", "{maxLines|size}: format size writes bytes and maxLines is in lines"}}},
		{"mode format on a limit", one("read", toolspec.ToolOverlay{Description: ptr("Up to {maxBytes|mode} bytes.")}),
			[]toolspec.OverlayError{{"tools.read.description", "{maxBytes|mode}: format mode writes a file mode and maxBytes is in bytes"}}},
		{"a byte cap that whole KB show as none", one("read", toolspec.ToolOverlay{Limits: map[string]int64{"maxBytes": 511}}),
			[]toolspec.OverlayError{{"tools.read.limits.maxBytes", "read's description writes maxBytes in whole KB ({maxBytes|kb}), which shows 511 bytes as 0KB: give at least 512, or a description with {maxBytes} or {maxBytes|size}"}}},
		{"a description in whole KB of a small cap", one("read", toolspec.ToolOverlay{Description: ptr("Up to {maxBytes|kb}KB."), Limits: map[string]int64{"maxBytes": 100}}),
			[]toolspec.OverlayError{{"tools.read.limits.maxBytes", "read's description writes maxBytes in whole KB ({maxBytes|kb}), which shows 100 bytes as 0KB: give at least 512, or a description with {maxBytes} or {maxBytes|size}"}}},
		{"unknown limit", one("read", toolspec.ToolOverlay{Limits: map[string]int64{"maxLine": 5}}),
			[]toolspec.OverlayError{{"tools.read.limits.maxLine", "read has no limit maxLine (its limits: maxLines, maxBytes, maxModelBytes, mediaSniffBytes); settable limits: " + settable}}},
		{"limit of a tool with none", one("delete", toolspec.ToolOverlay{Limits: map[string]int64{"maxBytes": 5}}),
			[]toolspec.OverlayError{{"tools.delete.limits.maxBytes", "delete has no limit maxBytes (it has none); settable limits: " + settable}}},
		{"fixed limit", one("ls", toolspec.ToolOverlay{Limits: map[string]int64{"page": 50}}),
			[]toolspec.OverlayError{{"tools.ls.limits.page", "ls's page is fixed: the input schema's bounds, a description or a message the model sees carry it, or core relies on it; settable limits: " + settable}}},
		{"limit below range", one("read", toolspec.ToolOverlay{Limits: map[string]int64{"maxLines": 0}}),
			[]toolspec.OverlayError{{"tools.read.limits.maxLines", "0 is out of range: read.maxLines must be from 1 to 9007199254740990"}}},
		{"limit above range", one("write", toolspec.ToolOverlay{Limits: map[string]int64{"maxBytes": 1 << 53}}),
			[]toolspec.OverlayError{{"tools.write.limits.maxBytes", "9007199254740992 is out of range: write.maxBytes must be from 1 to 9007199254740990"}}},
		{"limit out of the spec's own range", one("publish", toolspec.ToolOverlay{Limits: map[string]int64{"expiresAfter": -1}}),
			[]toolspec.OverlayError{{"tools.publish.limits.expiresAfter", "-1 is out of range: publish.expiresAfter must be from 1 to 9007199254740991"}}},
		{"limit a parameter description states in words", one("publish", toolspec.ToolOverlay{Limits: map[string]int64{"expiresAfter": 60000}}),
			[]toolspec.OverlayError{{"tools.publish.limits.expiresAfter", `the description of publish's expiresAfterMs states the default ("Link lifetime in milliseconds. Defaults to one hour."): an overlay that changes publish.expiresAfter must also give params.expiresAfterMs a description that states the new one`}}},
		{"several at once, sorted by path", toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
			"read": {Limits: map[string]int64{"maxLines": -5, "maxBytes": 0}, Params: map[string]string{"path": "", "file": "x"}, Description: ptr("{x}")},
			"exec": {Description: ptr("x"), Offered: ptr(false)},
			"zzz":  {},
			"grep": {Description: ptr("Search.")},
		}}, []toolspec.OverlayError{
			{"tools.exec.description", "exec's description is assembled from its backends by the spec's rule (its parts in spec/tools.cue: single.shell, single.callable, multiple, backendItem, callableMark, callableSection, defaultText, hints, outputHint); they cannot be overridden yet"},
			{"tools.read.description", "{x} is not a placeholder of read's description, which declares {maxLines}, {maxBytes}"},
			{"tools.read.limits.maxBytes", "0 is out of range: read.maxBytes must be from 1 to 9007199254740990"},
			{"tools.read.limits.maxLines", "-5 is out of range: read.maxLines must be from 1 to 9007199254740990"},
			{"tools.read.params.file", "read has no parameter file (it takes path, offset, byteOffset, limit): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added"},
			{"tools.read.params.path", "is empty; a description tells the model what to do"},
			{"tools.zzz", "no tool zzz in the spec; tools: read, ls, find, grep, write, edit, delete, exec, publish"},
		}},
	}
	base, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"grep": {Description: ptr("Search.")}}})
	if err != nil {
		t.Fatal(err)
	}
	before := base.Overlay()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := base.With(tc.overlay)
			if s != nil {
				t.Errorf("With returned a surface with its error")
			}
			var got []toolspec.OverlayError
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var oe *toolspec.OverlayError
				if !errors.As(e, &oe) {
					t.Fatalf("%v is not an *OverlayError", e)
				}
				got = append(got, *oe)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("With errors\n%q\nwant\n%q", got, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "overlay: "+tc.want[0].Path+": "+tc.want[0].Reason) {
				t.Errorf("Error() = %q", err)
			}
			if !reflect.DeepEqual(base.Overlay(), before) {
				t.Errorf("the surface changed: %+v", base.Overlay())
			}
			if d, _ := base.Describe("grep", "", nil, nil); d != "Search." {
				t.Errorf("grep's description became %q", d)
			}
		})
	}
}

const settable = "read.maxLines, read.maxBytes, read.maxModelBytes, read.mediaSniffBytes, write.maxBytes, edit.maxBytes, edit.maxDiffLines, edit.maxDiffBytes, exec.maxLines, exec.maxBytes, publish.expiresAfter"

// With applies what it accepts on a new surface: offered, descriptions,
// parameter descriptions and limits; a later With adds to an earlier one
// and Overlay gives back the changes accumulated.
func TestWithApplies(t *testing.T) {
	a, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Limits: map[string]int64{"maxLines": 500}, Params: map[string]string{"path": "Absolute path of the file"}},
		"exec": {Offered: ptr(false)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Limits: map[string]int64{"maxLines": 400, "maxBytes": 1000}},
		"grep": {Description: ptr("Search file contents.")},
		"exec": {Offered: ptr(true)},
		"ls":   {Params: map[string]string{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolspec.Ours().Limit("read", "maxLines"); got != toolspec.ReadMaxLinesDefault {
		t.Errorf("Ours changed: read.maxLines = %d", got)
	}
	if got := a.Limit("read", "maxLines"); got != 500 {
		t.Errorf("a: read.maxLines = %d, want 500", got)
	}
	if got := a.Limit("read", "maxBytes"); got != toolspec.ReadMaxBytesDefault {
		t.Errorf("a: read.maxBytes = %d, want the spec's", got)
	}
	if a.Offered("exec") || !b.Offered("exec") || !a.Offered("read") {
		t.Errorf("offered: a exec %v, b exec %v, a read %v", a.Offered("exec"), b.Offered("exec"), a.Offered("read"))
	}
	if d, _ := a.Describe("read", "", nil, nil); d != toolspec.ReadDescription(500, toolspec.ReadMaxBytesDefault) {
		t.Errorf("a: read's description %q does not use the overlay's default", d)
	}
	if d, _ := b.Describe("grep", "", nil, nil); d != "Search file contents." {
		t.Errorf("b: grep's description %q", d)
	}
	if _, schema := b.Describe("read", "", nil, nil); !strings.Contains(schema, `"description":"Absolute path of the file"`) {
		t.Errorf("b lost a's parameter description: %s", schema)
	}
	want := toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Limits: map[string]int64{"maxLines": 400, "maxBytes": 1000}, Params: map[string]string{"path": "Absolute path of the file"}},
		"grep": {Description: ptr("Search file contents.")},
		"exec": {Offered: ptr(true)},
	}}
	if got := b.Overlay(); !reflect.DeepEqual(got, want) {
		t.Errorf("Overlay() = %+v, want %+v", got, want)
	}
	if got := toolspec.Ours().Overlay(); !reflect.DeepEqual(got, toolspec.Overlay{}) {
		t.Errorf("Ours().Overlay() = %+v, want the zero Overlay", got)
	}
}

// A limit whose default a parameter description states in words
// (publish's expiresAfter, "Defaults to one hour.") changes only with a
// new wording of that description in the same overlay: a later overlay
// that changes the limit again, back to the spec's default too, words it
// anew; one that keeps the value needs no wording.
func TestWithStatedLimit(t *testing.T) {
	minute := "Link lifetime in milliseconds. Defaults to one minute."
	a, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"publish": {Limits: map[string]int64{"expiresAfter": 60000}, Params: map[string]string{"expiresAfterMs": minute}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, schema := a.Describe("publish", "", nil, nil); !strings.Contains(schema, minute) || a.Limit("publish", "expiresAfter") != 60000 {
		t.Errorf("a: expiresAfter %d, schema %s", a.Limit("publish", "expiresAfter"), schema)
	}
	if _, err := a.With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"publish": {Limits: map[string]int64{"expiresAfter": 60000}}}}); err != nil {
		t.Errorf("keeping the value: %v", err)
	}
	if _, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"publish": {Limits: map[string]int64{"expiresAfter": toolspec.PublishExpiresAfterDefault}}}}); err != nil {
		t.Errorf("the spec's default on Ours: %v", err)
	}
	for _, v := range []int64{toolspec.PublishExpiresAfterDefault, 120000} {
		_, err := a.With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"publish": {Limits: map[string]int64{"expiresAfter": v}}}})
		if err == nil || !strings.Contains(err.Error(), `overlay: tools.publish.limits.expiresAfter: the description of publish's expiresAfterMs states the default ("`+minute+`")`) {
			t.Errorf("changing a's expiresAfter to %d without a new wording: %v", v, err)
		}
	}
}

// A byte cap below 512 is accepted with a description that does not
// write it in whole KB, and shown as it is; a later description that
// writes it in whole KB is refused.
func TestWithSmallByteCap(t *testing.T) {
	s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Description: ptr("Up to {maxLines} lines or {maxBytes|size}."), Limits: map[string]int64{"maxBytes": 300}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Describe("read", "", nil, nil); d != "Up to 2000 lines or 300B." {
		t.Errorf("read's description: %q", d)
	}
	_, err = s.With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"read": {Description: ptr("Up to {maxBytes|kb}KB.")}}})
	if err == nil || err.Error() != "overlay: tools.read.description: read's description writes maxBytes in whole KB ({maxBytes|kb}), which shows 300 bytes as 0KB: give at least 512, or a description with {maxBytes} or {maxBytes|size}" {
		t.Errorf("a description in whole KB over a 300-byte cap: %v", err)
	}
}

// A parameter description may hold braces that are no placeholder (a
// JSON example); only what reads as a placeholder is refused.
func TestWithParamBraces(t *testing.T) {
	s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"exec": {Params: map[string]string{"env": `Variables, e.g. {"CI": "1"}; {} for none.`}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, schema := s.Describe("exec", "", nil, []toolspec.ExecBackend{{ID: "shell"}}); !strings.Contains(schema, `"description":"Variables, e.g. {\"CI\": \"1\"}; {} for none."`) {
		t.Errorf("exec's schema: %s", schema)
	}
}

// Limit and Describe panic on a name the spec does not have: that is a
// programming error, not the model's or the overlay's.
func TestSurfacePanicsOnUnknownNames(t *testing.T) {
	for name, f := range map[string]func(){
		"Limit tool":  func() { toolspec.Ours().Limit("cat", "maxLines") },
		"Limit limit": func() { toolspec.Ours().Limit("read", "lines") },
		"Offered":     func() { toolspec.Ours().Offered("cat") },
		"Describe":    func() { toolspec.Ours().Describe("cat", "", nil, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// An overlay's JSON form has the CUE form's field names.
func TestOverlayJSON(t *testing.T) {
	var o toolspec.Overlay
	src := `{"tools":{"read":{"limits":{"maxLines":500},"params":{"path":"P"}},"grep":{"description":"G"},"exec":{"offered":false}}}`
	if err := json.Unmarshal([]byte(src), &o); err != nil {
		t.Fatal(err)
	}
	want := toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Limits: map[string]int64{"maxLines": 500}, Params: map[string]string{"path": "P"}},
		"grep": {Description: ptr("G")},
		"exec": {Offered: ptr(false)},
	}}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("decoded %+v, want %+v", o, want)
	}
	if back, _ := json.Marshal(want); string(back) != `{"tools":{"exec":{"offered":false},"grep":{"description":"G"},"read":{"params":{"path":"P"},"limits":{"maxLines":500}}}}` {
		t.Errorf("encoded %s", back)
	}
}

// TestDescriptionKeepsItsOwnBraces: a brace that cannot be meant as a
// placeholder (a brace glob, a JSON object, a lone brace) is the
// description's own text, which the model sees as written; a brace that
// starts a declared name or a name with a format is still refused (the
// table of TestWithRefuses).
func TestDescriptionKeepsItsOwnBraces(t *testing.T) {
	for _, c := range []struct{ tool, text, want string }{
		{"find", `Find files by glob, e.g. src/{a,b}/*.ts or **/*.{go,md}.`, `Find files by glob, e.g. src/{a,b}/*.ts or **/*.{go,md}.`},
		{"grep", `Search text; include takes {"*.go"} or [] and a lone { or }.`, `Search text; include takes {"*.go"} or [] and a lone { or }.`},
		{"read", `Read at most {maxLines} lines of {a,b}/x or { "k": 1 }.`, `Read at most 2000 lines of {a,b}/x or { "k": 1 }.`},
	} {
		s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{c.tool: {Description: ptr(c.text)}}})
		if err != nil {
			t.Errorf("%s: %q refused: %v", c.tool, c.text, err)
			continue
		}
		if got, _ := s.Describe(c.tool, "", nil, nil); got != c.want {
			t.Errorf("%s: description %q, want %q", c.tool, got, c.want)
		}
	}
}

// TestZeroSurfaceIsOurs: a Surface not made by Ours or With (nil, or the
// zero value a caller can write) means the spec's surface, for every
// method, rather than a panic in the tool set that uses it.
func TestZeroSurfaceIsOurs(t *testing.T) {
	for name, s := range map[string]*toolspec.Surface{"nil": nil, "zero": new(toolspec.Surface)} {
		for _, tool := range toolspec.ToolNames {
			if !s.Offered(tool) {
				t.Errorf("%s: %s not offered", name, tool)
			}
			d, schema := s.Describe(tool, "", nil, []toolspec.ExecBackend{{ID: "shell"}})
			wd, wschema := toolspec.Ours().Describe(tool, "", nil, []toolspec.ExecBackend{{ID: "shell"}})
			if d != wd || schema != wschema {
				t.Errorf("%s: %s described otherwise than by Ours", name, tool)
			}
		}
		if got := s.Limit("read", "maxLines"); got != toolspec.ReadMaxLinesDefault {
			t.Errorf("%s: read.maxLines %d", name, got)
		}
		if o := s.Overlay(); o.Tools != nil {
			t.Errorf("%s: overlay %v", name, o)
		}
		n, err := s.With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"read": {Limits: map[string]int64{"maxLines": 7}}}})
		if err != nil || n.Limit("read", "maxLines") != 7 || n.Limit("read", "maxBytes") != toolspec.ReadMaxBytesDefault {
			t.Errorf("%s: With: %v", name, err)
		}
	}
}

// TestDescribeAddsParamDescriptions: a parameter the spec's schema leaves
// undescribed (find's limit, grep's context) gets the overlay's text as the
// first key of its object, escaped as JSON.stringify escapes (<, &, > and
// U+2028 as themselves); every other byte of the schema is the spec's.
func TestDescribeAddsParamDescriptions(t *testing.T) {
	const text = "At most this many, \u2028 <&> \"quoted\""
	const written = `"description":"At most this many, ` + "\u2028" + ` <&> \"quoted\"",`
	for _, c := range []struct{ tool, param, before string }{
		{"find", "limit", `"limit":{`},
		{"grep", "context", `"context":{`},
	} {
		s, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{c.tool: {Params: map[string]string{c.param: text}}}})
		if err != nil {
			t.Fatalf("%s.%s: %v", c.tool, c.param, err)
		}
		_, ours := toolspec.Ours().Describe(c.tool, "", nil, nil)
		_, got := s.Describe(c.tool, "", nil, nil)
		if strings.Count(ours, c.before) != 1 {
			t.Fatalf("%s: the spec's schema no longer has %s once: %s", c.tool, c.before, ours)
		}
		if want := strings.Replace(ours, c.before, c.before+written, 1); got != want {
			t.Errorf("%s.%s: schema\n%s\nwant\n%s", c.tool, c.param, got, want)
		}
		var v any
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Errorf("%s.%s: not JSON: %v", c.tool, c.param, err)
		}
	}
}
