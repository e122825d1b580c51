package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

func onEveryStore(t *testing.T, files map[string]string, test func(t *testing.T, ws *vfs.Workspace, ex *core.Executor)) {
	for _, s := range []testws.Store{testws.Memory, testws.HostDir, testws.SQLite} {
		t.Run(s.Name, func(t *testing.T) {
			ws := s.New(t)
			populate(t, ws, files)
			ex, err := core.New(ws, core.Options{})
			if err != nil {
				t.Fatal(err)
			}
			test(t, ws, ex)
		})
	}
}

func readString(t *testing.T, ws *vfs.Workspace, p string) string {
	t.Helper()
	var b strings.Builder
	r, _, err := ws.Open(t.Context(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 1<<16)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

// countdown is a context that reports itself cancelled from the n-th
// time its Err is asked on: a cancellation that arrives in the middle of
// a long call, at a point the test chooses by count, not by time.
type countdown struct {
	context.Context
	left atomic.Int64
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return c.Context.Err()
}

// An edit of thousands of entries over megabytes stops when its context
// ends while it matches, and writes nothing.
func TestEditCancelledWhileMatching(t *testing.T) {
	const entries = 2000
	var content strings.Builder
	var edits []string
	for i := range entries {
		fmt.Fprintf(&content, "line %05d %s\n", i, strings.Repeat("x", 800))
		edits = append(edits, fmt.Sprintf(`{"oldText":"line %05d ","newText":"LINE %05d "}`, i, i))
	}
	args := `{"path":"/workspace/big.txt","edits":[` + strings.Join(edits, ",") + `]}`
	onEveryStore(t, map[string]string{"/workspace/big.txt": content.String()}, func(t *testing.T, ws *vfs.Workspace, ex *core.Executor) {
		// The lookups before matching ask a few dozen times; matching
		// asks once per entry.
		ctx := &countdown{Context: t.Context()}
		ctx.left.Store(entries / 2)
		out, err := ex.Call(ctx, "edit", []byte(args))
		if err != context.Canceled {
			t.Errorf("edit whose context ended while matching: %v %.200s, want context.Canceled", err, out.JSON)
		}
		if ctx.left.Load() < -10 {
			t.Errorf("the edit went on for %d checks of its context after it ended", -ctx.left.Load())
		}
		if got := readString(t, ws, "/workspace/big.txt"); got != content.String() {
			t.Error("a cancelled edit changed the file")
		}
	})
}

// A path that names a regular file with a trailing "/" (or "/."): read,
// grep and delete use the file; ls and find say it is not a directory;
// write and edit fail with "path exists", as the reference's do (they
// make the path up to the last "/" as a directory first), on every store.
func TestTrailingSlashOnAFile(t *testing.T) {
	onEveryStore(t, map[string]string{"/workspace/f.txt": "hello\n"}, func(t *testing.T, ws *vfs.Workspace, ex *core.Executor) {
		for _, p := range []string{"/workspace/f.txt/", "/workspace/f.txt/."} {
			exists := `{"error":"` + toolspec.MsgPathExists("/workspace/f.txt") + `"}`
			for _, c := range []struct{ tool, args, want string }{
				{"read", `{"path":"` + p + `"}`, "hello"},
				{"ls", `{"path":"` + p + `"}`, `{"error":"` + toolspec.MsgNotDirectory("/workspace/f.txt") + `"}`},
				{"write", `{"path":"` + p + `","content":"x"}`, exists},
				{"edit", `{"path":"` + p + `","edits":[{"oldText":"hello","newText":"HELLO"}]}`, exists},
			} {
				out := call(t, ex, c.tool, c.args)
				if got := out.Text + string(out.JSON); got != c.want {
					t.Errorf("%s %s = %s, want %s", c.tool, c.args, got, c.want)
				}
			}
		}
		if got := readString(t, ws, "/workspace/f.txt"); got != "hello\n" {
			t.Errorf("after the refused calls f.txt holds %q", got)
		}
		call(t, ex, "delete", `{"path":"/workspace/f.txt/"}`)
		if _, err := ws.Lstat(t.Context(), "/workspace/f.txt"); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("delete of f.txt/ left f.txt: %v", err)
		}
	})
}

// An edit whose file another writer changes between the read and the
// write is matched again on the new content: both changes stay. When
// the file changes every time, the edit gives up with updateConflict
// and the other writer's last change stays.
func TestEditRematchesAChangedFile(t *testing.T) {
	onEveryStore(t, map[string]string{"/workspace/f.txt": "alpha\nbeta\n"}, func(t *testing.T, ws *vfs.Workspace, ex *core.Executor) {
		host := hostPathOf(t, ws, "/workspace/f.txt")
		behind := func(content string) {
			// Another writer: another process on a host directory (no
			// lock of ours), the store's own write elsewhere.
			if host != "" {
				if err := os.WriteFile(host, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err := ws.WriteFile(context.WithoutCancel(t.Context()), "/workspace/f.txt", []byte(content), vfs.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		calls := 0
		err := ws.Update(t.Context(), "/workspace/f.txt", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) {
			calls++
			if calls == 1 {
				behind("ALPHA\nbeta\n")
			}
			return []byte(strings.Replace(string(old), "beta", "BETA", 1)), nil
		})
		if err != nil || calls != 2 {
			t.Fatalf("Update over a change: %v after %d calls of fn, want success after 2", err, calls)
		}
		if got := readString(t, ws, "/workspace/f.txt"); got != "ALPHA\nBETA\n" {
			t.Errorf("after the re-matched update f.txt holds %q, want both changes", got)
		}
		calls = 0
		err = ws.Update(t.Context(), "/workspace/f.txt", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) {
			calls++
			behind(fmt.Sprintf("theirs %d\n", calls))
			return []byte("mine\n"), nil
		})
		want := toolspec.MsgUpdateConflict(vfs.UpdateAttempts, "/workspace/f.txt")
		if errno.CodeOf(err) != errno.EAGAIN || err.Error() != want || calls != vfs.UpdateAttempts {
			t.Errorf("Update of a file that keeps changing: %v after %d calls, want %q after %d", err, calls, want, vfs.UpdateAttempts)
		}
		if got := readString(t, ws, "/workspace/f.txt"); got != fmt.Sprintf("theirs %d\n", calls) {
			t.Errorf("after the refused update f.txt holds %q, want the other writer's last change", got)
		}
	})
}

// hostPathOf is the host file behind a workspace path on a host
// directory, or "".
func hostPathOf(t *testing.T, ws *vfs.Workspace, p string) string {
	dir, err := ws.HostPath(t.Context(), filepath.Dir(p))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(p))
}
