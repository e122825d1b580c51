package langchaingo_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/agents"

	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/internal/goldentest"
)

// promptText is the text of the messages of an OpenAI chat request.
func promptText(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range req.Messages {
		var text string
		if err := json.Unmarshal(m.Content, &text); err != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				t.Fatalf("message content %s", m.Content)
			}
			for _, p := range parts {
				text += p.Text
			}
		}
		b.WriteString(text)
	}
	return b.String()
}

// argumentsUpdate is the command that rewrites golden/testdata/arguments.txtar
// (golden's TestArgumentList).
const argumentsUpdate = "go test ./golden -run '^TestArgumentList$' -update"

// A one-shot (MRKL) agent shows the model only each tool's name and
// description. With TextAgentTools the prompt names every argument of
// every tool, and the JSON the model writes as its Action Input, as
// those lines describe it, reaches the tools and works: the model reads
// the notes, then edits them.
func TestOneShotAgentSeesArguments(t *testing.T) {
	const edit = `{"path":"/workspace/notes.txt","edits":[{"oldText":"status: draft","newText":"status: final"}]}`
	api := serveAPI(t,
		openAIText("Thought: I should read the notes first.\nAction: read\nAction Input: "+agentcase.ReadArgs),
		openAIText("Thought: The status must become final.\nAction: edit\nAction Input: "+edit),
		openAIText("Thought: I now know the final answer\nFinal Answer: the notes are final"))
	set := newSet(t)
	agent := agents.NewOneShotAgent(openAIModel(t, api), set.TextAgentTools())
	runExecutor(t, agent, "Mark the notes final.", "the notes are final")
	if len(api.bodies) != 3 {
		t.Fatalf("the API received %d requests, want 3", len(api.bodies))
	}

	// The descriptions are the ones golden/testdata/arguments.txtar pins
	// (the session's exec runs on one backend, "fast shell").
	pinned := goldentest.Load(t, filepath.Join(goldentest.ModuleRoot(t), "golden", "testdata", "arguments.txtar"))
	prompt := promptText(t, api.bodies[0])
	for _, tool := range set.TextAgentTools() {
		section := tool.Name()
		if section == "exec" {
			section = "exec fast shell"
		}
		if want, _ := pinned.Section(section); tool.Description() != want {
			t.Errorf("%s's description (-want +got, golden/testdata/arguments.txtar %s):\n%s\nthe golden is written by: %s",
				tool.Name(), section, goldentest.Diff(want, tool.Description()), argumentsUpdate)
		}
		if !strings.Contains(prompt, "- "+tool.Name()+": "+tool.Description()+"\n") {
			t.Errorf("the prompt does not hold %s's description with its arguments:\n%s", tool.Name(), tool.Description())
		}
	}
	for _, line := range []string{
		"  - path (string, required): Path to the file to read\n",
		"  - edits (array of object, required): ",
		"  - edits[].oldText (string, required): ",
		"  - command (string, required): ",
	} {
		if !strings.Contains(prompt, line) {
			t.Errorf("the prompt does not name the argument %q:\n%s", line, prompt)
		}
	}

	read, _ := set.Read()
	notes, err := read.Call(t.Context(), agentcase.ReadArgs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes, "status: final") {
		t.Errorf("the edit did not reach the workspace: %q", notes)
	}
	if second := promptText(t, api.bodies[1]); !strings.Contains(second, "Observation: # Notes\nstatus: draft\n") {
		t.Errorf("the model did not see read's result:\n%s", second)
	}
	if third := promptText(t, api.bodies[2]); !strings.Contains(third, `Observation: {"path":"/workspace/notes.txt","editsApplied":1`) {
		t.Errorf("the model did not see edit's result:\n%s", third)
	}
}
