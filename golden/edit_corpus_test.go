package golden_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/replay"
	"github.com/agenttools/agenttools/toolspec"
)

// TestEditCorpus replays testdata/edit/corpus.jsonl: random files and
// edits recorded from the reference's own edit tool (corpus.mjs). Each
// must give the reference's result object, byte for byte, and write the
// same bytes or refuse the same way. The only difference allowed is our
// fuzzyMatch flag (deviation editFuzzyMatch), which must be there exactly
// when the reference matched by normalization.
func TestEditCorpus(t *testing.T) {
	f, err := os.Open("testdata/edit/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	n, fuzzy := 0, 0
	for sc.Scan() {
		n++
		var c struct {
			Content string                 `json:"content"`
			Edits   []toolspec.Replacement `json:"edits"`
			Result  json.RawMessage        `json:"result"`
			Written *string                `json:"written"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		content, _ := base64.StdEncoding.DecodeString(c.Content)
		ws := vfs.New(memfs.New(memfs.WithClock(func() time.Time { return time.UnixMilli(replay.FixedClock) })))
		if err := ws.WriteFile(t.Context(), "/workspace/f.txt", content, vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
		ex, err := core.New(ws, core.Options{})
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(toolspec.EditArgs{Path: "/workspace/f.txt", Edits: c.Edits})
		out, err := ex.Call(t.Context(), toolspec.ToolEdit, args)
		if err != nil {
			t.Fatal(err)
		}
		got := out.JSON
		if trimmed, ok := bytes.CutSuffix(got, []byte(`,"fuzzyMatch":true}`)); ok {
			got = append(trimmed, '}')
			fuzzy++
		}
		if !bytes.Equal(got, c.Result) {
			t.Errorf("case %d: edits %q on %q\nreference: %s\nours:      %s", n, c.Edits, content, c.Result, got)
			continue
		}
		r, _, err := ws.Open(t.Context(), "/workspace/f.txt", 0)
		if err != nil {
			t.Fatal(err)
		}
		var after bytes.Buffer
		_, _ = after.ReadFrom(r)
		r.Close()
		want := content
		if c.Written != nil {
			want, _ = base64.StdEncoding.DecodeString(*c.Written)
		}
		if !bytes.Equal(after.Bytes(), want) {
			t.Errorf("case %d: edits %q on %q\nreference wrote %q\nours:          %q", n, c.Edits, content, want, after.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 || fuzzy == 0 {
		t.Errorf("%d cases, %d fuzzy: the corpus went missing?", n, fuzzy)
	}
	t.Logf("%d cases, %d matched by normalization", n, fuzzy)
}
