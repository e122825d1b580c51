package main

import (
	"context"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/toolspec"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testOverlay shortens grep's description, caps read at 3 lines by
// default, describes read's path differently and withholds exec.
const testOverlay = `package agenttools

tools: grep: description: "Search file contents; results give paths and line numbers."
tools: read: limits: maxLines: 3
tools: read: params: path: "Absolute path of the file"
tools: exec: offered: false
`

const overlayGrep = "Search file contents; results give paths and line numbers."

// writeFile writes content to name in a new temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fiveLines is a database whose /workspace/five.txt has five lines.
func fiveLines(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ws.db")
	if got := runCLI(t, "", "import", "--db", db, writeFile(t, "five.txt", "1\n2\n3\n4\n5\n")); got.code != 0 {
		t.Fatalf("import: %+v", got)
	}
	return db
}

// The built `agenttools mcp --overlay`, through the SDK's client: tools/list
// shows the overlay's texts and limit and no exec, a read stops at the
// overlay's line cap, and the rest (the other tools' definitions, the
// other calls' results) is what the server sends without the flag.
func TestMCPOverlay(t *testing.T) {
	bin := agenttoolsBinary(t)
	db := fiveLines(t)
	overlay := writeFile(t, "agenttools.cue", testOverlay)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	connect := func(args ...string) *sdk.ClientSession {
		t.Helper()
		cmd := osexec.Command(bin, append([]string{"mcp", "--db", db, "--exec", "host"}, args...)...)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	ours, theirs := connect(), connect("--overlay", overlay)
	list := func(cs *sdk.ClientSession) []*sdk.Tool {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools
	}

	// What the overlay says, applied to what the server says without it.
	var want []*sdk.Tool
	for _, tool := range list(ours) {
		switch tool.Name {
		case "exec":
			continue
		case "grep":
			tool.Description = overlayGrep
		case "read":
			if tool.Description != toolspec.ReadDescription(toolspec.ReadMaxLinesDefault, toolspec.ReadMaxBytesDefault) {
				t.Fatalf("read's description without the overlay: %q", tool.Description)
			}
			tool.Description = toolspec.ReadDescription(3, toolspec.ReadMaxBytesDefault)
			tool.InputSchema.(map[string]any)["properties"].(map[string]any)["path"].(map[string]any)["description"] = "Absolute path of the file"
		}
		want = append(want, tool)
	}
	got := list(theirs)
	if w, g := marshal(t, want), marshal(t, got); w != g {
		t.Errorf("tools/list with --overlay:\n got %s\nwant %s", g, w)
	}
	if !strings.Contains(marshal(t, got), "capped at 3 lines") {
		t.Errorf("read's description does not give the overlay's cap: %s", marshal(t, got))
	}

	call := func(cs *sdk.ClientSession, name, args string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return marshal(t, res)
	}
	read := call(theirs, "read", `{"path":"/workspace/five.txt"}`)
	if want := call(ours, "read", `{"path":"/workspace/five.txt","limit":3}`); read != want {
		t.Errorf("read with the overlay's default cap:\n got %s\nwant %s (ours with limit 3)", read, want)
	}
	if whole := call(ours, "read", `{"path":"/workspace/five.txt"}`); read == whole {
		t.Errorf("read with the overlay's cap of 3 lines is the whole file: %s", read)
	}
	for _, c := range [][2]string{
		{"grep", `{"query":"4"}`},
		{"ls", `{"path":"/workspace"}`},
		{"find", `{"pattern":"*.txt"}`},
	} {
		if g, w := call(theirs, c[0], c[1]), call(ours, c[0], c[1]); g != w {
			t.Errorf("%s %s with the overlay:\n got %s\nwant %s", c[0], c[1], g, w)
		}
	}
	res, err := theirs.CallTool(ctx, &sdk.CallToolParams{Name: "exec", Arguments: json.RawMessage(`{"command":"true"}`)})
	if err == nil && !res.IsError {
		t.Errorf("exec, which the overlay withholds, ran: %s", marshal(t, res))
	}
}

// call, tools and replay take --overlay too (here in its JSON form): a
// tool it withholds is unknown to call as any tool the set lacks, tools
// prints its definitions, and replay runs every case with it.
func TestCallToolsReplayOverlay(t *testing.T) {
	db := fiveLines(t)
	overlay := writeFile(t, "agenttools.json", `{"tools": {"read": {"limits": {"maxLines": 3}}, "exec": {"offered": false}}}`)

	got := runCLI(t, "", "call", "--db", db, "--overlay", overlay, "exec", `{"command":"true"}`)
	// As without exec today.
	want := runCLI(t, "", "call", "--db", db, "--exec", "none", "exec", `{"command":"true"}`)
	if got != want || got.code != 2 || !strings.Contains(got.stderr, `no tool "exec" (the tools are read, ls, find, grep, write, edit, delete)`) {
		t.Errorf("call --overlay exec: %+v, want %+v", got, want)
	}
	got = runCLI(t, "", "call", "--db", db, "--overlay", overlay, "read", `{"path":"/workspace/five.txt"}`)
	want = runCLI(t, "", "call", "--db", db, "read", `{"path":"/workspace/five.txt","limit":3}`)
	if got != want || got.code != 0 || !strings.Contains(got.stdout, `"endLine":3,`) {
		t.Errorf("call --overlay read: %+v, want %+v", got, want)
	}

	got = runCLI(t, "", "tools", "--overlay", overlay)
	var defs []struct{ Name, Description string }
	if err := json.Unmarshal([]byte(got.stdout), &defs); got.code != 0 || err != nil {
		t.Fatalf("tools --overlay: %+v (%v)", got, err)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
		if d.Name == "read" && d.Description != toolspec.ReadDescription(3, toolspec.ReadMaxBytesDefault) {
			t.Errorf("tools --overlay: read's description %q", d.Description)
		}
	}
	if strings.Join(names, ",") != "read,ls,find,grep,write,edit,delete" {
		t.Errorf("tools --overlay offers %v", names)
	}

	cases := writeFile(t, "cases.json", `[
 {"name": "one", "setup": [{"op": "write", "path": "/workspace/a.txt", "content": "1\n2\n3\n4\n5\n"}],
  "calls": [{"tool": "read", "args": {"path": "/workspace/a.txt"}}]},
 {"name": "two", "setup": [{"op": "write", "path": "/workspace/b.txt", "content": "a\nb\nc\nd\n"}],
  "calls": [{"tool": "read", "args": {"path": "/workspace/b.txt"}}, {"tool": "exec", "args": {"command": "true"}}]}
]`)
	got = runCLI(t, "", "replay", "--overlay", overlay, cases)
	if got.code != 0 || got.stderr != "" {
		t.Fatalf("replay --overlay: %+v", got)
	}
	type record struct {
		Tools []string
		Calls []struct {
			Description string
			MissingTool bool
			ModelOutput struct{ Value any }
		}
	}
	var records []record
	for line := range strings.Lines(got.stdout) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	if len(records) != 2 {
		t.Fatalf("replay --overlay printed %d records:\n%s", len(records), got.stdout)
	}
	for i, r := range records {
		if strings.Join(r.Tools, ",") != "read,ls,find,grep,write,edit,delete" {
			t.Errorf("case %d's tools: %v", i, r.Tools)
		}
		read := r.Calls[0]
		if read.Description != toolspec.ReadDescription(3, toolspec.ReadMaxBytesDefault) {
			t.Errorf("case %d: read's description %q", i, read.Description)
		}
		if v, _ := read.ModelOutput.Value.(map[string]any); v["endLine"] != 3.0 || v["truncated"] != true {
			t.Errorf("case %d: read %v, want the first 3 lines", i, read.ModelOutput.Value)
		}
	}
	if exec := records[1].Calls[1]; !exec.MissingTool {
		t.Errorf("replay --overlay: exec, which the overlay withholds, was found: %+v", exec)
	}
}

// A broken or missing --overlay file stops the command before it serves
// or opens anything: exit status 2, the file's line:col in the message,
// no database made.
func TestOverlayErrors(t *testing.T) {
	bin := agenttoolsBinary(t)
	for _, c := range []struct {
		name, src string
		want      []string // lines of stderr after "agenttools mcp: --overlay: "
	}{
		{"type.cue", "package agenttools\n\ntools: read: limits: maxLines: \"500\"\n",
			[]string{`type.cue:3:32: tools.read.limits.maxLines: conflicting values "500" and int64 (mismatched types string and int)`}},
		{"field.cue", "tools: read: descripton: \"Read a file.\"\n",
			[]string{`field.cue:1:14: tools.read.descripton: field not allowed; a tool's fields: offered, description, params, limits`}},
		{"refused.cue", "tools: read: limits: maxLines: 0\ntools: grep: params: qurey: \"q\"\n",
			[]string{
				"refused.cue:1:22: tools.read.limits.maxLines: 0 is out of range: read.maxLines must be from 1 to " + strconv.FormatInt(1<<53-2, 10),
				"refused.cue:2:22: tools.grep.params.qurey: grep has no parameter qurey (it takes path, query, include, exclude, regex, ignoreCase, context, limit, offset): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added",
			}},
		{"fixed.json", "{\"tools\": {\"ls\": {\"limits\": {\"page\": 5}}}}\n",
			[]string{`fixed.json:1:31: tools.ls.limits.page: ls's page is fixed: `}},
		{"missing.cue", "", []string{"open missing.cue: no such file or directory"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, c.name)
			if c.name != "missing.cue" {
				if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// Relative names, as the messages give them.
			cmd := osexec.Command(bin, "mcp", "--db", "ws.db", "--overlay", c.name)
			cmd.Dir = dir
			got := runCmd(t, cmd)
			if got.code != 2 || got.stdout != "" {
				t.Errorf("mcp --overlay %s: exit %d, stdout %q; want 2 and nothing served", c.name, got.code, got.stdout)
			}
			lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
			if len(lines) != len(c.want) {
				t.Fatalf("mcp --overlay %s: stderr %q, want %d lines", c.name, got.stderr, len(c.want))
			}
			for i, want := range c.want {
				if i == 0 {
					want = "agenttools mcp: --overlay: " + want
				}
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("mcp --overlay %s: stderr line %d\n got %q\nwant %q", c.name, i+1, lines[i], want)
				}
			}
			if _, err := os.Lstat(filepath.Join(dir, "ws.db")); err == nil {
				t.Errorf("mcp --overlay %s made the database", c.name)
			}
		})
	}
	// The other commands report it alike.
	missing := filepath.Join(t.TempDir(), "none.cue")
	cases := writeFile(t, "cases.json", "[]")
	for _, args := range [][]string{{"call", "--overlay", missing, "ls"}, {"tools", "--overlay", missing}, {"replay", "--overlay", missing, cases}} {
		got := runCLI(t, "", args...)
		if want := "agenttools " + args[0] + ": --overlay: open " + missing + ": no such file or directory\n"; got.code != 2 || got.stdout != "" || got.stderr != want {
			t.Errorf("%v: %+v, want exit 2 and %q", args, got, want)
		}
	}
}
