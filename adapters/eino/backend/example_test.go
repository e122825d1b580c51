package backend_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cloudwego/eino/adk"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino/backend"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// Eino's filesystem middleware (its own tools, descriptions and result
// texts) in an adk ChatModelAgent, over a workspace in a SQLite file, the
// command's default store.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sqlitefs.Open(filepath.Join(dir, "agent.db")) // a new one holds an empty /workspace
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	b, err := backend.New(vfs.New(db), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	mw, err := fsmw.NewMiddleware(ctx, &fsmw.Config{Backend: b})
	if err != nil {
		log.Fatal(err)
	}
	// Failures are Go errors, which end an adk run; this tool-call middleware
	// hands the model our message instead (Eino wraps it in text of its own).
	errorsAsResults := compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			out, err := next(ctx, in)
			var e *errno.Error
			if err != nil && ctx.Err() == nil && errors.As(err, &e) {
				return &compose.ToolOutput{Result: e.Error()}, nil
			}
			return out, err
		}
	}}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "coder",
		Description: "edits the workspace",
		// scriptedModel (agent_test.go) stands in for an LLM: one turn of calls
		// per Generate, then "done".
		Model: &scriptedModel{turns: [][]schema.ToolCall{
			{call("call_1", "write_file", `{"file_path":"/workspace/notes.txt","content":"status: draft\n"}`)},
			{call("call_2", "write_file", `{"file_path":"/workspace/notes.txt","content":"again\n"}`)},
			{call("call_3", "edit_file", `{"file_path":"/workspace/notes.txt","old_string":"draft","new_string":"final"}`)},
			{call("call_4", "read_file", `{"file_path":"/workspace/notes.txt"}`)},
			{call("call_5", "glob", `{"pattern":"**/*.txt","path":"/workspace"}`)},
		}},
		Middlewares: []adk.AgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			ToolCallMiddlewares: []compose.ToolMiddleware{errorsAsResults},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Mark the notes final.")
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			log.Fatal(ev.Err)
		}
		if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg.Role == schema.Tool {
			fmt.Printf("%s: %q\n", msg.ToolName, msg.Content)
		}
	}
	// Output:
	// write_file: "Updated file /workspace/notes.txt"
	// write_file: "path exists: /workspace/notes.txt"
	// edit_file: "Successfully replaced the string in '/workspace/notes.txt'"
	// read_file: "     1\tstatus: final\n     2\t"
	// glob: "/workspace/notes.txt"
}
