package eino_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// exampleModel stands in for an LLM: a model.ToolCallingChatModel that
// makes the given calls, one a turn, then answers "Done.", and keeps the
// tool names it was bound with and the tool messages it received.
type exampleModel struct {
	calls [][2]string // tool name, arguments

	mu       sync.Mutex
	tools    []string
	received []*schema.Message
}

func (m *exampleModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range tools {
		m.tools = append(m.tools, t.Name)
	}
	return m, nil
}

func (m *exampleModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	turn := 0
	for _, msg := range input {
		if msg.Role == schema.Tool {
			turn++
			if turn > len(m.received) {
				m.received = append(m.received, msg)
			}
		}
	}
	if turn == len(m.calls) {
		return schema.AssistantMessage("Done.", nil), nil
	}
	c := m.calls[turn]
	return schema.AssistantMessage("", []schema.ToolCall{{
		ID: fmt.Sprintf("call_%d", turn+1), Type: "function", Function: schema.FunctionCall{Name: c[0], Arguments: c[1]},
	}}), nil
}

func (m *exampleModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// printReceived prints each tool message the model received: its Content,
// or its parts, a media part as its type and media type.
func (m *exampleModel) printReceived() {
	for _, msg := range m.received {
		if len(msg.UserInputMultiContent) == 0 {
			fmt.Printf("model received for %s: %q\n", msg.ToolName, msg.Content)
			continue
		}
		var parts []string
		for _, p := range msg.UserInputMultiContent {
			switch {
			case p.Type == schema.ChatMessagePartTypeText:
				parts = append(parts, fmt.Sprintf("%q", p.Text))
			case p.Image != nil:
				parts = append(parts, string(p.Type)+" "+p.Image.MIMEType)
			}
		}
		fmt.Printf("model received for %s: %s\n", msg.ToolName, strings.Join(parts, ", "))
	}
}

// pixelPNG is a 1x1 PNG image.
var pixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

// exampleWorkspace is an in-memory workspace with a notes file and an
// image under /workspace, on a clock stopped at 2026-01-01 so that the
// mtimes ls reports are stable.
func exampleWorkspace(ctx context.Context) *vfs.Workspace {
	stopped := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ws := vfs.New(memfs.New(memfs.WithClock(func() time.Time { return stopped })))
	for path, data := range map[string][]byte{
		"/workspace/notes.txt": []byte("status: draft\n"),
		"/workspace/pixel.png": pixelPNG,
	} {
		if err := ws.WriteFile(ctx, path, data, vfs.WriteOptions{CreateParents: true}); err != nil {
			log.Fatal(err)
		}
	}
	return ws
}

// The tools in an adk ChatModelAgent run by an adk Runner: every call,
// read's included, is an event, and with the set's Middleware the image
// read reaches the model as its text then an image part.
func Example() {
	ctx := context.Background()
	set, err := eino.New(exampleWorkspace(ctx), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	chatModel := &exampleModel{calls: [][2]string{
		{"read", `{"path":"/workspace/notes.txt"}`},
		{"read", `{"path":"/workspace/pixel.png"}`},
	}}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "coder",
		Description: "works in the workspace",
		Model:       chatModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: set.All()}},
		Middlewares: []adk.AgentMiddleware{set.Middleware()},
	})
	if err != nil {
		log.Fatal(err)
	}
	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "What do the notes say?")
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			log.Fatal(ev.Err)
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			log.Fatal(err)
		}
		switch {
		case msg.Role == schema.Tool:
			fmt.Printf("event: %s answered %q\n", msg.ToolName, msg.Content)
		case len(msg.ToolCalls) > 0:
			fmt.Printf("event: the model calls %s %s\n", msg.ToolCalls[0].Function.Name, msg.ToolCalls[0].Function.Arguments)
		default:
			fmt.Printf("event: the model answers %q\n", msg.Content)
		}
	}
	fmt.Println("tools:", strings.Join(chatModel.tools, " "))
	chatModel.printReceived()
	// Output:
	// event: the model calls read {"path":"/workspace/notes.txt"}
	// event: read answered "status: draft"
	// event: the model calls read {"path":"/workspace/pixel.png"}
	// event: read answered "Read /workspace/pixel.png (image/png, 70 bytes)."
	// event: the model answers "Done."
	// tools: read ls find grep write edit delete
	// model received for read: "status: draft"
	// model received for read: "Read /workspace/pixel.png (image/png, 70 bytes).", image_url image/png
}

// The tools in a react agent: MediaRewriter, as its MessageRewriter, gives
// the model read's image as an image part.
func ExampleTools_MediaRewriter() {
	ctx := context.Background()
	set, err := eino.New(exampleWorkspace(ctx), agenttools.Options{Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	chatModel := &exampleModel{calls: [][2]string{
		{"ls", `{"path":"/workspace"}`},
		{"read", `{"path":"/workspace/pixel.png"}`},
	}}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: chatModel,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.All()},
		MessageRewriter:  set.MediaRewriter(),
		MaxStep:          10,
	})
	if err != nil {
		log.Fatal(err)
	}
	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("What is in the workspace?")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("tools:", strings.Join(chatModel.tools, " "))
	chatModel.printReceived()
	fmt.Println("answer:", answer.Content)
	// Output:
	// tools: read ls find grep
	// model received for ls: "{\"path\":\"/workspace\",\"count\":2,\"entries\":[{\"name\":\"notes.txt\",\"size\":14,\"mtime\":1767225600000,\"isFile\":true,\"isDirectory\":false,\"isSymbolicLink\":false},{\"name\":\"pixel.png\",\"size\":70,\"mtime\":1767225600000,\"isFile\":true,\"isDirectory\":false,\"isSymbolicLink\":false}]}"
	// model received for read: "Read /workspace/pixel.png (image/png, 70 bytes).", image_url image/png
	// answer: Done.
}

// A tool called directly, outside any agent, as a ToolsNode calls it.
func ExampleTools_Read() {
	ctx := context.Background()
	set, err := eino.New(exampleWorkspace(ctx), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	read, _ := set.Read()
	info, _ := read.Info(ctx)
	for _, args := range []string{`{"path":"/workspace/notes.txt"}`, `{"path":"/workspace/missing.txt"}`} {
		text, err := read.(tool.InvokableTool).InvokableRun(ctx, args)
		if err != nil {
			log.Fatal(err) // only a cancelled context
		}
		fmt.Printf("%s %s: %q\n", info.Name, args, text)
	}
	// Output:
	// read {"path":"/workspace/notes.txt"}: "status: draft"
	// read {"path":"/workspace/missing.txt"}: "File not found: /workspace/missing.txt"
}

// memoryStore is a checkpoint store in memory (adk.CheckPointStore, the
// same interface as compose.CheckPointStore): eino saves a run's
// checkpoint under its ID when the run is interrupted and loads it to
// resume. A store that outlives the process (a database, files) lets a
// run wait for a human across restarts.
type memoryStore struct {
	mu          sync.Mutex
	checkpoints map[string][]byte
}

func newMemoryStore() *memoryStore { return &memoryStore{checkpoints: map[string][]byte{}} }

func (s *memoryStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.checkpoints[id]
	return data, ok, nil
}

func (s *memoryStore) Set(_ context.Context, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checkpoints[id] = data
	return nil
}

// Approval of the mutating tools in an adk Runner with a checkpoint
// store: the write interrupts the run, its request in the interrupt's
// info; the run resumed with the human's decision (ResumeTargets) then
// writes, and the model receives the result.
func ExampleResumeTargets() {
	ctx := context.Background()
	ws := exampleWorkspace(ctx)
	set, err := eino.New(ws, agenttools.Options{Approve: []string{agenttools.ApproveMutating}})
	if err != nil {
		log.Fatal(err)
	}
	chatModel := &exampleModel{calls: [][2]string{{"write", `{"path":"/workspace/notes.txt","content":"status: final\n"}`}}}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "coder",
		Description: "works in the workspace",
		Model:       chatModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: set.All()}},
	})
	if err != nil {
		log.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: newMemoryStore()})
	// run reads a run's events to the end and returns its interrupt, if any.
	run := func(events *adk.AsyncIterator[*adk.AgentEvent]) *adk.InterruptInfo {
		var interrupted *adk.InterruptInfo
		for {
			ev, ok := events.Next()
			if !ok {
				return interrupted
			}
			if ev.Err != nil {
				log.Fatal(ev.Err)
			}
			if ev.Action != nil && ev.Action.Interrupted != nil {
				interrupted = ev.Action.Interrupted
			}
		}
	}
	interrupted := run(runner.Query(ctx, "Mark the notes final.", adk.WithCheckPointID("session-1")))
	targets := eino.ResumeTargets(interrupted.InterruptContexts, func(req agenttools.ApprovalRequest) bool {
		fmt.Printf("approve %s %s? yes\n", req.Tool, req.Arguments)
		return true
	})
	events, err := runner.ResumeWithParams(ctx, "session-1", &adk.ResumeParams{Targets: targets})
	if err != nil {
		log.Fatal(err)
	}
	run(events)
	chatModel.printReceived()
	// Output:
	// approve write {"path":"/workspace/notes.txt","content":"status: final\n"}? yes
	// model received for write: "{\"path\":\"/workspace/notes.txt\",\"bytesWritten\":14}"
}
