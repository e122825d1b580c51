package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/toolspec"
)

// agenttools mcp --approve mutating asks a client that declared
// elicitation before each write (elicitation/create with the spec's
// question): the write the user accepts runs, the one declined does not
// and answers the refusal. A client without elicitation gets the refusal
// without a question.
func TestMCPApprove(t *testing.T) {
	dir := hostDir(t)
	refusal := string(toolspec.ResultOutput(toolspec.ErrorResult{Error: toolspec.MsgApprovalRefused("write")}).JSON)
	s := startRawWith(t, `{"elicitation":{}}`, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--approve", "mutating")
	for _, c := range []struct {
		file, answer string
		approved     bool
	}{
		{"yes.txt", `{"action":"accept","content":{"approve":true}}`, true},
		{"no.txt", `{"action":"decline"}`, false},
	} {
		args := `{"path":"/workspace/` + c.file + `","content":"x"}`
		var ask struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		}
		line := s.line("tools/call", []byte(`{"name":"write","arguments":`+args+`}`))
		if err := json.Unmarshal([]byte(line), &ask); err != nil || ask.Method != "elicitation/create" || len(ask.ID) == 0 {
			t.Fatalf("write %s: the server sent %s, want an elicitation/create request", c.file, line)
		}
		if want := toolspec.MsgApprovalQuestion("write", args); ask.Params.Message != want {
			t.Errorf("question %q, want %q", ask.Params.Message, want)
		}
		s.write([]byte(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + c.answer + `}`))
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s.read("tools/call")), &m); err != nil {
			t.Fatal(err)
		}
		text, isError := toolText(t, m)
		_, statErr := os.Stat(filepath.Join(dir, c.file))
		if c.approved != (statErr == nil) || c.approved == isError || !c.approved && text != refusal {
			t.Errorf("write %s answered %s: %q (error %v), file written %v", c.file, c.answer, text, isError, statErr == nil)
		}
	}

	s = startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--approve", "write")
	text, isError := toolText(t, s.request("tools/call", []byte(`{"name":"write","arguments":{"path":"/workspace/never.txt","content":"x"}}`)))
	if _, err := os.Stat(filepath.Join(dir, "never.txt")); err == nil || !isError || text != refusal {
		t.Errorf("write without elicitation: %q (error %v), stat %v", text, isError, err)
	}
}
