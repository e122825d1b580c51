package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/internal/replay"
	"github.com/agenttools/agenttools/toolspec"
)

type result struct {
	code   int
	stdout string
	stderr string
}

// runCmd runs cmd and returns what it did.
func runCmd(t *testing.T, cmd *osexec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*osexec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%q: %v", cmd.Args, err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// cliEnv runs the built command with the environment env: this
// process's, without HOME, XDG_CACHE_HOME and TMPDIR, plus env.
func cliEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := osexec.Command(agenttoolsBinary(t), args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, name := range []string{"HOME=", "XDG_CACHE_HOME=", "TMPDIR="} {
			if strings.HasPrefix(kv, name) {
				return true
			}
		}
		return false
	})
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd)
}

func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// hostDir is a temporary directory with a few files, to mount at
// /workspace.
func hostDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"a.txt":     "hello\nworld\n",
		"pic.png":   "png",
		"sub/b.txt": "b\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := core.MarshalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCall(t *testing.T) {
	dir := hostDir(t)
	type filePart struct {
		Type string `json:"type"`
		Data struct {
			Type string `json:"type"`
			Data string `json:"data"`
		} `json:"data"`
		MediaType string `json:"mediaType"`
		Filename  string `json:"filename"`
	}
	png := filePart{Type: toolspec.ContentFilePart, MediaType: "image/png", Filename: "pic.png"}
	png.Data.Type, png.Data.Data = toolspec.ContentFileData, base64.StdEncoding.EncodeToString([]byte("png"))
	contentParts := marshal(t, []any{
		struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{toolspec.ContentTextPart, toolspec.MsgReadMediaRead("/workspace/pic.png", "image/png", 3)},
		png,
	})
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  result
	}{
		{"a text read", []string{"call", "--dir", dir, "read", `{"path":"/workspace/a.txt"}`},
			"", result{0, "hello\nworld\n", ""}},
		{"a text read with a prefix", []string{"call", "--dir", dir, "--prefix", "ws_", "ws_read", `{"path":"/workspace/a.txt"}`},
			"", result{0, "hello\nworld\n", ""}},
		{"arguments from stdin", []string{"call", "--dir", dir, "read", "-"},
			`{"path":"/workspace/sub/b.txt"}`, result{0, "b\n", ""}},
		{"a json read", []string{"call", "--dir", dir, "read", `{"path":"/workspace/a.txt","offset":2}`},
			"", result{0, marshal(t, toolspec.ReadResult{Path: "/workspace/a.txt", Content: "world", StartLine: 2, EndLine: 2, TotalLines: new(int64(2))}) + "\n", ""}},
		{"an image read prints the content parts", []string{"call", "--dir", dir, "read", `{"path":"/workspace/pic.png"}`},
			"", result{0, contentParts + "\n", ""}},
		{"an error-text read", []string{"call", "--dir", dir, "read", `{"path":"/workspace/nope.txt"}`},
			"", result{1, toolspec.MsgReadFileNotFound("/workspace/nope.txt") + "\n", ""}},
		{"a json error", []string{"call", "--dir", dir, "ls", `{"path":"/workspace/nope"}`},
			"", result{1, marshal(t, toolspec.ErrorResult{Error: toolspec.MsgNoSuchPath("/workspace/nope")}) + "\n", ""}},
		{"arguments the schema refuses", []string{"call", "--dir", dir, "read", `{"path":"/workspace/a.txt","offset":0}`},
			"", result{1, toolspec.MsgArgumentsInvalid("read", toolspec.MsgArgumentsTooSmall("offset", 1, "0")) + "\n", ""}},
		{"no arguments are {}", []string{"call", "--dir", dir, "read"},
			"", result{1, toolspec.MsgArgumentsInvalid("read", toolspec.MsgArgumentsMissing("path")) + "\n", ""}},
		{"blank arguments are {}", []string{"call", "--dir", dir, "read", " "},
			"", result{1, toolspec.MsgArgumentsInvalid("read", toolspec.MsgArgumentsMissing("path")) + "\n", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, runCLI(t, tt.stdin, tt.args...), cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("agenttools %q (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestCallWritesTheHostDirectory(t *testing.T) {
	dir := hostDir(t)
	got := runCLI(t, "", "call", "--dir", dir, "write", `{"path":"/workspace/new/c.txt","content":"fresh"}`)
	want := result{0, marshal(t, toolspec.WriteResult{Path: "/workspace/new/c.txt", BytesWritten: 5}) + "\n", ""}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Fatalf("write (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(filepath.Join(dir, "new", "c.txt"))
	if err != nil || string(data) != "fresh" {
		t.Errorf("the host file holds %q (%v), want %q", data, err, "fresh")
	}
}

// TestUsageErrors: mistakes of the caller, not of the model, exit 2 with
// a word on stderr and nothing on stdout: for a usage error, what is
// wrong and where the usage is, two lines, never the whole usage.
func TestUsageErrors(t *testing.T) {
	dir := hostDir(t)
	tests := []struct {
		name   string
		args   []string
		stderr string // a part of it
		usage  string // the command whose usage the error points to, "" for none
	}{
		{"no command", nil, "usage: agenttools", ""},
		{"an unknown command", []string{"frobnicate"}, `agenttools: unknown command "frobnicate"`, "agenttools help"},
		{"an unknown tool", []string{"call", "--dir", dir, "nope", "{}"}, `agenttools call: no tool "nope"`, "call"},
		{"a tool the read-only set leaves out", []string{"call", "--dir", dir, "--readonly", "write", "{}"}, `no tool "write"`, "call"},
		{"a bad flag", []string{"call", "--bogus", "read", "{}"}, "agenttools call: unknown flag --bogus", "call"},
		{"a bad flag with one dash", []string{"call", "-bogus=1", "read", "{}"}, "agenttools call: unknown flag -bogus", "call"},
		{"a flag without its value", []string{"call", "--db"}, "agenttools call: flag needs an argument: --db", "call"},
		{"a flag with a bad value", []string{"call", "--exec-timeout", "soon", "read"}, `agenttools call: --exec-timeout: "soon" is not a number of milliseconds`, "call"},
		{"a flag with a value out of range", []string{"call", "--exec-timeout", "99999999999999999999", "read"}, `agenttools call: --exec-timeout: "99999999999999999999" is out of range`, "call"},
		{"a boolean flag with a bad value", []string{"call", "--readonly=maybe", "read"}, `agenttools call: --readonly: "maybe" is not true or false`, "call"},
		{"import needs a directory or a file", []string{"import"}, "agenttools import: want one DIR or FILE, got 0 arguments", "import"},
		{"export needs a directory", []string{"export"}, "agenttools export: want one DIR, got 0 arguments", "export"},
		{"an exec timeout out of range", []string{"call", "--dir", dir, "--exec-timeout", "-1", "read"}, "--exec-timeout: want milliseconds", "call"},
		{"a prefix that is not a name", []string{"mcp", "--prefix", "1ws."}, `agenttools mcp: --prefix: "1ws." must start with an ASCII letter or '_'`, "mcp"},
		{"a prefix too long", []string{"tools", "--prefix", strings.Repeat("p", 59)}, "agenttools tools: --prefix: \"" + strings.Repeat("p", 59) + "\" is 59 bytes long", "tools"},
		{"the spec's name under a prefix", []string{"call", "--dir", dir, "--prefix", "ws_", "read", "{}"}, `agenttools call: no tool "read" (the tools are ws_read, ws_ls,`, "call"},
		{"a publish base URL without an address", []string{"mcp", "--publish-base-url", "https://files.example.com"}, "agenttools mcp: --publish-base-url needs --publish-addr", "mcp"},
		{"a publish address without a port", []string{"mcp", "--publish-addr", "localhost"}, `agenttools mcp: --publish-addr: want HOST:PORT, got "localhost"`, "mcp"},
		{"a publish address on every interface without a base URL", []string{"mcp", "--publish-addr", ":0"}, "agenttools mcp: --publish-addr :0 listens on every interface: give the URL links start with in --publish-base-url", "mcp"},
		{"a publish base URL that is not http", []string{"mcp", "--publish-addr", "127.0.0.1:0", "--publish-base-url", "ftp://files.example.com"}, `agenttools mcp: --publish-base-url: want an http or https URL without a query, got "ftp://files.example.com"`, "mcp"},
		{"publish with --readonly", []string{"mcp", "--readonly", "--publish-addr", "127.0.0.1:0"}, "agenttools mcp: --publish-addr: --readonly offers no publish tool", "mcp"},
		{"an unknown exec backend", []string{"mcp", "--exec", "docker"}, `agenttools mcp: --exec: want host, sandbox or none, got "docker"`, "mcp"},
		{"a sandbox flag without the sandbox", []string{"call", "--dir", dir, "--exec-network", "read", "{}"}, "agenttools call: --exec-network needs --exec sandbox", "call"},
		{"sandbox limits without the sandbox", []string{"mcp", "--exec", "host", "--exec-limits", "nproc=10"}, "agenttools mcp: --exec-limits needs --exec sandbox", "mcp"},
		{"an unknown sandbox limit", []string{"call", "--dir", dir, "--exec", "sandbox", "--exec-limits", "nproc=10,rss=5", "read", "{}"}, `agenttools call: --exec-limits: no limit "rss"`, "call"},
		{"a sandbox limit that is not a number", []string{"call", "--dir", dir, "--exec", "sandbox", "--exec-limits", "cpu=soon", "read", "{}"}, `agenttools call: --exec-limits: want NAME=N items, N a whole number above 0 or unlimited`, "call"},
		{"a sandbox limit of -1", []string{"call", "--dir", dir, "--exec", "sandbox", "--exec-limits", "fsize=-1", "read", "{}"}, `--exec-limits: want NAME=N items, N a whole number above 0 or unlimited (nproc, cpu, fsize, as), got "fsize=-1"`, "call"},
		{"a sandbox limit of 0", []string{"call", "--dir", dir, "--exec", "sandbox", "--exec-limits", "cpu=0", "read", "{}"}, `got "cpu=0"`, "call"},
		{"a sandbox limit given twice", []string{"call", "--dir", dir, "--exec", "sandbox", "--exec-limits", "nproc=100,nproc=10", "read", "{}"}, `agenttools call: --exec-limits: nproc is given twice`, "call"},
		{"read-only directories without the sandbox", []string{"call", "--dir", dir, "--exec-ro", "/opt", "read", "{}"}, "agenttools call: --exec-ro needs --exec sandbox", "call"},
		{"a sandbox user that is root", []string{"call", "--dir", dir, "--exec", "sandbox", "--exec-user", "0:0", "read", "{}"}, `agenttools call: --exec-user: want UID:GID, two numbers above 0`, "call"},
		{"tools with the network but no sandbox", []string{"tools", "--exec-network"}, "agenttools tools: --exec-network needs --exec sandbox", "tools"},
		{"a bad flag of tools", []string{"tools", "--bogus"}, "agenttools tools: unknown flag --bogus", "tools"},
		{"a bad flag of replay", []string{"replay", "--bogus", "x.json"}, "agenttools replay: unknown flag --bogus", "replay"},
		{"a bad flag of import", []string{"import", "--bogus", "x"}, "agenttools import: unknown flag --bogus", "import"},
		{"a bad flag of check", []string{"check", "--bogus"}, "agenttools check: unknown flag --bogus", "check"},
		{"no tool", []string{"call", "--dir", dir}, "want TOOL", "call"},
		{"too many arguments", []string{"call", "--dir", dir, "read", "{}", "{}"}, "want TOOL", "call"},
		{"arguments that are not JSON", []string{"call", "--dir", dir, "read", `{"path":`}, "not valid JSON", "call"},
		{"a missing directory", []string{"call", "--dir", filepath.Join(dir, "missing"), "read", "{}"}, "--dir", ""},
		{"tools takes no arguments", []string{"tools", "x"}, "agenttools tools: takes no arguments", "tools"},
		{"approval of no tool", []string{"mcp", "--dir", dir, "--approve", "write,wirte"}, `agenttools mcp: --approve: names "wirte", which is not a tool`, "mcp"},
		{"replay needs a file", []string{"replay"}, "agenttools replay: want one CASES.json", "replay"},
		{"replay of a missing file", []string{"replay", filepath.Join(dir, "missing.json")}, "missing.json", ""},
		{"replay on an unknown workspace", []string{"replay", "--workspace", "postgres", "x.json"}, `unknown workspace "postgres"`, "replay"},
		{"workspaces without a database", []string{"workspaces"}, `agenttools workspaces: --db: want a PostgreSQL URL (postgres://…), got ""`, "workspaces"},
		{"workspaces of an SQLite database", []string{"workspaces", "--db", "agenttools.db"}, `agenttools workspaces: --db: want a PostgreSQL URL (postgres://…), got "agenttools.db" (an SQLite database holds one workspace)`, "workspaces"},
		{"workspaces takes no arguments", []string{"workspaces", "--db", "postgres://localhost/db", "x"}, "agenttools workspaces: takes no arguments, got 1", "workspaces"},
		{"check of a PostgreSQL database", []string{"check", "--db", "postgresql://localhost/db"}, "agenttools check: --db: check examines SQLite workspace databases only", "check"},
		{"a PostgreSQL URL with an empty workspace name", []string{"call", "--db", "postgres://localhost/db?workspace=", "ls", "{}"}, "agenttools call: --db: ", "call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			if got.code != 2 || got.stdout != "" || !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("agenttools %q: exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr with %q",
					tt.args, got.code, got.stdout, got.stderr, tt.stderr)
			}
			if tt.usage == "" {
				return
			}
			hint := "Run 'agenttools " + tt.usage + " --help' for usage.\n"
			if tt.usage == "agenttools help" {
				hint = "Run 'agenttools help' for usage.\n"
			}
			if lines := strings.SplitAfter(got.stderr, "\n"); len(lines) != 3 || lines[1] != hint || lines[2] != "" {
				t.Errorf("agenttools %q: stderr %q, want one line saying what is wrong, then %q", tt.args, got.stderr, hint)
			}
		})
	}
}

// TestHelp: asked for, the usage goes to stdout (exit 0); call's lists the
// tools with their arguments.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		got := runCLI(t, "", args...)
		if got.code != 0 || !strings.Contains(got.stdout, "usage: agenttools <command>") {
			t.Errorf("agenttools %q: exit %d, stdout %q", args, got.code, got.stdout)
		}
	}
	for _, command := range []string{"call", "tools", "replay", "mcp", "import", "export", "check", "workspaces"} {
		for _, flag := range []string{"--help", "-h"} {
			got := runCLI(t, "", command, flag)
			if got.code != 0 || got.stderr != "" || !strings.Contains(got.stdout, "usage: agenttools "+command) || !strings.Contains(got.stdout, "Flags:") {
				t.Errorf("agenttools %s %s: exit %d, stdout %q, stderr %q", command, flag, got.code, got.stdout, got.stderr)
			}
		}
	}
	// help COMMAND is COMMAND --help; a flag is spelled as the usage
	// spells it, --name.
	for _, command := range []string{"call", "mcp", "import", "mirrors"} {
		got, want := runCLI(t, "", "help", command), runCLI(t, "", command, "--help")
		if got != want || !strings.Contains(got.stdout, "\n  --db ") && command != "mirrors" || strings.Contains(got.stdout, "\n  -d") || strings.Contains(got.stdout, "\n  -p") {
			t.Errorf("agenttools help %s: %+v, want %+v", command, got, want)
		}
	}
	// call --help lists the tools call runs, each with the first
	// sentence of its description; not publish, which call does not
	// offer (no publisher).
	got := runCLI(t, "", "call", "--help")
	for _, tool := range toolspec.Tools {
		if listed := strings.Contains(got.stdout, "\n  "+tool.Name+" "); listed != (tool.Name != "publish") {
			t.Errorf("agenttools call --help lists %s: %v, want %v:\n%s", tool.Name, listed, !listed, got.stdout)
		}
	}
	if strings.Contains(got.stdout, "\n          \n") {
		t.Errorf("agenttools call --help lists a tool without its description:\n%s", got.stdout)
	}
	for _, want := range []string{"  read    path [offset] [byteOffset] [limit]\n          Read a workspace file.\n", "  find    [path] pattern "} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("agenttools call --help lacks %q:\n%s", want, got.stdout)
		}
	}
}

// TestReadmeSynopses: README.md shows each command's synopsis as its
// --help prints it ("The command"), and mcp's also under "Over MCP", so
// that a flag added to a command is added to the README too.
func TestReadmeSynopses(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(pkgDir, "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"call", "tools", "mcp", "import", "export", "replay", "check", "mirrors", "workspaces"} {
		usage, _, _ := strings.Cut(runCLI(t, "", command, "--help").stdout, "\n")
		synopsis, ok := strings.CutPrefix(usage, "usage: agenttools ")
		if !ok {
			t.Fatalf("agenttools %s --help begins %q", command, usage)
		}
		wants := []string{"go run ./cmd/agenttools " + synopsis + "\n"}
		if command == "mcp" {
			wants = append(wants, "agenttools "+synopsis+"\n```")
		}
		for _, want := range wants {
			if !bytes.Contains(readme, []byte(want)) {
				t.Errorf("README.md lacks agenttools %s's synopsis as --help prints it: %q", command, want)
			}
		}
	}
}

// pkgDir is this package's directory (the tests run elsewhere).
var pkgDir string

// TestMain keeps the tests' default databases and exec mirrors out of
// the user's directories, and stops the PostgreSQL server pgtest
// started, if any.
func TestMain(m *testing.M) {
	// go build keeps using the user's build cache, which lives under
	// XDG_CACHE_HOME unless GOCACHE says otherwise.
	if os.Getenv("GOCACHE") == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(dir, "go-build"))
		}
	}
	cache, err := os.MkdirTemp("", "agenttools-cache")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	if pkgDir, err = os.Getwd(); err != nil {
		panic(err)
	}
	// The default --db is made in the working directory: a scratch one.
	work, err := os.MkdirTemp("", "agenttools-work")
	if err != nil {
		panic(err)
	}
	if err := os.Chdir(work); err != nil {
		panic(err)
	}
	// The PostgreSQL server the tests of a pgfs workspace start, if
	// they start one, is stopped before the directories go.
	code := pgtest.Run(m)
	os.RemoveAll(cache)
	os.RemoveAll(work)
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary)) // made by agenttoolsBinary
	}
	os.Exit(code)
}

func TestTools(t *testing.T) {
	schemas := map[string]string{
		toolspec.ToolRead: toolspec.ReadInputSchema, toolspec.ToolLs: toolspec.LsInputSchema, toolspec.ToolFind: toolspec.FindInputSchema,
		toolspec.ToolGrep: toolspec.GrepInputSchema, toolspec.ToolWrite: toolspec.WriteInputSchema, toolspec.ToolEdit: toolspec.EditInputSchema,
		toolspec.ToolDelete: toolspec.DeleteInputSchema,
	}
	descriptions := map[string]string{
		toolspec.ToolRead: toolspec.ReadDescription(toolspec.ReadMaxLinesDefault, toolspec.ReadMaxBytesDefault), toolspec.ToolLs: toolspec.LsDescription,
		toolspec.ToolFind: toolspec.FindDescription, toolspec.ToolGrep: toolspec.GrepDescription, toolspec.ToolWrite: toolspec.WriteDescription,
		toolspec.ToolEdit: toolspec.EditDescription, toolspec.ToolDelete: toolspec.DeleteDescription,
	}
	// exec on the host backend, as call offers it.
	host := []toolspec.ExecBackend{{ID: "host", Text: toolspec.MsgExecHostBackend(toolspec.WorkspaceRoot)}}
	schemas[toolspec.ToolExec] = toolspec.ExecInputSchema(host)
	descriptions[toolspec.ToolExec] = toolspec.ExecDescription("", host, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault)
	tests := []struct {
		args   []string
		want   []string
		prefix string
	}{
		{[]string{"tools", "--prefix", "ws_", "--readonly"}, []string{"ws_read", "ws_ls", "ws_find", "ws_grep"}, "ws_"},
		{[]string{"tools"}, []string{toolspec.ToolRead, toolspec.ToolLs, toolspec.ToolFind, toolspec.ToolGrep, toolspec.ToolWrite, toolspec.ToolEdit, toolspec.ToolDelete, toolspec.ToolExec}, ""},
		{[]string{"tools", "--exec", "none"}, []string{toolspec.ToolRead, toolspec.ToolLs, toolspec.ToolFind, toolspec.ToolGrep, toolspec.ToolWrite, toolspec.ToolEdit, toolspec.ToolDelete}, ""},
		{[]string{"tools", "--readonly"}, []string{toolspec.ToolRead, toolspec.ToolLs, toolspec.ToolFind, toolspec.ToolGrep}, ""},
	}
	for _, tt := range tests {
		got := runCLI(t, "", tt.args...)
		if got.code != 0 {
			t.Fatalf("agenttools %q: exit %d, stderr %q", tt.args, got.code, got.stderr)
		}
		var defs []raw.Definition
		if err := json.Unmarshal([]byte(got.stdout), &defs); err != nil {
			t.Fatalf("agenttools %q printed no JSON array: %v\n%s", tt.args, err, got.stdout)
		}
		var names []string
		for _, d := range defs {
			names = append(names, d.Name)
			spec := strings.TrimPrefix(d.Name, tt.prefix)
			if d.Description != descriptions[spec] {
				t.Errorf("%s: description %q, want %q", d.Name, d.Description, descriptions[spec])
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, d.InputSchema); err != nil || compact.String() != schemas[spec] {
				t.Errorf("%s: input schema %s, want %s", d.Name, compact.String(), schemas[spec])
			}
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("agenttools %q: tools %q, want %q", tt.args, names, tt.want)
		}
	}
}

// oracleCallFields is the order of a call's fields in the oracle's
// output (shared/oracle/README.md).
var oracleCallFields = []string{"tool", "args", "argsText", "missingTool", "availableTools", "description", "descriptionLength",
	"inputSchema", "hasToModelOutput", "inputError", "parsedInput", "output", "thrown", "outputUndefinedKeys", "preliminary",
	"modelOutput", "backendReceived", "after"}

var oracleCaseFields = []string{"case", "versions", "tools", "calls", "after", "setupError", "toolSetError", "harnessError"}

// keys lists an object's keys in the order the text gives them.
func keys(t *testing.T, obj json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// inOrder reports whether every key is one of order's, in that order.
func inOrder(got, order []string) bool {
	last := -1
	for _, k := range got {
		i := slices.Index(order, k)
		if i <= last {
			return false
		}
		last = i
	}
	return true
}

func TestReplay(t *testing.T) {
	cases := `[
 {"name": "small",
  "setup": [{"op": "write", "path": "/workspace/a.txt", "content": "hi\n"}],
  "calls": [
   {"tool": "read", "args": {"path": "/workspace/a.txt"}},
   {"tool": "ls", "args": {"path": "/workspace"}},
   {"tool": "read", "args": {}, "argsText": "{\"path\":"},
   {"tool": "exec", "args": {}}
  ]},
 {"name": "empty", "backends": [],
  "calls": [{"tool": "find", "args": {"pattern": "*"}}, {"tool": "exec", "args": {"command": "true"}}]}
]`
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "replay", file)
	if got.code != 0 || got.stderr != "" {
		t.Fatalf("replay: exit %d, stderr %q", got.code, got.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("replay printed %d lines, want one per case (2):\n%s", len(lines), got.stdout)
	}

	type callRecord struct {
		Tool              string          `json:"tool"`
		Description       string          `json:"description"`
		DescriptionLength int64           `json:"descriptionLength"`
		InputSchema       json.RawMessage `json:"inputSchema"`
		InputError        *string         `json:"inputError"`
		MissingTool       bool            `json:"missingTool"`
		ModelOutput       json.RawMessage `json:"modelOutput"`
	}
	type record struct {
		Case  string            `json:"case"`
		Tools []string          `json:"tools"`
		Calls []json.RawMessage `json:"calls"`
	}
	modelOutput := func(kind toolspec.OutputKind, value any) string {
		return marshal(t, struct {
			Type  toolspec.OutputKind `json:"type"`
			Value any                 `json:"value"`
		}{kind, value})
	}
	readDescription := toolspec.ReadDescription(toolspec.ReadMaxLinesDefault, toolspec.ReadMaxBytesDefault)
	notJSON := toolspec.MsgArgumentsInvalid("read", toolspec.MsgArgumentsNotJSON(toolspec.MsgArgumentsJSONEnd))
	noCommand := toolspec.MsgArgumentsInvalid("exec", toolspec.MsgArgumentsMissing("command"))
	execDescription := toolspec.ExecDescription("", []toolspec.ExecBackend{{ID: "shell", Text: "fast shell"}}, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault)
	wantCalls := [][]callRecord{
		{
			{Tool: "read", Description: readDescription, DescriptionLength: vfs.UTF16Len(readDescription), InputSchema: json.RawMessage(toolspec.ReadInputSchema),
				ModelOutput: json.RawMessage(modelOutput(toolspec.OutputText, "hi"))},
			{Tool: "ls", Description: toolspec.LsDescription, DescriptionLength: vfs.UTF16Len(toolspec.LsDescription), InputSchema: json.RawMessage(toolspec.LsInputSchema),
				ModelOutput: json.RawMessage(modelOutput(toolspec.OutputJSON, toolspec.LsResult{Path: "/workspace", Count: 1, Entries: []toolspec.LsEntry{
					{Name: "a.txt", Size: 3, Mtime: replay.FixedClock, IsFile: true}}}))},
			{Tool: "read", Description: readDescription, DescriptionLength: vfs.UTF16Len(readDescription), InputSchema: json.RawMessage(toolspec.ReadInputSchema),
				InputError: &notJSON, ModelOutput: json.RawMessage(modelOutput(toolspec.OutputErrorText, notJSON))},
			{Tool: "exec", Description: execDescription, DescriptionLength: vfs.UTF16Len(execDescription), InputSchema: json.RawMessage(toolspec.ExecInputSchema([]toolspec.ExecBackend{{ID: "shell"}})),
				InputError: &noCommand, ModelOutput: json.RawMessage(modelOutput(toolspec.OutputErrorText, noCommand))},
		},
		{
			{Tool: "find", Description: toolspec.FindDescription, DescriptionLength: vfs.UTF16Len(toolspec.FindDescription), InputSchema: json.RawMessage(toolspec.FindInputSchema),
				ModelOutput: json.RawMessage(modelOutput(toolspec.OutputJSON, toolspec.ErrorResult{Error: toolspec.MsgNoSuchPath("/workspace")}))},
			{Tool: "exec", MissingTool: true},
		},
	}
	for i, line := range lines {
		if k := keys(t, json.RawMessage(line)); !inOrder(k, oracleCaseFields) || !slices.Contains(k, "case") {
			t.Errorf("case %d: fields %q, not in the oracle's order %q", i, k, oracleCaseFields)
		}
		var rec record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, line)
		}
		if want := []string{"small", "empty"}[i]; rec.Case != want {
			t.Errorf("case %d is %q, want %q", i, rec.Case, want)
		}
		wantTools := []string{"read", "ls", "find", "grep", "write", "edit", "delete", "exec"}
		if i == 1 { // no backends: no exec
			wantTools = wantTools[:7]
		}
		if !slices.Equal(rec.Tools, wantTools) {
			t.Errorf("case %d: tools %q", i, rec.Tools)
		}
		var calls []callRecord
		for j, c := range rec.Calls {
			if k := keys(t, c); !inOrder(k, oracleCallFields) {
				t.Errorf("case %d call %d: fields %q, not in the oracle's order", i, j, k)
			}
			var cr callRecord
			if err := json.Unmarshal(c, &cr); err != nil {
				t.Fatal(err)
			}
			calls = append(calls, cr)
		}
		rawJSON := cmp.Comparer(func(a, b json.RawMessage) bool {
			var ca, cb bytes.Buffer
			_ = json.Compact(&ca, a)
			_ = json.Compact(&cb, b)
			return ca.String() == cb.String()
		})
		if diff := cmp.Diff(wantCalls[i], calls, rawJSON); diff != "" {
			t.Errorf("case %d calls (-want +got):\n%s", i, diff)
		}
	}

	// A file that is not a case list is the caller's mistake.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runCLI(t, "", "replay", bad); got.code != 2 || got.stdout != "" {
		t.Errorf("replay of a bad file: exit %d, stdout %q", got.code, got.stdout)
	}
}

func TestCallExec(t *testing.T) {
	dir := hostDir(t)
	out := t.TempDir()
	flags := []string{"call", "--dir", dir, "--output", out}
	exec := func(args ...string) result {
		return runCLI(t, "", append(slices.Clone(flags), args...)...)
	}

	got := exec("exec", `{"command":"cat a.txt; echo oops >&2; exit 3","env":{"X":"1"}}`)
	want := `{"command":"cat a.txt; echo oops >&2; exit 3","cwd":null,"backend":"host","exitCode":3,"stdout":"hello\nworld\n","stderr":"oops\n"}` + "\n"
	if got.code != 0 || got.stdout != want {
		t.Errorf("exec: exit %d\n got %s\nwant %s", got.code, got.stdout, want)
	}
	// A command that cannot start is a failure the model sees: status 1.
	if got := exec("exec", `{"command":"true","cwd":"/workspace/missing"}`); got.code != 1 || !strings.Contains(got.stdout, `"error":"no such path: /workspace/missing"`) {
		t.Errorf("exec in a missing cwd: exit %d %s", got.code, got.stdout)
	}
	// Cut output is saved in --output, for a later call to read.
	got = exec("exec", `{"command":"seq 3000"}`)
	if !strings.Contains(got.stdout, `Full output: /.computer/output/host.exec-1.stdout.log]`) {
		t.Fatalf("long output: %s", last(got.stdout, 200))
	}
	if got := exec("read", `{"path":"/.computer/output/host.exec-1.stdout.log","offset":2999}`); !strings.Contains(got.stdout, `"content":"2999\n3000"`) {
		t.Errorf("read of the saved output in a later call: %s", got.stdout)
	}
	if data, err := os.ReadFile(filepath.Join(out, "host.exec-1.stdout.log")); err != nil || !strings.HasPrefix(string(data), "1\n2\n3\n") {
		t.Errorf("the saved output is not in --output: %v", err)
	}

	if got := exec("--exec-timeout", "100", "exec", `{"command":"sleep 100"}`); got.code != 0 || !strings.Contains(got.stdout, `"exitCode":137`) || !strings.Contains(got.stdout, "Killed after 100 ms") {
		t.Errorf("timeout: exit %d %s", got.code, got.stdout)
	}
	for _, bad := range [][]string{{"--exec-timeout", "-1"}, {"--exec-timeout", "9223372036854775"}, {"--exec", "docker"}} {
		if got := exec(append(bad, "exec", `{"command":"true"}`)...); got.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, got.code, got.stderr)
		}
	}
	if got := exec("--exec", "none", "exec", `{"command":"true"}`); got.code != 2 || !strings.Contains(got.stderr, `no tool "exec"`) {
		t.Errorf("--exec none: exit %d %s", got.code, got.stderr)
	}

	// A signal cancels the call: exit status 130.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, append(slices.Clone(flags), "exec", `{"command":"sleep 100"}`), strings.NewReader(""), &stdout, &stderr); code != 130 || stderr.String() != "agenttools: interrupted\n" {
		t.Errorf("cancelled: exit %d, stderr %q", code, stderr.String())
	}
}

func last(s string, n int) string { return s[max(0, len(s)-n):] }

// The default workspace is one SQLite file: tools, exec on a mirror of
// /workspace (a Go toolchain and git run there), import and export.
func TestDatabaseWorkspace(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ws.db")
	flags := []string{"--db", db, "--mirror", t.TempDir()}
	cli := func(command string, args ...string) result {
		return runCLI(t, "", append(append([]string{command}, flags...), args...)...)
	}
	src := hostDir(t)
	if got := runCLI(t, "", "import", "--db", db, src); got.code != 0 || got.stdout != "imported 4 nodes\n" {
		t.Fatalf("import: %+v", got)
	}
	if got := cli("call", "read", `{"path":"/workspace/sub/b.txt"}`); got.stdout != "b\n" {
		t.Errorf("read after import: %+v", got)
	}
	mod := `{"path":"/workspace/m/go.mod","content":"module m\n\ngo 1.26\n"}`
	test := `{"path":"/workspace/m/m_test.go","content":"package m\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {}\n"}`
	for _, args := range []string{mod, test} {
		if got := cli("call", "write", args); got.code != 0 {
			t.Fatalf("write: %+v", got)
		}
	}
	got := cli("call", "exec", `{"command":"go version && go env GOPATH && cd m && go test ./... && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one && printf built > out.txt","env":{"GOTOOLCHAIN":"local","GOFLAGS":"-mod=mod"}}`)
	var res toolspec.ExecResult
	if err := json.Unmarshal([]byte(got.stdout), &res); err != nil || res.ExitCode == nil || *res.ExitCode != 0 || !strings.Contains(res.Stdout, "go version go1.") || !strings.Contains(res.Stdout, "ok  \tm\t") {
		t.Fatalf("exec: %s %s", got.stdout, got.stderr)
	}
	// What the command made is in the database.
	if got := cli("call", "read", `{"path":"/workspace/m/out.txt"}`); got.stdout != "built\n" {
		t.Errorf("out.txt: %+v", got)
	}
	if got := cli("call", "exec", `{"command":"git status --porcelain && git log --oneline | wc -l","cwd":"/workspace/m"}`); !strings.Contains(got.stdout, `"stdout":"?? out.txt\n1\n"`) {
		t.Errorf("git in the next call: %s", got.stdout)
	}
	out := filepath.Join(t.TempDir(), "export")
	if got := runCLI(t, "", "export", "--db", db, "--from", "/workspace/m", out); got.code != 0 {
		t.Fatalf("export: %+v", got)
	}
	if data, err := os.ReadFile(filepath.Join(out, "out.txt")); err != nil || string(data) != "built" {
		t.Errorf("exported out.txt: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(out, ".git", "HEAD")); err != nil {
		t.Errorf("the exported tree has no .git: %v", err)
	}
}

// A database in a directory that does not exist yet is made, with the
// directory, as an MCP client's configuration may ask.
func TestDatabaseInANewDirectory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "agent", "state", "ws.db")
	if got := runCLI(t, "", "call", "--db", db, "write", `{"path":"/workspace/a.txt","content":"a"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	if got := runCLI(t, "", "call", "--db", db, "read", `{"path":"/workspace/a.txt"}`); got.stdout != "a\n" {
		t.Errorf("read back: %+v", got)
	}
}

// A file that is not a workspace database is refused, and left as it was.
func TestDatabaseRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notes.txt")
	content := []byte("these are notes, not a database\n")
	if err := os.WriteFile(bad, content, 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "call", "--db", bad, "ls", `{"path":"/"}`)
	if got.code != 2 || !strings.Contains(got.stderr, "--db:") {
		t.Errorf("call on a text file: %+v", got)
	}
	if data, _ := os.ReadFile(bad); string(data) != string(content) {
		t.Errorf("the file was changed: %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(bad)); len(entries) != 1 {
		t.Errorf("files were made beside it: %v", entries)
	}
	t.Log(got.stderr)
}

// Importing the directory that holds the database leaves the database
// out.
func TestImportSkipsTheDatabase(t *testing.T) {
	dir := hostDir(t)
	db := filepath.Join(dir, "agenttools.db")
	if got := runCLI(t, "", "import", "--db", db, dir); got.code != 0 || got.stdout != "imported 4 nodes\n" {
		t.Fatalf("import: %+v", got)
	}
	if got := runCLI(t, "", "call", "--db", db, "find", `{"pattern":"agenttools.db*"}`); !strings.Contains(got.stdout, `"count":0`) {
		t.Errorf("the database was imported: %s", got.stdout)
	}
}

// mcp --readonly on a database that does not exist says it serves an
// empty workspace, not the file.
func TestMCPReadonlyWithoutTheDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	got := runCLI(t, "", "mcp", "--readonly", "--db", db)
	want := "agenttools mcp: serving read, ls, find, grep over stdin and stdout on an empty workspace in memory (" + db + " does not exist, and --readonly makes none)\n"
	if got.code != 0 || got.stderr != want {
		t.Errorf("mcp: %+v, want stderr %q", got, want)
	}
	if _, err := os.Lstat(db); err == nil {
		t.Errorf("mcp --readonly made %s", db)
	}
}

// Processes that open a database that does not exist yet, at once, all
// work on it: one creates it, the others wait or find it made (they
// failed, some of the time, with "not an agenttools workspace (schema
// version 0 ...)", "turning WAL on: database is locked" or "mkdir
// /workspace: file exists").
func TestConcurrentFirstOpen(t *testing.T) {
	bin := agenttoolsBinary(t)
	const rounds, processes = 40, 4
	for round := range rounds {
		dir := t.TempDir()
		errs := make([]string, processes)
		var wg sync.WaitGroup
		for k := range processes {
			wg.Go(func() {
				cmd := osexec.Command(bin, "call", "--exec", "none", "--db", filepath.Join(dir, "ws.db"), "ls", `{"path":"/workspace"}`)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[k] = fmt.Sprintf("%v: %s", err, out)
				}
			})
		}
		wg.Wait()
		for k, e := range errs {
			if e != "" {
				t.Errorf("round %d, process %d: %s", round, k, e)
			}
		}
	}
}
