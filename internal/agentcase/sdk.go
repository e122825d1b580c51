package agentcase

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// CountingArgs is the exec call of Counting's workspace.
const CountingArgs = `{"command":"count"}`

// Counting is an empty workspace whose one exec backend, "shell", prints
// 0 to 11 for CountingArgs, one line a chunk, with options whose clock
// (StepClock, 30 ms a reading) makes exec report running snapshots: the
// workspace of the adapters' exec streaming tests. Each call of Counting
// queues one run.
func Counting(tb testing.TB) (*vfs.Workspace, agenttools.Options) {
	tb.Helper()
	scripts := execbackend.NewScripts(nil)
	var events []execbackend.ScriptEvent
	for i := range 12 {
		events = append(events, execbackend.ScriptEvent{Data: []byte(strconv.Itoa(i) + "\n")})
	}
	scripts.Queue(execbackend.Script{Events: events})
	return vfs.New(memfs.New()), agenttools.Options{
		Backends: []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell"}, scripts)},
		Clock:    StepClock(30 * time.Millisecond),
	}
}

// StepClock is a clock, from the Unix epoch, that moves on by step at
// each reading, so that time-driven behaviour (exec's snapshots, one per
// 100 ms at most) happens without waiting.
func StepClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := time.UnixMilli(0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
}

// ChatToolMessages are the tool messages of an OpenAI Chat Completions
// request body, content (a string) by tool call id.
func ChatToolMessages(tb testing.TB, body []byte) map[string]string {
	tb.Helper()
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range req.Messages {
		if m.Role != "tool" {
			continue
		}
		content, ok := m.Content.(string)
		if !ok {
			tb.Fatalf("tool message %s: content %v, want a string", m.ToolCallID, m.Content)
		}
		out[m.ToolCallID] = content
	}
	return out
}

// Hello is an in-memory workspace holding /workspace/hello.txt
// ("hello\n"): the workspace of the SDK adapters' examples, which have
// no testing.TB, so it panics on an error (none happens in memory).
func Hello(ctx context.Context) *vfs.Workspace {
	ws := vfs.New(memfs.New())
	if err := ws.Mkdir(ctx, "/workspace", vfs.MkdirOptions{}); err != nil {
		panic(err)
	}
	if err := ws.WriteFile(ctx, "/workspace/hello.txt", []byte("hello\n"), vfs.WriteOptions{}); err != nil {
		panic(err)
	}
	return ws
}
