package core_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// The case, end to end on one SQLite workspace: exec runs a
// command in the mirror; while it runs, another tool set (another
// handle on the database, as another process has) edits the same file
// and reports success; when the command ends, that edit is still there.
// A change of another line merges; a change of the same line keeps the
// edit, and the command's version is saved and named on stderr. On the
// host backend and in the sandbox.
func TestExecKeepsAnEditMadeWhileItRuns(t *testing.T) {
	testws.ForEachBackend(t, testExecKeepsAnEditMadeWhileItRuns)
}

func testExecKeepsAnEditMadeWhileItRuns(t *testing.T, b testws.Backend) {
	const hang = 20 * time.Second
	cases := []struct {
		name, oldText, newText string
		want, saved, stderr    string
	}{
		{name: "other line", oldText: "beta", newText: "BETA", want: "ALPHA\nBETA\n"},
		{name: "same line", oldText: "alpha", newText: "alpha2", want: "alpha2\nbeta\n", saved: "ALPHA\nbeta\n",
			stderr: noteAlone(toolspec.MsgExecMirrorConflicts(toolspec.MsgExecMirrorConflictSaved("/workspace/f.txt", "/.computer/conflicts/exec-1/f.txt")))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "ws.db")
			open := func() *vfs.Workspace {
				store, err := sqlitefs.Open(db)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { store.Close() })
				return vfs.New(store)
			}
			ws1, ws2 := open(), open()
			// The FIFOs the command and the test meet at, bound read-only
			// in the sandbox at their own path.
			fifos := testws.PublicDir(t)
			opts := b.Options(execbackend.HostOptions{})
			if b.Sandbox {
				opts.Sandbox.ReadOnly = []string{fifos}
			}
			mirror, err := execbackend.NewMirror(ws1, execbackend.MirrorOptions{HostOptions: opts, Mirror: filepath.Join(dir, "mirror")})
			if err != nil {
				t.Fatal(err)
			}
			runner, err := core.New(ws1, core.Options{Backends: []execbackend.Backend{mirror}})
			if err != nil {
				t.Fatal(err)
			}
			editor, err := core.New(ws2, core.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if out := call(t, editor, "write", `{"path":"/workspace/f.txt","content":"alpha\nbeta\n"}`); out.IsError() {
				t.Fatal(string(out.JSON))
			}

			// The command says it runs (its copy is made), then waits for
			// the edit.
			ready, goOn := filepath.Join(fifos, "ready"), filepath.Join(fifos, "go")
			for _, f := range []string{ready, goOn} {
				if err := testws.Mkfifo(f, 0o600); err != nil {
					t.Fatal(err)
				}
				b.Give(t, f)
			}
			command, _ := json.Marshal("echo > " + ready + "; read -r _ < " + goOn + "; sed -i s/alpha/ALPHA/ f.txt")
			done := make(chan toolspec.Output, 1)
			go func() {
				out, err := runner.Call(t.Context(), "exec", []byte(`{"command":`+string(command)+`}`))
				if err != nil {
					t.Error(err)
				}
				done <- out
			}()
			started := make(chan struct{})
			go func() {
				if data, err := os.ReadFile(ready); err == nil && len(data) > 0 {
					close(started)
				}
			}()
			select {
			case <-started:
			case out := <-done:
				t.Fatalf("exec ended before the edit: %s", out.JSON)
			case <-time.After(hang):
				t.Fatal("the command did not start")
			}

			edit := `{"path":"/workspace/f.txt","edits":[{"oldText":"` + c.oldText + `","newText":"` + c.newText + `"}]}`
			if out := call(t, editor, "edit", edit); out.IsError() {
				t.Fatalf("edit: %s", out.JSON)
			}
			w, err := os.OpenFile(goOn, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.WriteString("go\n"); err != nil {
				t.Fatal(err)
			}
			var out toolspec.Output
			select {
			case out = <-done:
			case <-time.After(hang):
				t.Fatal("exec did not end")
			}
			var res struct {
				ExitCode int    `json:"exitCode"`
				Stderr   string `json:"stderr"`
			}
			if err := json.Unmarshal(out.JSON, &res); err != nil || res.ExitCode != 0 || res.Stderr != c.stderr {
				t.Errorf("exec: %s, want stderr %q", out.JSON, c.stderr)
			}
			content := func(p string) string {
				r, _, err := ws2.Open(t.Context(), p, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				data, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
			if got := content("/workspace/f.txt"); got != c.want {
				t.Errorf("f.txt: %q, want %q", got, c.want)
			}
			if c.saved != "" {
				if got := content("/.computer/conflicts/exec-1/f.txt"); got != c.saved {
					t.Errorf("the command's version: %q, want %q", got, c.saved)
				}
			}
		})
	}
}

// noteAlone is a note of the mirror as it reads when the command wrote
// nothing on stderr: without the blank line that sets it off.
func noteAlone(note string) string { return strings.TrimLeft(note, "\n") }
