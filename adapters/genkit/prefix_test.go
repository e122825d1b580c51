package genkit_test

import (
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
)

// twoWorkspaces are two session workspaces, each with /workspace/who.txt
// saying which it is.
func twoWorkspaces(t *testing.T) (a, b *vfs.Workspace) {
	t.Helper()
	for i, who := range []string{"A", "B"} {
		ws, _ := agentcase.Workspace(t)
		if err := ws.WriteFile(t.Context(), "/workspace/who.txt", []byte(who), vfs.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			a = ws
		} else {
			b = ws
		}
	}
	return a, b
}

// generateWith runs Generate on g with the scripted calls and the tools.
func generateWith(t *testing.T, g *genkit.Genkit, calls []agentcase.Call, refs []ai.ToolRef) *scriptedModel {
	t.Helper()
	model := newScriptedModel(calls)
	if _, err := genkit.Generate(t.Context(), g,
		ai.WithModel(model.define(g)),
		ai.WithPrompt(agentcase.Prompt),
		ai.WithTools(refs...),
		ai.WithMaxTurns(len(calls)+1)); err != nil {
		t.Fatal(err)
	}
	return model
}

// Two workspaces in one Genkit instance, one set defined on g and one
// passed to Generate, with different prefixes: each call runs on its
// own set's workspace, and the model is told each set's names.
func TestPrefixedWorkspacesDoNotCross(t *testing.T) {
	g := initGenkit(t)
	wsA, wsB := twoWorkspaces(t)
	_, opts := agentcase.Workspace(t)
	optsA, optsB := opts, opts
	optsA.Prefix, optsB.Prefix = "a_", "b_"
	setA, err := agentgenkit.Define(g, wsA, optsA)
	if err != nil {
		t.Fatal(err)
	}
	setB, err := agentgenkit.New(wsB, optsB)
	if err != nil {
		t.Fatal(err)
	}
	refsB, err := setB.RefsFor(g)
	if err != nil {
		t.Fatal(err)
	}
	calls := []agentcase.Call{
		{ID: "call_1", Tool: "a_read", Args: `{"path":"/workspace/who.txt"}`},
		{ID: "call_2", Tool: "b_read", Args: `{"path":"/workspace/who.txt"}`},
		{ID: "call_3", Tool: "b_write", Args: `{"path":"/workspace/out.txt","content":"written by b"}`},
		{ID: "call_4", Tool: "a_write", Args: `{"path":"/workspace/out.txt","content":"written by a"}`},
		{ID: "call_5", Tool: "b_exec", Args: `{"command":"go test ./...","cwd":"/workspace"}`},
	}
	model := generateWith(t, g, calls, append(setA.Refs(), refsB...))

	for id, want := range map[string]string{"call_1": "A", "call_2": "B"} {
		if r := model.results[id]; r == nil || resultText(t, r) != want {
			t.Errorf("%s: the model read %v, want %q", id, r, want)
		}
	}
	if r := model.results["call_5"]; r == nil || !strings.Contains(resultText(t, r), `"exitCode":0`) {
		t.Errorf("b_exec: %v", r)
	}
	if got := agentcase.FileText(t, wsA, "/workspace/out.txt"); got != "written by a" {
		t.Errorf("workspace A's out.txt: %q", got)
	}
	if got := agentcase.FileText(t, wsB, "/workspace/out.txt"); got != "written by b" {
		t.Errorf("workspace B's out.txt: %q", got)
	}
	sent := map[string]*ai.ToolDefinition{}
	for _, d := range model.sent[0].Tools {
		sent[d.Name] = d
	}
	if len(sent) != 16 {
		t.Errorf("the model was sent %d tools, want 16", len(sent))
	}
	for _, p := range []string{"a_", "b_"} {
		exec := sent[p+"exec"]
		if exec == nil {
			t.Fatalf("the model was not sent %sexec", p)
		}
		if want := "Prefer the dedicated " + p + "read, " + p + "write, and " + p + "edit tools"; !strings.Contains(exec.Description, want) {
			t.Errorf("%sexec's description does not say %q:\n%s", p, want, exec.Description)
		}
	}
}

// Without prefixes the names collide: RefsFor and Define refuse the
// second set; Refs, which cannot see g, gives Generate tools it never
// runs: the model's read reads the defined set's workspace, as the
// package documentation says.
func TestCollidingNamesRefused(t *testing.T) {
	g := initGenkit(t)
	wsA, wsB := twoWorkspaces(t)
	_, opts := agentcase.Workspace(t)
	if _, err := agentgenkit.Define(g, wsA, opts); err != nil {
		t.Fatal(err)
	}
	setB, err := agentgenkit.New(wsB, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setB.RefsFor(g); err == nil || !strings.Contains(err.Error(), `"read"`) {
		t.Errorf("RefsFor with colliding names: %v, want an error naming read", err)
	}
	if _, err := agentgenkit.Define(g, wsB, opts); err == nil {
		t.Error("Define with colliding names succeeded")
	}
	model := generateWith(t, g, []agentcase.Call{{ID: "call_1", Tool: "read", Args: `{"path":"/workspace/who.txt"}`}}, setB.Refs())
	if r := model.results["call_1"]; r == nil || resultText(t, r) != "A" {
		t.Errorf("the model read %v; the documented collision reads workspace A", r)
	}
	// A set defined on another Genkit, checked against g: a collision
	// too; against its own g: its own tools.
	other := initGenkit(t)
	setC, err := agentgenkit.Define(other, wsB, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setC.RefsFor(g); err == nil {
		t.Error("RefsFor on a Genkit holding other tools of the names succeeded")
	}
	if refs, err := setC.RefsFor(other); err != nil || len(refs) != 8 {
		t.Errorf("RefsFor on the set's own Genkit: %d refs, %v", len(refs), err)
	}
}
