package core_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// deniedStore refuses to open or list the names in deny, as a host does
// for a file or directory the process may not read.
type deniedStore struct {
	vfs.Store
	deny map[string]bool
}

func (d deniedStore) Open(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	if d.deny[name] {
		return nil, errno.New(errno.EACCES, "permission denied", name)
	}
	return d.Store.Open(ctx, name, off)
}

func (d deniedStore) ReadDir(ctx context.Context, name string, off, limit int) ([]vfs.Info, error) {
	if d.deny[name] {
		return nil, errno.New(errno.EACCES, "permission denied", name)
	}
	return d.Store.ReadDir(ctx, name, off, limit)
}

// TestSearchPassesOverUnreadable checks that one file or directory the
// host will not read does not fail a whole find or grep, while naming it
// directly still fails clearly.
func TestSearchPassesOverUnreadable(t *testing.T) {
	mem := memfs.New()
	ws := vfs.New(deniedStore{mem, map[string]bool{"workspace/secret.txt": true, "workspace/locked": true}})
	for p, content := range map[string]string{
		"/workspace/a.txt":          "TODO one\n",
		"/workspace/secret.txt":     "TODO hidden\n",
		"/workspace/locked/b.txt":   "TODO locked\n",
		"/workspace/open/c.txt":     "TODO three\n",
		"/workspace/open/deeper.md": "nothing\n",
	} {
		if err := ws.WriteFile(t.Context(), p, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	call := func(tool, args string) toolspec.Output {
		out, err := ex.Call(t.Context(), tool, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	grep := call("grep", `{"query":"TODO"}`)
	if grep.IsError() || !strings.Contains(string(grep.JSON), "/workspace/a.txt") || !strings.Contains(string(grep.JSON), "/workspace/open/c.txt") {
		t.Errorf("grep over a tree with unreadable entries: %s", grep.JSON)
	}
	if strings.Contains(string(grep.JSON), "hidden") || strings.Contains(string(grep.JSON), "locked") {
		t.Errorf("grep read what the host refused: %s", grep.JSON)
	}
	find := call("find", `{"pattern":"**"}`)
	if find.IsError() || !strings.Contains(string(find.JSON), `"/workspace/locked","type":"dir"`) || strings.Contains(string(find.JSON), "b.txt") {
		t.Errorf("find over a tree with an unreadable directory: %s", find.JSON)
	}
	if out := call("ls", `{"path":"/workspace/locked"}`); !out.IsError() || !strings.Contains(string(out.JSON), "permission denied") {
		t.Errorf("ls of the unreadable directory itself: %s", out.JSON)
	}
	if out := call("read", `{"path":"/workspace/secret.txt"}`); out.Kind != toolspec.OutputErrorText || !strings.Contains(out.Text, "permission denied") {
		t.Errorf("read of the unreadable file itself: %+v", out)
	}
}
