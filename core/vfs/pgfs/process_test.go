package pgfs_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/internal/testws"
)

// In a helper process, procURLEnv is the URL of the workspace it opens
// and procIDEnv its name.
const (
	procURLEnv = "PGFS_TEST_URL"
	procIDEnv  = "PGFS_TEST_ID"
)

// The cross-process test: appenders processes, each making appends
// Updates of one file.
const (
	appenders = 4
	appends   = 50
)

// logName is the file the appenders share.
const logName = "workspace/log"

func init() {
	roles["append"] = appendRole
}

// appendRole opens the workspace of procURLEnv (a pool of its own), looks
// at logName, says "ready" and waits for a line on stdin, so that all start together; then
// appends appends lines "ID NN" to logName, each with one Update, tried
// again after EAGAIN. It ends with a line "retried N", the EAGAINs it
// met.
func appendRole() error {
	ctx := context.Background()
	f, err := pgfs.Open(ctx, os.Getenv(procURLEnv))
	if err != nil {
		return err
	}
	defer f.Close()
	// A first use connects the pool, which the parent then sees.
	if _, err := f.Lstat(ctx, logName); err != nil {
		return err
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	id, retried := os.Getenv(procIDEnv), 0
	for i := range appends {
		line := fmt.Sprintf("%s %02d\n", id, i)
		for {
			err := f.Update(ctx, logName, 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) {
				return slices.Concat(old, []byte(line)), nil
			})
			if errno.CodeOf(err) != errno.EAGAIN {
				if err != nil {
					return err
				}
				break
			}
			retried++
		}
	}
	fmt.Println("retried", retried)
	return nil
}

// withQuery returns the URL u with the query parameters kv (name, value,
// name, value, ...) set.
func withQuery(t testing.TB, u string, kv ...string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	p.RawQuery = q.Encode()
	return p.String()
}

// orphans counts the chunk rows no node refers to.
const orphans = `SELECT count(*) FROM agenttools.chunk c
	WHERE NOT EXISTS (SELECT 1 FROM agenttools.node n WHERE n.cid = c.cid)`

// startRole starts this test binary as a helper playing role with env
// added, and waits for its first line, which must be want. The helper is
// killed when ctx ends. It returns the helper, its stdin, the rest of its
// stdout and its stderr.
func startRole(t *testing.T, ctx context.Context, role string, env []string, want string) (*exec.Cmd, io.WriteCloser, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	stderr := &bytes.Buffer{}
	cmd, stdin, stdout := testws.StartSelf(t, ctx, append(env, helperEnv+"="+role), stderr)
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); line != want+"\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s said %q, %v, want %q\n%s", role, line, err, want, stderr)
	}
	return cmd, stdin, out, stderr
}

// TestAppendsFromFourProcesses runs appenders processes at once, each
// with a pool of its own, half of them through one pool configuration
// and half through another (two "nodes" of a service), each appending
// appends lines to one file with Update: no line is lost or doubled,
// each process's lines keep their order, and the file is whole (its
// size, its revision, its chunks).
func TestAppendsFromFourProcesses(t *testing.T) {
	db := pgtest.Database(t)
	nodes := []string{
		withQuery(t, db, "workspace", "shared", "pool_max_conns", "2", "application_name", "agenttools-node-a"),
		withQuery(t, db, "workspace", "shared", "pool_max_conns", "8", "application_name", "agenttools-node-b"),
	}
	f := open(t, db, "shared")
	storetest.WriteFile(t, f, logName, nil, 0o644)

	// A generous deadline against a hang: the helpers are killed then.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	type helper struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr *bytes.Buffer
	}
	var helpers []helper
	for i := range appenders {
		env := []string{procURLEnv + "=" + nodes[i%2], procIDEnv + "=" + strconv.Itoa(i)}
		cmd, stdin, stdout, stderr := startRole(t, ctx, "append", env, "ready")
		helpers = append(helpers, helper{cmd, stdin, stdout, stderr})
	}
	// Both nodes are connected, each under its own name.
	conn := sqlConn(t, db)
	rows, err := conn.Query(ctx, `SELECT DISTINCT application_name FROM pg_stat_activity
		WHERE datname = current_database() AND application_name LIKE 'agenttools-node-%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	apps, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"agenttools-node-a", "agenttools-node-b"}; !slices.Equal(apps, want) {
		t.Errorf("connections of the helpers: %q, want %q", apps, want)
	}
	for _, h := range helpers {
		if _, err := io.WriteString(h.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
		h.stdin.Close()
	}
	for i, h := range helpers {
		rest, _ := io.ReadAll(h.stdout)
		if err := h.cmd.Wait(); err != nil {
			t.Fatalf("helper %d: %v\n%s", i, err, h.stderr)
		}
		t.Logf("helper %d (node %c): %s", i, 'a'+i%2, strings.TrimSpace(string(rest)))
	}

	data := storetest.ReadFile(t, f, logName, 0)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != appenders*appends {
		t.Errorf("the log has %d lines, want %d", len(lines), appenders*appends)
	}
	next := map[string]int{}
	switches := 0
	for i, line := range lines {
		id, n, _ := strings.Cut(line, " ")
		if want := fmt.Sprintf("%02d", next[id]); n != want {
			t.Fatalf("line %d is %q where helper %s's %s was due", i+1, line, id, want)
		}
		next[id]++
		if i > 0 && !strings.HasPrefix(lines[i-1], id+" ") {
			switches++
		}
	}
	t.Logf("the log switches from one process to another %d times", switches)
	for i := range appenders {
		if got := next[strconv.Itoa(i)]; got != appends {
			t.Errorf("helper %d's lines: %d, want %d", i, got, appends)
		}
	}

	// The file is whole: its node tells its size, the last change of the
	// workspace is its last append, a new pool reads the same bytes, and
	// no chunk is left of the contents it replaced.
	info, err := f.Lstat(ctx, logName)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != int64(len(data)) {
		t.Errorf("the log's size is %d, its content %d bytes", info.Size, len(data))
	}
	list, err := pgfs.Workspaces(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "shared" || list[0].Rev != info.Rev {
		t.Errorf("workspaces %+v, want shared at the log's rev %d", list, info.Rev)
	}
	if got := storetest.ReadFile(t, open(t, db, "shared"), logName, 0); !bytes.Equal(got, data) {
		t.Errorf("a new pool reads %d bytes of the log, the first %d", len(got), len(data))
	}
	if n := count(t, conn, orphans); n != 0 {
		t.Errorf("%d chunks no node refers to, want 0", n)
	}
}
