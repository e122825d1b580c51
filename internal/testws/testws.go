// Package testws builds workspaces for tests: an in-memory root with
// host directories mounted in it, and a fresh workspace on each kind of
// store. Only tests import it.
package testws

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// Host returns a workspace whose "/" is in memory and whose /workspace
// is the host directory dir (a fresh temporary directory when dir is
// ""), and that directory with symbolic links resolved, as a process
// running in it sees it.
func Host(tb testing.TB, dir string) (*vfs.Workspace, string) {
	tb.Helper()
	ws := vfs.New(memfs.New())
	return ws, MountHost(tb, ws, "/workspace", dir)
}

// MountHost mounts the host directory dir (a fresh temporary directory
// when dir is "") on ws at path at, closes it when the test ends, and
// returns it with symbolic links resolved.
func MountHost(tb testing.TB, ws *vfs.Workspace, at, dir string) string {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	host, err := hostfs.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { host.Close() })
	if err := ws.Mount(tb.Context(), at, host, vfs.MountOptions{}); err != nil {
		tb.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return resolved
}

// PublicDir makes a new directory every user can enter and read, and
// only this one write (a test's temporary directory and its parents are
// private), removed when the test ends.
func PublicDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "agenttools-public")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// PIDFIFO makes a FIFO at path for a command to write its pid into
// (`echo $$ > path`) and returns a function that waits until it does,
// without polling, and returns the pid. The wait fails the test after a
// generous minute.
func PIDFIFO(tb testing.TB, path string) func() int {
	tb.Helper()
	if err := Mkfifo(path, 0o600); err != nil {
		tb.Fatal(err)
	}
	written := make(chan string, 1)
	go func() {
		data, _ := os.ReadFile(path)
		written <- string(data)
	}()
	return func() int {
		tb.Helper()
		select {
		case data := <-written:
			pid, err := strconv.Atoi(strings.TrimSpace(data))
			if err != nil {
				tb.Fatalf("the pid the command wrote: %q", data)
			}
			return pid
		case <-time.After(time.Minute):
			tb.Fatal("the command did not start within a minute")
			return 0
		}
	}
}

// Store is one kind of store a test runs on: New returns a workspace
// whose "/" (and /workspace) is on a fresh store of that kind, closed
// when the test ends.
type Store struct {
	Name string
	New  func(tb testing.TB) *vfs.Workspace
}

// The stores.
var (
	Memory = Store{"memfs", func(testing.TB) *vfs.Workspace { return vfs.New(memfs.New()) }}
	// HostDir is memory with a host directory at /workspace.
	HostDir = Store{"hostfs", func(tb testing.TB) *vfs.Workspace {
		ws, _ := Host(tb, "")
		return ws
	}}
	SQLite = Store{"sqlitefs", func(tb testing.TB) *vfs.Workspace {
		db, err := sqlitefs.Open(filepath.Join(tb.TempDir(), "ws.db"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return vfs.New(db)
	}}
)
