package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

const argsFile = "/workspace/a.txt"

var argsFiles = map[string]string{argsFile: "alpha\nbeta\n"}

// wholeRead is the positioned (json) read of argsFile from its start.
func wholeRead() toolspec.Output {
	return jsonOut(toolspec.ReadResult{Path: argsFile, Content: "alpha\nbeta", StartLine: 1, EndLine: 2, TotalLines: ptr(int64(2))})
}

func TestCallAcceptsArguments(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	missingPath := invalid(toolspec.ToolRead, toolspec.MsgArgumentsMissing("path"))
	tests := []struct {
		name string
		tool string
		args string
		want toolspec.Output
	}{
		{"empty text is {}", toolspec.ToolRead, "", missingPath},
		{"blank text is {}", toolspec.ToolRead, "  ", missingPath},
		{"whitespace of every kind is {}", toolspec.ToolRead, " \t\r\n", missingPath},
		{"{}", toolspec.ToolRead, "{}", missingPath},
		{"surrounding whitespace", toolspec.ToolRead, " \n{\"path\":\"/workspace/a.txt\"}\n ", textOut("alpha\nbeta")},
		{"duplicate key: the last wins", toolspec.ToolRead, `{"path":"/workspace/nope","path":"/workspace/a.txt"}`, textOut("alpha\nbeta")},
		{"duplicate key: the last wins even when the first is valid", toolspec.ToolRead, `{"path":"/workspace/a.txt","path":"/workspace/nope"}`, errText(toolspec.MsgReadFileNotFound("/workspace/nope"))},
		{"1.0 is an integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":1.0}`, wholeRead()},
		{"1e0 is an integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":1e0}`, wholeRead()},
		{"1e3 is an integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","limit":1e3}`, textOut("alpha\nbeta")},
		{"10E-1 is an integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":10E-1}`, wholeRead()},
		{"-0 is zero", toolspec.ToolRead, `{"path":"/workspace/a.txt","byteOffset":-0}`, wholeRead()},
		{"byteOffset 0 needs no offset", toolspec.ToolRead, `{"path":"/workspace/a.txt","byteOffset":0}`, wholeRead()},
		{"the largest safe integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":9007199254740991}`,
			errText(toolspec.MsgReadOffsetBeyondEnd(9007199254740991, 2))},
		{"find path defaults to the workspace", toolspec.ToolFind, `{"pattern":"*.txt"}`,
			jsonOut(toolspec.FindResult{Path: toolspec.WorkspaceRoot, Pattern: "*.txt", Count: 1, Entries: []toolspec.FindEntry{{Path: argsFile, Type: toolspec.MsgFindTypeFile}}})},
		{"grep path defaults to the workspace", toolspec.ToolGrep, `{"query":"beta"}`,
			jsonOut(toolspec.GrepResult{Path: toolspec.WorkspaceRoot, Query: "beta", Count: 1, Matches: []toolspec.GrepMatch{{Path: argsFile, Line: 2, Text: "beta"}}})},
		{"exclude as one string", toolspec.ToolFind, `{"pattern":"**","exclude":"*.txt"}`,
			jsonOut(toolspec.FindResult{Path: toolspec.WorkspaceRoot, Pattern: "**", Count: 0, Entries: []toolspec.FindEntry{}})},
		{"exclude as a list", toolspec.ToolFind, `{"pattern":"**","exclude":["x","*.txt"]}`,
			jsonOut(toolspec.FindResult{Path: toolspec.WorkspaceRoot, Pattern: "**", Count: 0, Entries: []toolspec.FindEntry{}})},
		{"an empty exclude list", toolspec.ToolFind, `{"pattern":"**","exclude":[]}`,
			jsonOut(toolspec.FindResult{Path: toolspec.WorkspaceRoot, Pattern: "**", Count: 1, Entries: []toolspec.FindEntry{{Path: argsFile, Type: toolspec.MsgFindTypeFile}}})},
		{"booleans", toolspec.ToolGrep, `{"query":"BETA","ignoreCase":true,"regex":false}`,
			jsonOut(toolspec.GrepResult{Path: toolspec.WorkspaceRoot, Query: "BETA", Count: 1, Matches: []toolspec.GrepMatch{{Path: argsFile, Line: 2, Text: "beta"}}})},
		{"strings are unescaped", toolspec.ToolRead, `{"path":"\/workspace\/a\u002etxt"}`, textOut("alpha\nbeta")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, call(t, ex, tt.tool, tt.args), tt.want)
		})
	}
}

func TestCallRefusesArguments(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	readNames := paramNames(toolspec.ReadParams)
	maxOffset := param(t, toolspec.ReadParams, "offset").Maximum
	longKey := strings.Repeat("k", 50)
	tests := []struct {
		name string
		tool string
		args string
		want toolspec.Output
	}{
		// Missing and mistyped arguments.
		{"missing path", toolspec.ToolRead, `{}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsMissing("path"))},
		{"missing content", toolspec.ToolWrite, `{"path":"/workspace/b.txt"}`, invalid(toolspec.ToolWrite, toolspec.MsgArgumentsMissing("content"))},
		{"missing pattern", toolspec.ToolFind, `{"path":"/workspace"}`, invalid(toolspec.ToolFind, toolspec.MsgArgumentsMissing("pattern"))},
		{"path is a number", toolspec.ToolRead, `{"path":1}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameNumber))},
		{"path is a boolean", toolspec.ToolRead, `{"path":true}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameBoolean))},
		{"path is null", toolspec.ToolRead, `{"path":null}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameNull))},
		{"path is an array", toolspec.ToolRead, `{"path":["/workspace/a.txt"]}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameArray))},
		{"path is an object", toolspec.ToolRead, `{"path":{}}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameObject))},
		{"a defaulted path is null", toolspec.ToolFind, `{"path":null,"pattern":"*"}`, invalid(toolspec.ToolFind, toolspec.MsgArgumentsWrongType("path", toolspec.TypeNameString, toolspec.TypeNameNull))},
		{"offset is a string", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":"1"}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("offset", toolspec.TypeNameInteger, toolspec.TypeNameString))},
		{"offset is null", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":null}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsWrongType("offset", toolspec.TypeNameInteger, toolspec.TypeNameNull))},
		{"recursive is a string", toolspec.ToolDelete, `{"path":"/workspace/a.txt","recursive":"yes"}`, invalid(toolspec.ToolDelete, toolspec.MsgArgumentsWrongType("recursive", toolspec.TypeNameBoolean, toolspec.TypeNameString))},
		{"regex is a number", toolspec.ToolGrep, `{"query":"a","regex":1}`, invalid(toolspec.ToolGrep, toolspec.MsgArgumentsWrongType("regex", toolspec.TypeNameBoolean, toolspec.TypeNameNumber))},
		{"exclude is a number", toolspec.ToolFind, `{"pattern":"*","exclude":5}`, invalid(toolspec.ToolFind, toolspec.MsgArgumentsWrongType("exclude", toolspec.TypeNameStringOrList, toolspec.TypeNameNumber))},
		{"exclude is an object", toolspec.ToolFind, `{"pattern":"*","exclude":{}}`, invalid(toolspec.ToolFind, toolspec.MsgArgumentsWrongType("exclude", toolspec.TypeNameStringOrList, toolspec.TypeNameObject))},
		{"exclude holds a number", toolspec.ToolFind, `{"pattern":"*","exclude":["a",1]}`, invalid(toolspec.ToolFind, toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsElement("exclude", 1), toolspec.TypeNameString, toolspec.TypeNameNumber))},
		{"include holds null and a list", toolspec.ToolGrep, `{"query":"a","include":[null,"b",["c"]]}`, invalid(toolspec.ToolGrep,
			toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsElement("include", 0), toolspec.TypeNameString, toolspec.TypeNameNull),
			toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsElement("include", 2), toolspec.TypeNameString, toolspec.TypeNameArray))},

		// Numbers.
		{"2.5 is not an integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":2.5}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotInteger("offset", "2.5"))},
		{"1e-7 is not an integer", toolspec.ToolRead, `{"path":"/workspace/a.txt","limit":1e-7}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotInteger("limit", "1e-7"))},
		{"offset 0 is too small", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":0}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsTooSmall("offset", 1, "0"))},
		{"negative byteOffset", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":1,"byteOffset":-1}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsTooSmall("byteOffset", 0, "-1"))},
		{"ls limit above the page maximum", toolspec.ToolLs, `{"path":"/workspace","limit":1001}`, invalid(toolspec.ToolLs, toolspec.MsgArgumentsTooBig("limit", toolspec.LsPageMax, "1001"))},
		{"ls limit 0", toolspec.ToolLs, `{"path":"/workspace","limit":0}`, invalid(toolspec.ToolLs, toolspec.MsgArgumentsTooSmall("limit", toolspec.LsPageMin, "0"))},
		{"grep context above 10", toolspec.ToolGrep, `{"query":"a","context":11}`, invalid(toolspec.ToolGrep, toolspec.MsgArgumentsTooBig("context", toolspec.GrepContextMax, "11"))},
		{"2^53 is too big", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":9007199254740992}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsTooBig("offset", maxOffset, "9007199254740992"))},
		{"1e300 is too big", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":1e300}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsTooBig("offset", maxOffset, "1e300"))},
		{"1e400 overflows and is too big", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":1e400}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsTooBig("offset", maxOffset, "1e400"))},
		{"-1e400 overflows and is too small", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":-1e400}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsTooSmall("offset", 1, "-1e400"))},

		// Keys the schema does not declare (deviation unknownArguments).
		{"unknown keys, sorted, each named", toolspec.ToolRead, `{"path":"/workspace/a.txt","zeta":1,"alpha":true}`, invalid(toolspec.ToolRead,
			toolspec.MsgArgumentsUnknown("alpha", readNames), toolspec.MsgArgumentsUnknown("zeta", readNames))},
		{"a meaning-changing unknown key", toolspec.ToolDelete, `{"path":"/workspace/a.txt","dryRun":true}`, invalid(toolspec.ToolDelete,
			toolspec.MsgArgumentsUnknown("dryRun", paramNames(toolspec.DeleteParams)))},
		{"a long unknown key is shortened", toolspec.ToolRead, `{"path":"/workspace/a.txt","` + longKey + `":1}`, invalid(toolspec.ToolRead,
			toolspec.MsgArgumentsUnknown(toolspec.MsgShortened(longKey[:40]), readNames))},

		// The cross-argument rule.
		{"byteOffset without offset", toolspec.ToolRead, `{"path":"/workspace/a.txt","byteOffset":21}`, invalid(toolspec.ToolRead, toolspec.ReadRules[0].Message)},

		// Several problems at once, in parameter order, unknown keys last.
		{"several problems", toolspec.ToolRead, `{"extra":1,"limit":"2","offset":0}`, invalid(toolspec.ToolRead,
			toolspec.MsgArgumentsMissing("path"),
			toolspec.MsgArgumentsTooSmall("offset", 1, "0"),
			toolspec.MsgArgumentsWrongType("limit", toolspec.TypeNameInteger, toolspec.TypeNameString),
			toolspec.MsgArgumentsUnknown("extra", readNames))},

		// Text that is not a JSON object.
		{"invalid UTF-8", toolspec.ToolRead, "{\"path\":\"/workspace/\xff\"}", invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotUTF8)},
		{"invalid JSON", toolspec.ToolRead, `{not json`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONUnexpected("n", 1)))},
		{"the offset counts leading space", toolspec.ToolRead, ` {"path":x}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONUnexpected("x", 9)))},
		{"the offset counts bytes", toolspec.ToolRead, `{"pâth":é}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONUnexpected("é", 9)))},
		{"a control character in a string", toolspec.ToolRead, "{\"path\":\"a\nb\"}", invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONUnexpected("\n", 10)))},
		{"a comma before the end", toolspec.ToolRead, `{"path":"/workspace/a.txt",}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONUnexpected("}", 27)))},
		{"truncated JSON", toolspec.ToolRead, `{"path":`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONEnd))},
		{"an unterminated string", toolspec.ToolRead, `{"path":"/workspace`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONEnd))},
		{"trailing garbage", toolspec.ToolRead, `{"path":"/workspace/a.txt"} x`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsTrailing("x")))},
		{"a second value", toolspec.ToolRead, `{"path":"/workspace/a.txt"}{}`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsTrailing("{}")))},
		{"long trailing text is shortened", toolspec.ToolRead, `{"path":"/workspace/a.txt"} ` + longKey, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsTrailing(toolspec.MsgShortened(longKey[:40]))))},
		{"an array", toolspec.ToolRead, `[]`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotObject(toolspec.TypeNameArray))},
		{"a number", toolspec.ToolRead, `42`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotObject(toolspec.TypeNameNumber))},
		{"null", toolspec.ToolRead, `null`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotObject(toolspec.TypeNameNull))},
		{"a string", toolspec.ToolRead, `"/workspace/a.txt"`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotObject(toolspec.TypeNameString))},
		{"a boolean", toolspec.ToolRead, `true`, invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotObject(toolspec.TypeNameBoolean))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, call(t, ex, tt.tool, tt.args), tt.want)
		})
	}
}

// TestCallNamesArgumentParts: an element of a list argument, a property
// of an element or of a record, and the lists a message quotes are
// written as the spec writes them.
func TestCallNamesArgumentParts(t *testing.T) {
	scripted := func(id string) execbackend.Backend {
		return execbackend.NewScripted(execbackend.Info{ID: id}, execbackend.NewScripts(nil))
	}
	ex := newExec(t, core.Options{Backends: []execbackend.Backend{scripted("a"), scripted("b")}}, argsFiles)
	edit0 := toolspec.MsgArgumentsElement("edits", 0)
	itemNames := paramNames(param(t, toolspec.EditParams, "edits").Items)
	tests := []struct {
		name string
		tool string
		args string
		want toolspec.Output
	}{
		{"a property of an element", toolspec.ToolEdit, `{"path":"/workspace/a.txt","edits":[{"oldText":"a"}]}`,
			invalid(toolspec.ToolEdit, toolspec.MsgArgumentsMissing(toolspec.MsgArgumentsProperty(edit0, "newText")))},
		{"an unknown property of an element", toolspec.ToolEdit, `{"path":"/workspace/a.txt","edits":[{"oldText":"a","newText":"b","x":1}]}`,
			invalid(toolspec.ToolEdit, toolspec.MsgArgumentsUnknown(toolspec.MsgArgumentsProperty(edit0, "x"), itemNames))},
		{"an element that is no object", toolspec.ToolEdit, `{"path":"/workspace/a.txt","edits":[{"oldText":"a","newText":"b"},1]}`,
			invalid(toolspec.ToolEdit, toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsElement("edits", 1), toolspec.TypeNameObject, toolspec.TypeNameNumber))},
		{"a property of a record", toolspec.ToolExec, `{"command":"true","backend":"a","env":{"A":1}}`,
			invalid(toolspec.ToolExec, toolspec.MsgArgumentsWrongType(toolspec.MsgArgumentsProperty("env", "A"), toolspec.TypeNameString, toolspec.TypeNameNumber))},
		{"a value outside the enum", toolspec.ToolExec, `{"command":"true","backend":"c"}`,
			invalid(toolspec.ToolExec, toolspec.MsgArgumentsNotInEnum("backend", `"a"`+toolspec.MsgArgumentsListSeparator+`"b"`, `"c"`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, call(t, ex, tt.tool, tt.args), tt.want)
		})
	}
}

// TestCallRefusesDeepNesting: a hostile nesting depth is refused as
// invalid JSON with a reason, not a stack overflow.
func TestCallRefusesDeepNesting(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	const depth = 100000
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	tests := []struct {
		name string
		args string
	}{
		{"top level", deep},
		{"in a value", `{"path":"/workspace/a.txt","offset":` + deep + `}`},
		{"in an unknown key", `{"path":"/workspace/a.txt","x":` + deep + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, call(t, ex, toolspec.ToolRead, tt.args), invalid(toolspec.ToolRead, toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONTooDeep)))
		})
	}
}

// TestCallWriteCapNotDecoder: a content far above the write cap decodes
// fine and is refused by write itself, which then writes nothing.
func TestCallWriteCapNotDecoder(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	const size = 10 << 20
	args := `{"path":"/workspace/big.txt","content":"` + strings.Repeat("x", size) + `"}`
	checkOutput(t, call(t, ex, toolspec.ToolWrite, args), errJSON(toolspec.MsgWriteContentTooLarge("", size, toolspec.WriteMaxBytesDefault)))
	if _, err := ex.Workspace().Lstat(t.Context(), "/workspace/big.txt"); err == nil {
		t.Errorf("a refused write created /workspace/big.txt")
	}

	// Just under the cap is written.
	args = `{"path":"/workspace/big.txt","content":"` + strings.Repeat("é", int(toolspec.WriteMaxBytesDefault/2)) + `"}`
	checkOutput(t, call(t, ex, toolspec.ToolWrite, args), jsonOut(toolspec.WriteResult{Path: "/workspace/big.txt", BytesWritten: toolspec.WriteMaxBytesDefault}))
	// The cap counts UTF-8 bytes: one more two-byte character is over it.
	args = `{"path":"/workspace/big.txt","content":"` + strings.Repeat("é", int(toolspec.WriteMaxBytesDefault/2)+1) + `"}`
	checkOutput(t, call(t, ex, toolspec.ToolWrite, args), errJSON(toolspec.MsgWriteContentTooLarge("", toolspec.WriteMaxBytesDefault+2, toolspec.WriteMaxBytesDefault)))
}

// TestCallUnchecked: raw calls skip the schema and reach the tool's own
// checks, as the reference's tools called directly do.
func TestCallUnchecked(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	tests := []struct {
		name string
		tool string
		args string
		want toolspec.Output
	}{
		{"read's own byteOffset rule", toolspec.ToolRead, `{"path":"/workspace/a.txt","byteOffset":21}`, errText(toolspec.ReadRules[0].Message)},
		{"an unknown key is ignored", toolspec.ToolRead, `{"path":"/workspace/a.txt","dryRun":true}`, textOut("alpha\nbeta")},
		{"a mistyped field is left out", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":"2"}`, textOut("alpha\nbeta")},
		{"byteOffset with offset", toolspec.ToolRead, `{"path":"/workspace/a.txt","offset":2,"byteOffset":6}`,
			jsonOut(toolspec.ReadResult{Path: argsFile, Content: "beta", StartLine: 2, EndLine: 2, TotalLines: ptr(int64(2))})},
		{"find without a path searches from the default", toolspec.ToolFind, `{"path":"/workspace","pattern":"*"}`,
			jsonOut(toolspec.FindResult{Path: toolspec.WorkspaceRoot, Pattern: "*", Count: 1, Entries: []toolspec.FindEntry{{Path: argsFile, Type: toolspec.MsgFindTypeFile}}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ex.CallUnchecked(t.Context(), tt.tool, []byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, out, tt.want)
		})
	}
}

func TestCallUnknownTool(t *testing.T) {
	ex := newExec(t, core.Options{Readonly: true}, argsFiles)
	for _, name := range []string{"nope", toolspec.ToolWrite, toolspec.ToolDelete, toolspec.ToolExec} {
		for _, unchecked := range []bool{false, true} {
			callFn := ex.Call
			if unchecked {
				callFn = ex.CallUnchecked
			}
			_, err := callFn(t.Context(), name, []byte(`{"path":"/workspace/a.txt","content":""}`))
			var unknown *toolspec.UnknownToolError
			if !errors.As(err, &unknown) || unknown.Tool != name {
				t.Errorf("%s (unchecked %v): got error %v, want *toolspec.UnknownToolError for it", name, unchecked, err)
			}
		}
	}
}
