package raw_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/agentcase"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// overlay is the run-time override the tests apply: grep's description,
// read's default line cap, read's path description, no exec.
var overlay = toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
	"grep": {Description: ptr("Search file contents; results give paths and line numbers.")},
	"read": {Limits: map[string]int64{"maxLines": 500}, Params: map[string]string{"path": "Absolute path of the file"}},
	"exec": {Offered: ptr(false)},
}}

func ptr[T any](v T) *T { return &v }

func definitions(t *testing.T, ws *vfs.Workspace, opts agenttools.Options) []raw.Definition {
	t.Helper()
	tools, err := raw.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tools.Definitions()
}

// expectOverlay is what the overlay makes of the definitions of a set
// without it (names with the set's prefix): grep's description and read's
// replaced, the one string of read's path description changed in its
// schema, exec left out; nothing else.
func expectOverlay(t *testing.T, base []raw.Definition, prefix string, maxLines int64) []raw.Definition {
	t.Helper()
	var want []raw.Definition
	for _, d := range base {
		switch d.Name {
		case prefix + "exec":
			continue
		case prefix + "grep":
			d.Description = "Search file contents; results give paths and line numbers."
		case prefix + "read":
			d.Description = toolspec.ReadDescription(maxLines, toolspec.ReadMaxBytesDefault)
			old := `"path":{"type":"string","description":"Path to the file to read"}`
			if !strings.Contains(string(d.InputSchema), old) {
				t.Fatalf("read's schema has no %s: %s", old, d.InputSchema)
			}
			d.InputSchema = json.RawMessage(strings.Replace(string(d.InputSchema), old, `"path":{"type":"string","description":"Absolute path of the file"}`, 1))
		}
		want = append(want, d)
	}
	return want
}

// sameBytes compares definitions byte for byte, as the model gets them.
func sameBytes(t *testing.T, got, want []raw.Definition) {
	t.Helper()
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	if string(g) != string(w) {
		t.Errorf("definitions with the overlay:\n%s\nwant (the set without it, changed only where the overlay says):\n%s", g, w)
	}
}

// Through raw's definitions, a run-time overlay changes what it says and
// nothing else: grep's and read's descriptions (read's line cap 500),
// read's path description, exec withheld; every other byte (the other
// descriptions, every schema, the output schemas, the order) is the set's
// without the overlay. Unprefixed and with a prefix.
func TestOverlayDefinitions(t *testing.T) {
	s, err := toolspec.Ours().With(overlay)
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"", "ws_"} {
		t.Run("prefix "+prefix, func(t *testing.T) {
			ws, opts := agentcase.Workspace(t)
			opts.Prefix = prefix
			base := definitions(t, ws, opts)
			if len(base) != 9 {
				t.Fatalf("the set without the overlay has %d tools, want 9", len(base))
			}
			opts.Surface = s
			sameBytes(t, definitions(t, ws, opts), expectOverlay(t, base, prefix, 500))
		})
	}
}

// With the overlay read's default line cap is 500: a read of a 600-line
// file returns lines 1 to 500 with the continuation, and the model is
// told 500. An explicit Read.MaxLines still wins over the overlay's
// default, in the description as in the read.
func TestOverlayReadLimit(t *testing.T) {
	s, err := toolspec.Ours().With(overlay)
	if err != nil {
		t.Fatal(err)
	}
	var file strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&file, "line %d\n", i)
	}
	for _, tc := range []struct {
		name     string
		option   int64
		maxLines int64
	}{{"overlay's default", 0, 500}, {"explicit option", 300, 300}} {
		t.Run(tc.name, func(t *testing.T) {
			ws, opts := agentcase.Workspace(t)
			if err := ws.WriteFile(t.Context(), "/workspace/long.txt", []byte(file.String()), vfs.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			base := definitions(t, ws, opts)
			opts.Surface = s
			opts.Read.MaxLines = tc.option
			tools, err := raw.New(ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			sameBytes(t, tools.Definitions(), expectOverlay(t, base, "", tc.maxLines))
			out, err := tools.Execute(t.Context(), "read", []byte(`{"path":"/workspace/long.txt"}`))
			if err != nil {
				t.Fatal(err)
			}
			var got toolspec.ReadResult
			if err := json.Unmarshal(raw.Value(out), &got); err != nil {
				t.Fatalf("read: %s: %v", raw.Value(out), err)
			}
			lines := strings.SplitAfter(file.String(), "\n")
			want := strings.TrimSuffix(strings.Join(lines[:tc.maxLines], ""), "\n")
			if got.Content != want || got.StartLine != 1 || got.EndLine != tc.maxLines || !got.Truncated ||
				got.NextOffset == nil || *got.NextOffset != tc.maxLines+1 || got.NextByteOffset == nil || *got.NextByteOffset != int64(len(want)+1) {
				t.Errorf("read gave %s; want lines 1 to %d with nextOffset %d", raw.Value(out), tc.maxLines, tc.maxLines+1)
			}
		})
	}
}
