package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// agenttoolsBinary builds the command once for the tests that run it as
// a real process.
func agenttoolsBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agenttools-bin")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "agenttools")
		cmd := osexec.Command("go", "build", "-o", binary, ".")
		cmd.Dir = pkgDir
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building agenttools: %v", buildErr)
	}
	return binary
}

// toolNames lists the session's tools, by name.
func toolNames(ctx context.Context, t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// The built `agenttools mcp`, started by the SDK's client as a
// subprocess: the tools (exec off by default), calls of read, write,
// edit and grep, an image, and a clean exit when the client closes.
func TestMCPSubprocess(t *testing.T) {
	bin := agenttoolsBinary(t)
	db := filepath.Join(t.TempDir(), "ws.db")
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "dot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runCLI(t, "", "import", "--db", db, src); got.code != 0 {
		t.Fatalf("import: %+v", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := osexec.Command(bin, "mcp", "--db", db)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := toolNames(ctx, t, cs)
	if strings.Join(names, ",") != "delete,edit,find,grep,ls,read,write" {
		t.Errorf("tools %v (exec must be off by default)", names)
	}
	call := func(name, args string) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res
	}
	text := func(res *sdk.CallToolResult) string { return res.Content[0].(*sdk.TextContent).Text }
	if res := call("write", `{"path":"/workspace/notes.md","content":"status: draft\n"}`); res.IsError || text(res) != `{"path":"/workspace/notes.md","bytesWritten":14}` {
		t.Errorf("write: %s", text(res))
	}
	if res := call("edit", `{"path":"/workspace/notes.md","edits":[{"oldText":"draft","newText":"final"}]}`); res.IsError || !strings.Contains(text(res), `"editsApplied":1`) {
		t.Errorf("edit: %s", text(res))
	}
	if res := call("read", `{"path":"/workspace/notes.md"}`); text(res) != "status: final" {
		t.Errorf("read: %q", text(res))
	}
	if res := call("grep", `{"query":"final"}`); !strings.Contains(text(res), `"line":1,"text":"status: final"`) {
		t.Errorf("grep: %s", text(res))
	}
	res := call("read", `{"path":"/workspace/dot.png"}`)
	if img, ok := res.Content[1].(*sdk.ImageContent); !ok || !bytes.Equal(img.Data, png) {
		t.Errorf("image read: %+v", res.Content)
	}
	if res := call("read", `{"path":"/workspace/none"}`); !res.IsError || text(res) != "File not found: /workspace/none" {
		t.Errorf("missing file: %+v", res)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("the server did not exit cleanly: %v", cmd.ProcessState)
	}
}

// rawServer is `agenttools mcp` driven over its stdin and stdout with
// raw JSON-RPC lines.
type rawServer struct {
	t       *testing.T
	cmd     *osexec.Cmd
	in      io.WriteCloser
	outPipe io.Closer // the read end of the server's stdout
	out     *bufio.Reader
	next    int
}

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	return startRawWith(t, `{}`, args...)
}

// startRawWith is startRaw for a client that declares capabilities (a
// JSON object) when it initializes.
func startRawWith(t *testing.T, capabilities string, args ...string) *rawServer {
	t.Helper()
	cmd := osexec.Command(agenttoolsBinary(t), append([]string{"mcp"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &rawServer{t: t, cmd: cmd, in: in, outPipe: out, out: bufio.NewReaderSize(out, 1<<20)}
	s.request("initialize", []byte(`{"protocolVersion":"2025-06-18","capabilities":`+capabilities+`,"clientInfo":{"name":"raw","version":"1"}}`))
	s.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s
}

func (s *rawServer) write(line []byte) {
	s.t.Helper()
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// request sends one request and returns the response, read with a
// generous guard against a hang.
func (s *rawServer) request(method string, params []byte) map[string]json.RawMessage {
	s.t.Helper()
	line := s.line(method, params)
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		s.t.Fatalf("%s: answer %q: %v", method, line, err)
	}
	return m
}

// line sends one request and returns the response's line, without its
// newline.
func (s *rawServer) line(method string, params []byte) string {
	s.t.Helper()
	s.next++
	var line bytes.Buffer
	line.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(s.next) + `,"method":"` + method + `","params":`)
	line.Write(params)
	line.WriteString("}")
	s.write(line.Bytes())
	return s.read(method)
}

// read returns the next line the server writes, without its newline,
// with a generous guard against a hang; what names what is awaited.
func (s *rawServer) read(what string) string {
	s.t.Helper()
	type reply struct {
		line string
		err  error
	}
	got := make(chan reply, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		got <- reply{l, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			s.t.Fatalf("%s: no answer: %v", what, r.err)
		}
		return strings.TrimSuffix(r.line, "\n")
	case <-time.After(60 * time.Second):
		s.t.Fatalf("%s: no answer within a minute", what)
		return ""
	}
}

// toolText is a tools/call answer's first text and whether it is a
// failure the model sees.
func toolText(t *testing.T, m map[string]json.RawMessage) (string, bool) {
	t.Helper()
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("not a tool result: %s", m["result"])
	}
	return res.Content[0].Text, res.IsError
}

// Hostile input over the wire gets a clear answer, and the server keeps
// serving; closing its input ends it cleanly.
func TestMCPHostileInput(t *testing.T) {
	s := startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"))
	call := func(args []byte) map[string]json.RawMessage {
		return s.request("tools/call", append(append([]byte(`{"name":"read","arguments":`), args...), '}'))
	}

	// A 10 MB argument.
	huge := `{"path":"/workspace/` + strings.Repeat("a", 10<<20) + `"}`
	// The message shows the path's start, cut with an ellipsis.
	if text, isErr := toolText(t, call([]byte(huge))); !isErr || !strings.HasPrefix(text, toolspec.MsgPathTooLong(4096, "/workspace/aaaa")) || !strings.HasSuffix(text, "a…") || len(text) > 200 {
		t.Errorf("10 MB path: %.200s", text)
	}
	// Bytes that are not UTF-8 inside a string.
	if text, isErr := toolText(t, call([]byte("{\"path\":\"/workspace/caf\xe9\xff\"}"))); !isErr || text != "Invalid input for tool read: the arguments are not valid UTF-8" {
		t.Errorf("invalid UTF-8: %s", text)
	}
	// JSON nested deeper than a decoder follows: a JSON-RPC error, not
	// the end of the connection.
	deep := `{"path":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	if m := call([]byte(deep)); m["error"] == nil || !strings.Contains(string(m["error"]), `"code":-32`) {
		t.Errorf("deep nesting: %.300s", m)
	}
	// A line that is not JSON at all.
	s.write([]byte("hello, server"))
	if line, err := s.out.ReadString('\n'); err != nil || !strings.Contains(line, `"id":null,"error":{"code":-32700`) {
		t.Errorf("not JSON: %q %v", line, err)
	}
	// A path with NUL.
	if text, isErr := toolText(t, call([]byte(`{"path":"/workspace/a\u0000b"}`))); !isErr || text != toolspec.MsgInvalidPathNUL("/workspace/a\x00b") {
		t.Errorf("NUL: %s", text)
	}
	// Still serving.
	if text, isErr := toolText(t, s.request("tools/call", []byte(`{"name":"ls","arguments":{"path":"/workspace"}}`))); isErr || !strings.HasPrefix(text, `{"path":"/workspace"`) {
		t.Errorf("after the hostile calls: %s", text)
	}
	// A request sent just before the input ends is still answered, then
	// the server exits 0.
	s.next++
	s.write([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(s.next) + `,"method":"tools/call","params":{"name":"ls","arguments":{"path":"/"}}}`))
	s.in.Close()
	rest, _ := io.ReadAll(s.out)
	if !bytes.Contains(rest, []byte(`"id":`+strconv.Itoa(s.next)+`,"result"`)) {
		t.Errorf("the last request was not answered: %s", rest)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// The built server on a host directory holding the adapters' session
// workspace answers the session's calls byte for byte as the in-memory
// server does (golden/testdata/adapters/mcp/session.txtar); its own
// tools/list, with exec on the host, an exec call and the tools/list of
// --readonly are pinned in golden/testdata/adapters/mcp/subprocess.txtar.
func TestMCPSubprocessGolden(t *testing.T) {
	dir := t.TempDir()
	stamp := time.UnixMilli(agentcase.Clock)
	for p, content := range agentcase.Files {
		host := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, toolspec.WorkspaceRoot+"/")))
		if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(host, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Files and directories get the session's fixed time, as ls shows it.
	if err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, stamp, stamp)
	}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "ws.db")
	s := startRaw(t, "--db", db, "--dir", dir, "--exec", "host")
	golden := filepath.Join(pkgDir, "..", "..", "golden", "testdata", "adapters", "mcp")
	session := goldentest.Load(t, filepath.Join(golden, "session.txtar"))
	own := goldentest.Load(t, filepath.Join(golden, "subprocess.txtar"))
	own.Check(t, "tools/list", s.line("tools/list", []byte(`{}`)))
	for _, c := range agentcase.Calls {
		if c.Tool == toolspec.ToolExec {
			continue // scripted in the session; a real command below
		}
		if c.Tool == toolspec.ToolPublish {
			continue // the session's scripted publisher; this server has none
		}
		got := s.line("tools/call", []byte(`{"name":"`+c.Tool+`","arguments":`+c.Args+`}`))
		// Request ids match too: the session's exec call comes last.
		if want, ok := session.Section("result " + c.ID); !ok || got != want {
			t.Errorf("%s %s (-want +got, %s result %s):\n%s\nthe golden is written by: %s",
				c.Tool, c.Args, session.Path, c.ID, goldentest.Diff(want, got), "go test ./adapters/mcp -run '^TestWire$' -update")
		}
	}
	own.Check(t, "exec", s.line("tools/call", []byte(`{"name":"exec","arguments":{"command":"printf 'one\\n'; printf 'two\\n' >&2; exit 3","cwd":"/workspace/cmd"}}`)))
	// --readonly lists the read-only tools, with their annotations.
	ro := startRaw(t, "--db", db, "--dir", dir, "--readonly")
	own.Check(t, "tools/list readonly", ro.line("tools/list", []byte(`{}`)))
	own.Save(t, nil)
}

// waitExit requires the server to exit with status 0 within a generous
// minute, and returns what it wrote that was not read yet.
func (s *rawServer) waitExit() []byte {
	s.t.Helper()
	type exit struct {
		rest []byte
		err  error
	}
	exited := make(chan exit, 1)
	go func() {
		// Wait closes the pipe: what is left is read first.
		rest, _ := io.ReadAll(s.out)
		exited <- exit{rest, s.cmd.Wait()}
	}()
	select {
	case e := <-exited:
		if e.err != nil {
			s.t.Errorf("exit: %v, want status 0", e.err)
		}
		return e.rest
	case <-time.After(time.Minute):
		s.t.Fatal("the server did not exit")
		return nil
	}
}
