package raw_test

import (
	"strings"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// TestNewDatabase runs the tools on a new database made as the README
// shows it (sqlitefs.Open, then vfs.New): it has /workspace, where find
// and grep look by default, as the command's databases have it. An
// in-memory root stays as the reference's empty workspace: "/" alone.
func TestNewDatabase(t *testing.T) {
	t.Chdir(t.TempDir())
	db, err := sqlitefs.Open("user.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws := vfs.New(db)
	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct{ tool, args, want string }{
		{"ls", `{"path":"/workspace"}`, `"entries":[]`},
		{"find", `{"pattern":"*"}`, `"entries":[]`},
		{"grep", `{"query":"hello"}`, `"matches":[]`},
		{"write", `{"path":"/workspace/a.txt","content":"hello\n"}`, `"path":"/workspace/a.txt"`},
		{"grep", `{"query":"hello"}`, `"path":"/workspace/a.txt"`},
	}
	for _, c := range calls {
		out, err := tools.Execute(t.Context(), c.tool, []byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		got := string(raw.Value(out))
		if out.IsError() || !strings.Contains(got, c.want) {
			t.Errorf("%s %s on a new database: %s, want a result with %s", c.tool, c.args, got, c.want)
		}
	}

	mem, err := raw.New(vfs.New(memfs.New()), agenttools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := mem.Execute(t.Context(), "find", []byte(`{"pattern":"*"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw.Value(out)), "no such path: /workspace"; !out.IsError() || !strings.Contains(got, want) {
		t.Errorf("find on an empty in-memory workspace: %s, want the reference's %q", got, want)
	}
}
