package backend_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino/backend"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/testws"
)

// scriptedModel is a model.ToolCallingChatModel that makes one turn of
// scripted tool calls per Generate, then answers "done"; it keeps the
// tools it was given and the messages of its last turn.
type scriptedModel struct {
	turns [][]schema.ToolCall

	mu    sync.Mutex
	turn  int
	tools []*schema.ToolInfo
	last  []*schema.Message
}

func (m *scriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools = tools
	return m, nil
}

func (m *scriptedModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = input
	if m.turn == len(m.turns) {
		return schema.AssistantMessage("done", nil), nil
	}
	calls := m.turns[m.turn]
	m.turn++
	return schema.AssistantMessage("", calls), nil
}

func (m *scriptedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// TestAgent runs Eino's filesystem middleware over our Backend in an adk
// ChatModelAgent under a Runner, on each store (exec on a host directory
// with the host backend, else through a mirror): the model calls each of
// the middleware's tools, and the tool messages it receives and the
// workspace afterwards are what Eino's tools over this workspace give.
func TestAgent(t *testing.T) {
	for _, s := range stores {
		t.Run(s.Name, func(t *testing.T) {
			ctx := t.Context()
			ws := s.New(t)
			if err := ws.WriteFile(ctx, "/workspace/notes.txt", []byte("alpha\nbeta\ngamma\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
				t.Fatal(err)
			}
			var exec execbackend.Backend
			var err error
			if s.Name == testws.HostDir.Name {
				exec, err = execbackend.NewHost(ws, execbackend.HostOptions{})
			} else {
				exec, err = execbackend.NewMirror(ws, execbackend.MirrorOptions{Mirror: filepath.Join(t.TempDir(), "mirror")})
			}
			if err != nil {
				t.Fatal(err)
			}
			b := mustNew(t, ws, agenttools.Options{Backends: []execbackend.Backend{exec}})
			mw, err := fsmw.NewMiddleware(ctx, &fsmw.Config{Backend: b})
			if err != nil {
				t.Fatal(err)
			}
			m := &scriptedModel{turns: [][]schema.ToolCall{
				{call("c1", "ls", `{"path":"/workspace"}`)},
				{call("c2", "read_file", `{"file_path":"/workspace/notes.txt","offset":1,"limit":1}`)},
				{call("c3", "write_file", `{"file_path":"/workspace/src/main.go","content":"package main\n\n// TODO: greet\n"}`)},
				{call("c4", "edit_file", `{"file_path":"/workspace/notes.txt","old_string":"beta","new_string":"BETA"}`)},
				{call("c5", "glob", `{"pattern":"**/*.[gt][ox]*","path":"/workspace"}`)},
				{call("c6", "grep", `{"pattern":"TODO","path":"/workspace","output_mode":"content"}`),
					call("c7", "grep", `{"pattern":"a","glob":"*.txt","output_mode":"count"}`)},
				{call("c8", "execute", `{"command":"wc -l < src/main.go; echo made > made.txt; echo oops >&2; exit 3"}`)},
			}}
			agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
				Name: "coder", Description: "works in the workspace", Instruction: "Use the tools.",
				Model: m, Middlewares: []adk.AgentMiddleware{mw},
			})
			if err != nil {
				t.Fatal(err)
			}
			events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
			var toolEvents []string
			for {
				ev, ok := events.Next()
				if !ok {
					break
				}
				if ev.Err != nil {
					t.Fatal(ev.Err)
				}
				if mo := ev.Output.MessageOutput; mo != nil && mo.Role == schema.Tool {
					toolEvents = append(toolEvents, mo.ToolName)
				}
			}

			var names []string
			for _, info := range m.tools {
				names = append(names, info.Name)
			}
			if want := []string{"ls", "read_file", "write_file", "edit_file", "glob", "grep", "execute"}; !slices.Equal(names, want) {
				t.Errorf("the model's tools: %v, want %v", names, want)
			}
			if want := []string{"ls", "read_file", "write_file", "edit_file", "glob", "grep", "grep", "execute"}; !slices.Equal(toolEvents, want) {
				t.Errorf("tool events: %v, want %v", toolEvents, want)
			}
			if !strings.Contains(m.last[0].Content, fsmw.ExecuteToolsSystemPrompt) {
				t.Errorf("the system prompt does not offer execute: %q", m.last[0].Content)
			}
			got := map[string]string{}
			for _, msg := range m.last {
				if msg.Role == schema.Tool {
					got[msg.ToolCallID] = msg.Content
				}
			}
			want := map[string]string{
				"c1": "/workspace/notes.txt",
				"c2": "     2\tbeta",
				"c3": "Updated file /workspace/src/main.go",
				"c4": "Successfully replaced the string in '/workspace/notes.txt'",
				"c5": "/workspace/notes.txt\n/workspace/src/main.go",
				"c6": "/workspace/src/main.go:3:// TODO: greet\n",
				"c7": "2",
				"c8": "3\noops\n\n[Command failed with exit code 3]",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tool messages (-want +got):\n%s", diff)
			}
			for p, text := range map[string]string{
				"/workspace/notes.txt":   "alpha\nBETA\ngamma\n",
				"/workspace/src/main.go": "package main\n\n// TODO: greet\n",
				"/workspace/made.txt":    "made\n",
			} {
				if data := readAll(t, ws, p); data != text {
					t.Errorf("%s holds %q, want %q", p, data, text)
				}
			}
		})
	}
}

// TestExecuteCancelled: cancelling the context while execute's
// command runs ends Execute with the context's error (core kills the
// command then, as its own tests show).
func TestExecuteCancelled(t *testing.T) {
	ws, dir := testws.Host(t, "")
	exec, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := mustNew(t, ws, agenttools.Options{Backends: []execbackend.Backend{exec}})
	fifo := filepath.Join(dir, "pid")
	pid := testws.PIDFIFO(t, fifo)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := b.(*backend.ShellBackend).Execute(ctx, &filesystem.ExecuteRequest{Command: "echo $$ > pid; sleep 300"})
		done <- err
	}()
	pid()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("execute after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("execute did not end within a minute of the cancel")
	}
}

func readAll(t *testing.T, ws *vfs.Workspace, p string) string {
	t.Helper()
	r, _, err := ws.Open(t.Context(), p, 0)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAgentFailedCall: a Backend failure is a Go error, as Eino's
// interface has it: the middleware's tool returns it and the adk run
// ends with it (the model never sees it), the workspace unchanged.
func TestAgentFailedCall(t *testing.T) {
	ctx := t.Context()
	ws := testws.Memory.New(t)
	if err := ws.WriteFile(ctx, "/workspace/notes.txt", []byte("alpha\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	runErr := runOneCall(t, mustNew(t, ws, agenttools.Options{}), call("c1", "write_file", `{"file_path":"/workspace/notes.txt","content":"beta\n"}`))
	if !errors.Is(runErr, fs.ErrExist) || !strings.Contains(runErr.Error(), "path exists: /workspace/notes.txt") {
		t.Errorf("the run ended with %v, want the write's error", runErr)
	}
	if got := readAll(t, ws, "/workspace/notes.txt"); got != "alpha\n" {
		t.Errorf("notes.txt holds %q", got)
	}
}

// runOneCall runs an adk agent with Eino's filesystem middleware over b
// under a Runner, its model making the one call c, and returns the error
// the run ended with.
func runOneCall(t *testing.T, b filesystem.Backend, c schema.ToolCall) error {
	t.Helper()
	ctx := t.Context()
	mw, err := fsmw.NewMiddleware(ctx, &fsmw.Config{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	m := &scriptedModel{turns: [][]schema.ToolCall{{c}}}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "coder", Description: "works in the workspace", Model: m, Middlewares: []adk.AgentMiddleware{mw}})
	if err != nil {
		t.Fatal(err)
	}
	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var runErr error
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			runErr = ev.Err
		}
	}
	return runErr
}

// TestExecuteWindowAndTimeout: execute keeps our exec tool's output
// window (the end of the output, our note naming the saved full output,
// which read_file then reads, and Truncated set) and its timeout (the
// command killed, our note on stderr).
func TestExecuteWindowAndTimeout(t *testing.T) {
	ctx := t.Context()
	ws, _ := testws.Host(t, "")
	exec, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := mustNew(t, ws, agenttools.Options{
		Backends:    []execbackend.Backend{exec},
		ExecOutput:  agenttools.ExecOutputOptions{MaxLines: 3},
		ExecTimeout: 1000,
	}).(*backend.ShellBackend)
	res, err := b.Execute(ctx, &filesystem.ExecuteRequest{Command: "seq 10"})
	if err != nil {
		t.Fatal(err)
	}
	const saved = "/.computer/output/host.exec-1.stdout.log"
	if want := "8\n9\n10\n\n\n[Showing lines 8-10 of 10. Full output: " + saved + "]"; res.Output != want || !res.Truncated || *res.ExitCode != 0 {
		t.Errorf("cut output: %q (truncated %v, exit %d), want %q", res.Output, res.Truncated, *res.ExitCode, want)
	}
	if full, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: saved, Offset: 9}); err != nil || full != "    10\t10\n    11\t" {
		t.Errorf("the saved output from line 10: %q, %v", full, err)
	}
	res, err = b.Execute(ctx, &filesystem.ExecuteRequest{Command: "sleep 300"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[Killed after 1000 ms: the command ran longer than the exec timeout.]"; res.Output != want || res.Truncated || *res.ExitCode == 0 {
		t.Errorf("timed out: %q (truncated %v, exit %d), want %q", res.Output, res.Truncated, *res.ExitCode, want)
	}
}
