package backend_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino/backend"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// writerEnv, set in a copy of this test binary, makes it an edit_file
// writer on a shared SQLite workspace instead of running the tests:
// "DB K EDITS".
const writerEnv = "AGENTTOOLS_EINO_BACKEND_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(writerEnv); spec != "" {
		if err := runWriter(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runWriter makes writer K's EDITS chained edits of its own line through
// a Backend over its own connection to the database, each acknowledged
// (Edit returned nil) before the next.
func runWriter(spec string) error {
	f := strings.Fields(spec)
	if len(f) != 3 {
		return fmt.Errorf("writer spec %q", spec)
	}
	k, err1 := strconv.Atoi(f[1])
	edits, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("writer spec %q", spec)
	}
	db, err := sqlitefs.Open(f[0])
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := backend.New(vfs.New(db), agenttools.Options{})
	if err != nil {
		return err
	}
	ctx := context.Background()
	for n := range edits {
		for {
			err := b.Edit(ctx, &filesystem.EditRequest{FilePath: crossFile, OldString: counter(k, n), NewString: counter(k, n+1)})
			if errno.CodeOf(err) == errno.EAGAIN {
				continue // the file kept changing: match again
			}
			if err != nil {
				return fmt.Errorf("writer %d, edit %d: %w", k, n, err)
			}
			break
		}
	}
	return nil
}

const crossFile = "/workspace/counters.txt"

// TestConcurrentEditsAcrossProcesses: the README's promise for SQLite
// workspaces shared by processes. Four processes, each with its own
// connection and Backend, make 25 chained edits each to their own line of
// one file at once; every acknowledged edit is in the file at the end.
func TestConcurrentEditsAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 4 processes")
	}
	const writers, edits = 4, 25
	dbPath := filepath.Join(t.TempDir(), "ws.db")
	db, err := sqlitefs.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := mustNew(t, vfs.New(db), agenttools.Options{})
	var initial, want strings.Builder
	for k := range writers {
		initial.WriteString(counter(k, 0) + "--\n")
		want.WriteString(counter(k, edits) + "--\n")
	}
	if err := b.Write(t.Context(), &filesystem.WriteRequest{FilePath: crossFile, Content: initial.String()}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for k := range writers {
		cmd := osexec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", writerEnv, dbPath, k, edits))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("writer %d: %v\n%s", k, err, out)
			}
		})
	}
	wg.Wait()
	if got := raw(t, b, crossFile); got != want.String() {
		t.Errorf("after %d processes' edits:\n%s\nwant\n%s", writers, got, want.String())
	}
}
