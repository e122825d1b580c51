//go:build unix

package pgfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// The killed write: bigSize bytes in all, of which the helper's reader
// has yielded stallAfter when it says so and stops.
const (
	bigSize    = 32 << 20
	stallAfter = 8 << 20
	blockSize  = 64 << 10
)

func init() {
	roles["bigwrite"] = bigWriteRole
}

// bigWriteRole replaces workspace/big of the workspace of procURLEnv with
// bigSize bytes 'N' read from a stallingReader: it is killed while
// WriteFile waits for the rest.
func bigWriteRole() error {
	f, err := pgfs.Open(context.Background(), os.Getenv(procURLEnv))
	if err != nil {
		return err
	}
	defer f.Close()
	return f.WriteFile(context.Background(), "workspace/big", &stallingReader{}, 0o644)
}

// stallingReader yields bigSize bytes 'N' in blocks; once it has yielded
// stallAfter bytes it prints "stalled" on stdout and blocks until stdin
// ends, which the parent never closes before it kills the process.
type stallingReader struct {
	n       int
	stalled bool
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.n == stallAfter && !r.stalled {
		r.stalled = true
		fmt.Println("stalled")
		_, _ = io.Copy(io.Discard, os.Stdin)
	}
	if r.n == bigSize {
		return 0, io.EOF
	}
	end := bigSize
	if !r.stalled {
		end = stallAfter
	}
	n := copy(p, bytes.Repeat([]byte{'N'}, min(len(p), blockSize, end-r.n)))
	r.n += n
	return n, nil
}

// TestKillMidWrite kills (SIGKILL) a process in the middle of a 32 MiB
// WriteFile, its reader stalled after 8 MiB: meanwhile the workspace
// serves reads and other writes; afterwards the file holds its old
// content byte for byte at its old revision, no chunk of the dead write
// remains, and the file can be written again.
func TestKillMidWrite(t *testing.T) {
	db := pgtest.Database(t)
	f := open(t, db, "kill")
	ctx := t.Context()
	old := bytes.Repeat([]byte("the old content, line by line\n"), 3<<20/30)
	storetest.WriteFile(t, f, "workspace/big", old, 0o644)
	before, err := f.Lstat(ctx, "workspace/big")
	if err != nil {
		t.Fatal(err)
	}

	cmd, stdin, _, stderr := startRole(t, ctx, "bigwrite", []string{procURLEnv + "=" + withQuery(t, db, "workspace", "kill", "application_name", "agenttools-killed")}, "stalled")
	defer stdin.Close()
	conn := sqlConn(t, db)
	var state, query string
	var copied int64
	err = conn.QueryRow(ctx, `SELECT a.state, a.query, coalesce(p.bytes_processed, 0)
		FROM pg_stat_activity a LEFT JOIN pg_stat_progress_copy p ON p.pid = a.pid
		WHERE a.application_name = 'agenttools-killed' AND a.state <> 'idle'`).Scan(&state, &query, &copied)
	t.Logf("the writer's session before the kill: %s, %q, %d bytes copied (%v)", state, query, copied, err)

	// The write in progress holds nothing up: the old content reads, and
	// another file is written (a generous deadline against a hang).
	if got := storetest.ReadFile(t, f, "workspace/big", 0); !bytes.Equal(got, old) {
		t.Errorf("during the write big reads %d bytes, want the old %d", len(got), len(old))
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.WriteFile(wctx, "workspace/other", strings.NewReader("other"), 0o644); err != nil {
		t.Fatalf("a write during the large one: %v", err)
	}

	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the writer ended with %v, want killed\n%s", err, stderr)
	}

	if got := storetest.ReadFile(t, f, "workspace/big", 0); !bytes.Equal(got, old) {
		t.Fatalf("after the kill big reads %d bytes, want the old %d", len(got), len(old))
	}
	after, err := f.Lstat(ctx, "workspace/big")
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("after the kill big is %+v, before it %+v", after, before)
	}
	if n := count(t, conn, orphans); n != 0 {
		t.Errorf("%d chunks no node refers to after the kill, want 0", n)
	}

	// The store works: big is written again (through a new pool too).
	fresh := bytes.Repeat([]byte{'F'}, 5<<20+3)
	storetest.WriteFile(t, f, "workspace/big", fresh, 0o644)
	if got := storetest.ReadFile(t, open(t, db, "kill"), "workspace/big", 0); !bytes.Equal(got, fresh) {
		t.Errorf("written after the kill, big reads %d bytes, want %d", len(got), len(fresh))
	}
	if now, err := f.Lstat(ctx, "workspace/big"); err != nil || now.Rev <= before.Rev || now.Size != int64(len(fresh)) {
		t.Errorf("written after the kill, big is %+v, %v; before %+v", now, err, before)
	}
	if n := count(t, conn, orphans); n != 0 {
		t.Errorf("%d chunks no node refers to at the end, want 0", n)
	}
}
