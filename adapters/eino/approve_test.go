package eino_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// approvalSet is the set over the session's workspace with the mutating
// tools waiting for approval.
func approvalSet(t *testing.T) (*vfs.Workspace, *eino.Tools) {
	t.Helper()
	ws, opts := agentcase.ApprovalWorkspace(t)
	opts.Approver = nil // eino's interrupts ask the human
	set, err := eino.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ws, set
}

// received is the tool message the model received for the call id.
func received(t *testing.T, m *scriptedModel, id string) string {
	t.Helper()
	m.state.mu.Lock()
	defer m.state.mu.Unlock()
	msg, ok := m.state.results[id]
	if !ok {
		t.Fatalf("the model received no tool message for %s", id)
	}
	return msg.Content
}

// drain reads an adk run to its end: the final answer, and the
// interrupt it ended with, if any.
func drain(t *testing.T, iter *adk.AsyncIterator[*adk.AgentEvent]) (answer string, interrupted *adk.InterruptInfo) {
	t.Helper()
	for {
		ev, ok := iter.Next()
		if !ok {
			return answer, interrupted
		}
		if ev.Err != nil {
			t.Fatal(ev.Err)
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			interrupted = ev.Action.Interrupted
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil || ev.Output.MessageOutput.Role != schema.Assistant {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			t.Fatal(err)
		}
		answer = msg.Content
	}
}

// requests are the approval requests among the interrupt contexts, by
// the model's call: tool and arguments.
func requests(contexts []*adk.InterruptCtx) []string {
	var out []string
	for _, ic := range contexts {
		if req, ok := ic.Info.(*core.ApprovalRequest); ok && ic.IsRootCause {
			out = append(out, req.Tool+" "+string(req.Arguments))
		}
	}
	return out
}

// checkFile checks that the file at path holds want.
func checkFile(t *testing.T, ws *vfs.Workspace, path, want string) {
	t.Helper()
	if got := agentcase.FileText(t, ws, path); got != want {
		t.Errorf("%s holds %q, want %q", path, got, want)
	}
}

// A write that needs approval in an adk ChatModelAgent run by a Runner
// with a checkpoint store (invoked and streamed): the run ends with an
// interrupt whose root cause's info is the call's *core.ApprovalRequest,
// the file unchanged and no tool message sent to the model. Resumed
// from the checkpoint with ResumeTargets (Runner.ResumeWithParams), an
// approved write changes the file and the model's next request holds
// core's result; a refused one leaves the file and the request holds
// core's refusal. The run then ends with the model's answer.
func TestApprovalADK(t *testing.T) {
	before := string(agentcase.Files[agentcase.Notes])
	for _, streaming := range []bool{false, true} {
		for _, approved := range []bool{true, false} {
			t.Run(fmt.Sprintf("streaming=%t/approved=%t", streaming, approved), func(t *testing.T) {
				ws, set := approvalSet(t)
				m := newModel([]agentcase.Call{agentcase.ApprovalWrite})
				runner := approvalRunner(t, m, set, streaming)
				answer, interrupted := drain(t, runner.Query(t.Context(), agentcase.Prompt, adk.WithCheckPointID("run-1")))
				if interrupted == nil {
					t.Fatalf("the run was not interrupted (answer %q)", answer)
				}
				checkFile(t, ws, agentcase.Notes, before)
				if len(m.state.results) != 0 {
					t.Fatalf("the model received %d tool messages before the decision", len(m.state.results))
				}
				wantReq := []string{"write " + `{"path":"/workspace/notes.txt","content":"status: approved\n"}`}
				if got := requests(interrupted.InterruptContexts); !reflect.DeepEqual(got, wantReq) {
					t.Errorf("approval requests %q, want %q", got, wantReq)
				}

				var asked []core.ApprovalRequest
				targets := eino.ResumeTargets(interrupted.InterruptContexts, func(r core.ApprovalRequest) bool {
					asked = append(asked, r)
					return approved
				})
				if len(asked) != 1 || len(targets) != 1 {
					t.Fatalf("decide was asked %d times, %d targets", len(asked), len(targets))
				}
				iter, err := runner.ResumeWithParams(t.Context(), "run-1", &adk.ResumeParams{Targets: targets})
				if err != nil {
					t.Fatal(err)
				}
				answer, interrupted = drain(t, iter)
				if interrupted != nil || answer != agentcase.Answer {
					t.Errorf("resumed: answer %q, interrupted %v", answer, interrupted != nil)
				}
				agentcase.CheckApprovalWrite(t, ws, received(t, m, "call_1"), approved)
			})
		}
	}
}

// approvalRunner is an adk Runner, with an in-memory checkpoint store,
// of a ChatModelAgent over set.
func approvalRunner(t *testing.T, m *scriptedModel, set *eino.Tools, streaming bool) *adk.Runner {
	t.Helper()
	agent, err := adk.NewChatModelAgent(t.Context(), &adk.ChatModelAgentConfig{
		Name:          "coder",
		Description:   "works in the workspace",
		Model:         m,
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: set.All()}},
		MaxIterations: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	return adk.NewRunner(t.Context(), adk.RunnerConfig{Agent: agent, EnableStreaming: streaming, CheckPointStore: newMemoryStore()})
}

// The calls of one turn, the shared approval session's two writes and a
// read: the read runs at once (the ToolsNode keeps its result in the
// checkpoint), the writes interrupt. A resume that names neither
// (Runner.Resume, no targets) asks again: the run interrupts with the
// same two requests and nothing written. Resumed with the session's
// decisions (one approved, one refused), only the approved one writes,
// and the model receives all three answers.
func TestApprovalADKSeveralCalls(t *testing.T) {
	read := agentcase.Call{ID: "call_3", Tool: "read", Args: agentcase.ReadArgs}
	ws, set := approvalSet(t)
	m := newModel(append(slices.Clone(agentcase.ApprovalCalls), read))
	m.batch = true
	runner := approvalRunner(t, m, set, false)
	_, interrupted := drain(t, runner.Query(t.Context(), agentcase.Prompt, adk.WithCheckPointID("run-1")))
	if interrupted == nil || len(requests(interrupted.InterruptContexts)) != 2 {
		t.Fatalf("interrupted %v, want two approval requests", interrupted)
	}
	first := requests(interrupted.InterruptContexts)

	iter, err := runner.Resume(t.Context(), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	_, interrupted = drain(t, iter)
	if interrupted == nil {
		t.Fatal("a resume with no decision ran the calls")
	}
	if got := requests(interrupted.InterruptContexts); !sameSet(got, first) {
		t.Errorf("asked again for %q, want %q", got, first)
	}
	if _, err := ws.Stat(t.Context(), "/workspace/approved.txt"); err == nil {
		t.Fatal("a resume with no decision wrote approved.txt")
	}

	iter, err = runner.ResumeWithParams(t.Context(), "run-1", &adk.ResumeParams{Targets: eino.ResumeTargets(interrupted.InterruptContexts, agentcase.Approves)})
	if err != nil {
		t.Fatal(err)
	}
	if answer, interrupted := drain(t, iter); interrupted != nil || answer != agentcase.Answer {
		t.Errorf("resumed: answer %q, interrupted %v", answer, interrupted != nil)
	}
	agentcase.CheckApproval(t, ws, []string{received(t, m, "call_1"), received(t, m, "call_2")})
	if got, want := received(t, m, read.ID), agentcase.ApprovalAnswer(t, read, true); got != want {
		t.Errorf("read: the model received %q, want %q", got, want)
	}
}

func sameSet(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// Invalid arguments are answered, never sent to a human: a write that
// needs approval but whose arguments core refuses does not interrupt.
func TestApprovalADKInvalidArguments(t *testing.T) {
	c := agentcase.Call{ID: "call_1", Tool: "write", Args: `{"path":"/workspace/notes.txt"}`}
	_, set := approvalSet(t)
	m := newModel([]agentcase.Call{c})
	answer, interrupted := drain(t, approvalRunner(t, m, set, false).Query(t.Context(), agentcase.Prompt, adk.WithCheckPointID("run-1")))
	if interrupted != nil || answer != agentcase.Answer {
		t.Fatalf("answer %q, interrupted %v", answer, interrupted != nil)
	}
	if got := received(t, m, "call_1"); !strings.HasPrefix(got, toolspec.MsgArgumentsInvalid("write", "")) {
		t.Errorf("the model received %q, want core's invalid-arguments text", got)
	}
}

// The react agent (a compose graph) compiles its graph with no
// checkpoint store, so its own Generate cannot be resumed; its graph
// (ExportGraph), as a node of a graph compiled with one, can: the write
// interrupts (compose.ExtractInterruptInfo holds the request), and the
// run resumed with ResumeTargets (compose.BatchResumeWithData) writes
// only when approved, the model receiving core's result or refusal.
func TestApprovalReactGraph(t *testing.T) {
	before := string(agentcase.Files[agentcase.Notes])
	for _, approved := range []bool{true, false} {
		t.Run(fmt.Sprintf("approved=%t", approved), func(t *testing.T) {
			ws, set := approvalSet(t)
			m := newModel([]agentcase.Call{agentcase.ApprovalWrite})
			agent, err := react.NewAgent(t.Context(), &react.AgentConfig{
				ToolCallingModel: m,
				ToolsConfig:      compose.ToolsNodeConfig{Tools: set.All()},
				MaxStep:          8,
			})
			if err != nil {
				t.Fatal(err)
			}
			inner, opts := agent.ExportGraph()
			g := compose.NewGraph[[]*schema.Message, *schema.Message]()
			if err := g.AddGraphNode("agent", inner, opts...); err != nil {
				t.Fatal(err)
			}
			if err := g.AddEdge(compose.START, "agent"); err != nil {
				t.Fatal(err)
			}
			if err := g.AddEdge("agent", compose.END); err != nil {
				t.Fatal(err)
			}
			run, err := g.Compile(t.Context(), compose.WithCheckPointStore(newMemoryStore()))
			if err != nil {
				t.Fatal(err)
			}
			input := []*schema.Message{schema.UserMessage(agentcase.Prompt)}
			_, err = run.Invoke(t.Context(), input, compose.WithCheckPointID("run-1"))
			info, ok := compose.ExtractInterruptInfo(err)
			if !ok {
				t.Fatalf("the run was not interrupted: %v", err)
			}
			checkFile(t, ws, agentcase.Notes, before)
			if got := requests(info.InterruptContexts); len(got) != 1 || !strings.HasPrefix(got[0], "write ") {
				t.Fatalf("approval requests %q", got)
			}
			ctx := compose.BatchResumeWithData(t.Context(), eino.ResumeTargets(info.InterruptContexts, func(core.ApprovalRequest) bool { return approved }))
			answer, err := run.Invoke(ctx, input, compose.WithCheckPointID("run-1"))
			if err != nil {
				t.Fatal(err)
			}
			if answer.Content != agentcase.Answer {
				t.Errorf("answer %q", answer.Content)
			}
			agentcase.CheckApprovalWrite(t, ws, received(t, m, "call_1"), approved)
		})
	}
}
