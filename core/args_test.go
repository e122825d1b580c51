package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/gen"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

const argsFile = "/workspace/a.txt"

var argsFiles = map[string]string{argsFile: "alpha\nbeta\n"}

// wholeRead is the positioned (json) read of argsFile from its start.
func wholeRead() gen.Output {
	return jsonOut(gen.ReadResult{Path: argsFile, Content: "alpha\nbeta", StartLine: 1, EndLine: 2, TotalLines: ptr(int64(2))})
}

func TestCallAcceptsArguments(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	missingPath := invalid(gen.ToolRead, gen.MsgArgumentsMissing("path"))
	tests := []struct {
		name string
		tool string
		args string
		want gen.Output
	}{
		{"empty text is {}", gen.ToolRead, "", missingPath},
		{"blank text is {}", gen.ToolRead, "  ", missingPath},
		{"whitespace of every kind is {}", gen.ToolRead, " \t\r\n", missingPath},
		{"{}", gen.ToolRead, "{}", missingPath},
		{"surrounding whitespace", gen.ToolRead, " \n{\"path\":\"/workspace/a.txt\"}\n ", textOut("alpha\nbeta")},
		{"duplicate key: the last wins", gen.ToolRead, `{"path":"/workspace/nope","path":"/workspace/a.txt"}`, textOut("alpha\nbeta")},
		{"duplicate key: the last wins even when the first is valid", gen.ToolRead, `{"path":"/workspace/a.txt","path":"/workspace/nope"}`, errText(gen.MsgReadFileNotFound("/workspace/nope"))},
		{"1.0 is an integer", gen.ToolRead, `{"path":"/workspace/a.txt","offset":1.0}`, wholeRead()},
		{"1e0 is an integer", gen.ToolRead, `{"path":"/workspace/a.txt","offset":1e0}`, wholeRead()},
		{"1e3 is an integer", gen.ToolRead, `{"path":"/workspace/a.txt","limit":1e3}`, textOut("alpha\nbeta")},
		{"10E-1 is an integer", gen.ToolRead, `{"path":"/workspace/a.txt","offset":10E-1}`, wholeRead()},
		{"-0 is zero", gen.ToolRead, `{"path":"/workspace/a.txt","byteOffset":-0}`, wholeRead()},
		{"byteOffset 0 needs no offset", gen.ToolRead, `{"path":"/workspace/a.txt","byteOffset":0}`, wholeRead()},
		{"the largest safe integer", gen.ToolRead, `{"path":"/workspace/a.txt","offset":9007199254740991}`,
			errText(gen.MsgReadOffsetBeyondEnd(9007199254740991, 2))},
		{"find path defaults to the workspace", gen.ToolFind, `{"pattern":"*.txt"}`,
			jsonOut(gen.FindResult{Path: gen.WorkspaceRoot, Pattern: "*.txt", Count: 1, Entries: []gen.FindEntry{{Path: argsFile, Type: "file"}}})},
		{"grep path defaults to the workspace", gen.ToolGrep, `{"query":"beta"}`,
			jsonOut(gen.GrepResult{Path: gen.WorkspaceRoot, Query: "beta", Count: 1, Matches: []gen.GrepMatch{{Path: argsFile, Line: 2, Text: "beta"}}})},
		{"exclude as one string", gen.ToolFind, `{"pattern":"**","exclude":"*.txt"}`,
			jsonOut(gen.FindResult{Path: gen.WorkspaceRoot, Pattern: "**", Count: 0, Entries: []gen.FindEntry{}})},
		{"exclude as a list", gen.ToolFind, `{"pattern":"**","exclude":["x","*.txt"]}`,
			jsonOut(gen.FindResult{Path: gen.WorkspaceRoot, Pattern: "**", Count: 0, Entries: []gen.FindEntry{}})},
		{"an empty exclude list", gen.ToolFind, `{"pattern":"**","exclude":[]}`,
			jsonOut(gen.FindResult{Path: gen.WorkspaceRoot, Pattern: "**", Count: 1, Entries: []gen.FindEntry{{Path: argsFile, Type: "file"}}})},
		{"booleans", gen.ToolGrep, `{"query":"BETA","ignoreCase":true,"regex":false}`,
			jsonOut(gen.GrepResult{Path: gen.WorkspaceRoot, Query: "BETA", Count: 1, Matches: []gen.GrepMatch{{Path: argsFile, Line: 2, Text: "beta"}}})},
		{"strings are unescaped", gen.ToolRead, `{"path":"\/workspace\/a\u002etxt"}`, textOut("alpha\nbeta")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, call(t, ex, tt.tool, tt.args), tt.want)
		})
	}
}

func TestCallRefusesArguments(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	readNames := paramNames(gen.ReadParams)
	maxOffset := param(t, gen.ReadParams, "offset").Maximum
	longKey := strings.Repeat("k", 50)
	tests := []struct {
		name string
		tool string
		args string
		want gen.Output
	}{
		// Missing and mistyped arguments.
		{"missing path", gen.ToolRead, `{}`, invalid(gen.ToolRead, gen.MsgArgumentsMissing("path"))},
		{"missing content", gen.ToolWrite, `{"path":"/workspace/b.txt"}`, invalid(gen.ToolWrite, gen.MsgArgumentsMissing("content"))},
		{"missing pattern", gen.ToolFind, `{"path":"/workspace"}`, invalid(gen.ToolFind, gen.MsgArgumentsMissing("pattern"))},
		{"path is a number", gen.ToolRead, `{"path":1}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("path", gen.TypeNameString, gen.TypeNameNumber))},
		{"path is a boolean", gen.ToolRead, `{"path":true}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("path", gen.TypeNameString, gen.TypeNameBoolean))},
		{"path is null", gen.ToolRead, `{"path":null}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("path", gen.TypeNameString, gen.TypeNameNull))},
		{"path is an array", gen.ToolRead, `{"path":["/workspace/a.txt"]}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("path", gen.TypeNameString, gen.TypeNameArray))},
		{"path is an object", gen.ToolRead, `{"path":{}}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("path", gen.TypeNameString, gen.TypeNameObject))},
		{"a defaulted path is null", gen.ToolFind, `{"path":null,"pattern":"*"}`, invalid(gen.ToolFind, gen.MsgArgumentsWrongType("path", gen.TypeNameString, gen.TypeNameNull))},
		{"offset is a string", gen.ToolRead, `{"path":"/workspace/a.txt","offset":"1"}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("offset", gen.TypeNameInteger, gen.TypeNameString))},
		{"offset is null", gen.ToolRead, `{"path":"/workspace/a.txt","offset":null}`, invalid(gen.ToolRead, gen.MsgArgumentsWrongType("offset", gen.TypeNameInteger, gen.TypeNameNull))},
		{"recursive is a string", gen.ToolDelete, `{"path":"/workspace/a.txt","recursive":"yes"}`, invalid(gen.ToolDelete, gen.MsgArgumentsWrongType("recursive", gen.TypeNameBoolean, gen.TypeNameString))},
		{"regex is a number", gen.ToolGrep, `{"query":"a","regex":1}`, invalid(gen.ToolGrep, gen.MsgArgumentsWrongType("regex", gen.TypeNameBoolean, gen.TypeNameNumber))},
		{"exclude is a number", gen.ToolFind, `{"pattern":"*","exclude":5}`, invalid(gen.ToolFind, gen.MsgArgumentsWrongType("exclude", gen.TypeNameStringOrList, gen.TypeNameNumber))},
		{"exclude is an object", gen.ToolFind, `{"pattern":"*","exclude":{}}`, invalid(gen.ToolFind, gen.MsgArgumentsWrongType("exclude", gen.TypeNameStringOrList, gen.TypeNameObject))},
		{"exclude holds a number", gen.ToolFind, `{"pattern":"*","exclude":["a",1]}`, invalid(gen.ToolFind, gen.MsgArgumentsWrongType("exclude[1]", gen.TypeNameString, gen.TypeNameNumber))},
		{"include holds null and a list", gen.ToolGrep, `{"query":"a","include":[null,"b",["c"]]}`, invalid(gen.ToolGrep,
			gen.MsgArgumentsWrongType("include[0]", gen.TypeNameString, gen.TypeNameNull),
			gen.MsgArgumentsWrongType("include[2]", gen.TypeNameString, gen.TypeNameArray))},

		// Numbers.
		{"2.5 is not an integer", gen.ToolRead, `{"path":"/workspace/a.txt","offset":2.5}`, invalid(gen.ToolRead, gen.MsgArgumentsNotInteger("offset", "2.5"))},
		{"1e-7 is not an integer", gen.ToolRead, `{"path":"/workspace/a.txt","limit":1e-7}`, invalid(gen.ToolRead, gen.MsgArgumentsNotInteger("limit", "1e-7"))},
		{"offset 0 is too small", gen.ToolRead, `{"path":"/workspace/a.txt","offset":0}`, invalid(gen.ToolRead, gen.MsgArgumentsTooSmall("offset", 1, "0"))},
		{"negative byteOffset", gen.ToolRead, `{"path":"/workspace/a.txt","offset":1,"byteOffset":-1}`, invalid(gen.ToolRead, gen.MsgArgumentsTooSmall("byteOffset", 0, "-1"))},
		{"ls limit above the page maximum", gen.ToolLs, `{"path":"/workspace","limit":1001}`, invalid(gen.ToolLs, gen.MsgArgumentsTooBig("limit", gen.LsPageMax, "1001"))},
		{"ls limit 0", gen.ToolLs, `{"path":"/workspace","limit":0}`, invalid(gen.ToolLs, gen.MsgArgumentsTooSmall("limit", gen.LsPageMin, "0"))},
		{"grep context above 10", gen.ToolGrep, `{"query":"a","context":11}`, invalid(gen.ToolGrep, gen.MsgArgumentsTooBig("context", gen.GrepContextMax, "11"))},
		{"2^53 is too big", gen.ToolRead, `{"path":"/workspace/a.txt","offset":9007199254740992}`, invalid(gen.ToolRead, gen.MsgArgumentsTooBig("offset", maxOffset, "9007199254740992"))},
		{"1e300 is too big", gen.ToolRead, `{"path":"/workspace/a.txt","offset":1e300}`, invalid(gen.ToolRead, gen.MsgArgumentsTooBig("offset", maxOffset, "1e300"))},
		{"1e400 overflows and is too big", gen.ToolRead, `{"path":"/workspace/a.txt","offset":1e400}`, invalid(gen.ToolRead, gen.MsgArgumentsTooBig("offset", maxOffset, "1e400"))},
		{"-1e400 overflows and is too small", gen.ToolRead, `{"path":"/workspace/a.txt","offset":-1e400}`, invalid(gen.ToolRead, gen.MsgArgumentsTooSmall("offset", 1, "-1e400"))},

		// Keys the schema does not declare (deviation unknownArguments).
		{"unknown keys, sorted, each named", gen.ToolRead, `{"path":"/workspace/a.txt","zeta":1,"alpha":true}`, invalid(gen.ToolRead,
			gen.MsgArgumentsUnknown("alpha", readNames), gen.MsgArgumentsUnknown("zeta", readNames))},
		{"a meaning-changing unknown key", gen.ToolDelete, `{"path":"/workspace/a.txt","dryRun":true}`, invalid(gen.ToolDelete,
			gen.MsgArgumentsUnknown("dryRun", paramNames(gen.DeleteParams)))},
		{"a long unknown key is shortened", gen.ToolRead, `{"path":"/workspace/a.txt","` + longKey + `":1}`, invalid(gen.ToolRead,
			gen.MsgArgumentsUnknown(longKey[:40]+"…", readNames))},

		// The cross-argument rule.
		{"byteOffset without offset", gen.ToolRead, `{"path":"/workspace/a.txt","byteOffset":21}`, invalid(gen.ToolRead, gen.ReadRules[0].Message)},

		// Several problems at once, in parameter order, unknown keys last.
		{"several problems", gen.ToolRead, `{"extra":1,"limit":"2","offset":0}`, invalid(gen.ToolRead,
			gen.MsgArgumentsMissing("path"),
			gen.MsgArgumentsTooSmall("offset", 1, "0"),
			gen.MsgArgumentsWrongType("limit", gen.TypeNameInteger, gen.TypeNameString),
			gen.MsgArgumentsUnknown("extra", readNames))},

		// Text that is not a JSON object.
		{"invalid UTF-8", gen.ToolRead, "{\"path\":\"/workspace/\xff\"}", invalid(gen.ToolRead, gen.MsgArgumentsNotUTF8)},
		{"invalid JSON", gen.ToolRead, `{not json`, invalid(gen.ToolRead, gen.MsgArgumentsNotJSON("invalid character 'n' looking for beginning of object key string"))},
		{"truncated JSON", gen.ToolRead, `{"path":`, invalid(gen.ToolRead, gen.MsgArgumentsNotJSON("unexpected EOF"))},
		{"trailing garbage", gen.ToolRead, `{"path":"/workspace/a.txt"} x`, invalid(gen.ToolRead, gen.MsgArgumentsNotJSON("unexpected x after the value"))},
		{"a second value", gen.ToolRead, `{"path":"/workspace/a.txt"}{}`, invalid(gen.ToolRead, gen.MsgArgumentsNotJSON("unexpected {} after the value"))},
		{"an array", gen.ToolRead, `[]`, invalid(gen.ToolRead, gen.MsgArgumentsNotObject(gen.TypeNameArray))},
		{"a number", gen.ToolRead, `42`, invalid(gen.ToolRead, gen.MsgArgumentsNotObject(gen.TypeNameNumber))},
		{"null", gen.ToolRead, `null`, invalid(gen.ToolRead, gen.MsgArgumentsNotObject(gen.TypeNameNull))},
		{"a string", gen.ToolRead, `"/workspace/a.txt"`, invalid(gen.ToolRead, gen.MsgArgumentsNotObject(gen.TypeNameString))},
		{"a boolean", gen.ToolRead, `true`, invalid(gen.ToolRead, gen.MsgArgumentsNotObject(gen.TypeNameBoolean))},
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
			checkOutput(t, call(t, ex, gen.ToolRead, tt.args), invalid(gen.ToolRead, gen.MsgArgumentsNotJSON("invalid character '[' exceeded max depth")))
		})
	}
}

// TestCallWriteCapNotDecoder: a content far above the write cap decodes
// fine and is refused by write itself, which then writes nothing.
func TestCallWriteCapNotDecoder(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	const size = 10 << 20
	args := `{"path":"/workspace/big.txt","content":"` + strings.Repeat("x", size) + `"}`
	checkOutput(t, call(t, ex, gen.ToolWrite, args), errJSON(gen.MsgWriteContentTooLarge(size, gen.WriteMaxBytesDefault)))
	if _, err := ex.Workspace().Lstat(t.Context(), "/workspace/big.txt"); err == nil {
		t.Errorf("a refused write created /workspace/big.txt")
	}

	// Just under the cap is written.
	args = `{"path":"/workspace/big.txt","content":"` + strings.Repeat("é", int(gen.WriteMaxBytesDefault/2)) + `"}`
	checkOutput(t, call(t, ex, gen.ToolWrite, args), jsonOut(gen.WriteResult{Path: "/workspace/big.txt", BytesWritten: gen.WriteMaxBytesDefault}))
	// The cap counts UTF-8 bytes: one more two-byte character is over it.
	args = `{"path":"/workspace/big.txt","content":"` + strings.Repeat("é", int(gen.WriteMaxBytesDefault/2)+1) + `"}`
	checkOutput(t, call(t, ex, gen.ToolWrite, args), errJSON(gen.MsgWriteContentTooLarge(gen.WriteMaxBytesDefault+2, gen.WriteMaxBytesDefault)))
}

// TestCallUnchecked: raw calls skip the schema and reach the tool's own
// checks, as the reference's tools called directly do.
func TestCallUnchecked(t *testing.T) {
	ex := newExec(t, core.Options{}, argsFiles)
	tests := []struct {
		name string
		tool string
		args string
		want gen.Output
	}{
		{"read's own byteOffset rule", gen.ToolRead, `{"path":"/workspace/a.txt","byteOffset":21}`, errText(gen.ReadRules[0].Message)},
		{"an unknown key is ignored", gen.ToolRead, `{"path":"/workspace/a.txt","dryRun":true}`, textOut("alpha\nbeta")},
		{"a mistyped field is left out", gen.ToolRead, `{"path":"/workspace/a.txt","offset":"2"}`, textOut("alpha\nbeta")},
		{"byteOffset with offset", gen.ToolRead, `{"path":"/workspace/a.txt","offset":2,"byteOffset":6}`,
			jsonOut(gen.ReadResult{Path: argsFile, Content: "beta", StartLine: 2, EndLine: 2, TotalLines: ptr(int64(2))})},
		{"find without a path searches from the default", gen.ToolFind, `{"path":"/workspace","pattern":"*"}`,
			jsonOut(gen.FindResult{Path: gen.WorkspaceRoot, Pattern: "*", Count: 1, Entries: []gen.FindEntry{{Path: argsFile, Type: "file"}}})},
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
	for _, name := range []string{"nope", gen.ToolWrite, gen.ToolDelete, gen.ToolExec} {
		for _, unchecked := range []bool{false, true} {
			callFn := ex.Call
			if unchecked {
				callFn = ex.CallUnchecked
			}
			_, err := callFn(t.Context(), name, []byte(`{"path":"/workspace/a.txt","content":""}`))
			var unknown *gen.UnknownToolError
			if !errors.As(err, &unknown) || unknown.Tool != name {
				t.Errorf("%s (unchecked %v): got error %v, want *gen.UnknownToolError for it", name, unchecked, err)
			}
		}
	}
}
