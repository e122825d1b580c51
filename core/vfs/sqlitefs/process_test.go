package sqlitefs_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
)

// The test binary re-executes itself as a helper process when helperEnv
// names a role; helperDB is the database and helperID the helper's
// number.
const (
	helperEnv = "SQLITEFS_TEST_HELPER"
	helperDB  = "SQLITEFS_TEST_DB"
	helperID  = "SQLITEFS_TEST_ID"
)

// Rounds of the cross-process test, per process.
const (
	processes = 4
	rounds    = 50
)

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		if err := helper(role, os.Getenv(helperDB), os.Getenv(helperID)); err != nil {
			fmt.Fprintf(os.Stderr, "helper %s: %v\n", role, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(role, path, id string) error {
	if role == "reader" {
		return readerHelper(path, id)
	}
	ctx := context.Background()
	s, err := sqlitefs.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	switch role {
	case "update":
		// All helpers start together: each says it is ready and waits
		// for a line on stdin.
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return err
		}
		for i := range rounds {
			if err := increment(ctx, s, "counter"); err != nil {
				return err
			}
			line := fmt.Sprintf("%s %02d\n", id, i)
			if err := untilWritten(func() error {
				return s.Update(ctx, "log", 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, line...), nil })
			}); err != nil {
				return err
			}
		}
		return nil
	case "write":
		// Writes b, then says so and waits for a line on stdin (or its
		// end) before it writes c and closes.
		if err := s.WriteFile(ctx, "b", strings.NewReader("b"), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil && err != io.EOF {
			return err
		}
		return s.WriteFile(ctx, "c", strings.NewReader("c"), 0o644)
	case "slowwrite":
		// Streams 64 KiB blocks; once 32 are stored (two batches, the
		// second once the 33rd block follows it), says so on stdout and
		// blocks until it is killed.
		return s.WriteFile(ctx, "big", &slowReader{readyAfter: 33}, 0o644)
	}
	return fmt.Errorf("unknown role %q", role)
}

// readerHelper opens the database at path (read-only on request when
// id is "ro") and answers one line of stdout for each line of stdin:
//
//	info        readonly true|false
//	read NAME   ok CONTENT or err CODE MESSAGE (quoted)
//	write NAME  ok or err CODE MESSAGE: writes "x"
//	mkdir NAME  ok or err CODE MESSAGE
//	rm NAME     ok or err CODE MESSAGE: removes a file or empty directory
//	ls NAME     ok NAME,NAME,... or err CODE MESSAGE
//
// When Open fails it prints "open-err MESSAGE" and exits.
func readerHelper(path, id string) error {
	ctx := context.Background()
	var opts []sqlitefs.Option
	if id == "ro" {
		opts = append(opts, sqlitefs.ReadOnly())
	}
	s, err := sqlitefs.Open(path, opts...)
	if err != nil {
		fmt.Printf("open-err %q\n", err.Error())
		return nil
	}
	defer s.Close()
	answer := func(out string, err error) {
		if err != nil {
			fmt.Printf("err %s %q\n", errno.CodeOf(err), err.Error())
			return
		}
		fmt.Println("ok " + out)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, name, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "info":
			fmt.Println("readonly", s.ReadOnly())
		case "read":
			r, err := s.Open(ctx, name, 0)
			var b []byte
			if err == nil {
				b, err = io.ReadAll(r)
				r.Close()
			}
			answer(strconv.Quote(string(b)), err)
		case "write":
			answer("", s.WriteFile(ctx, name, strings.NewReader("x"), 0o644))
		case "mkdir":
			answer("", s.Mkdir(ctx, name, 0o755))
		case "rm":
			answer("", s.Remove(ctx, name))
		case "ls":
			entries, err := s.ReadDir(ctx, name, 0, -1)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name)
			}
			answer(strings.Join(names, ","), err)
		default:
			return fmt.Errorf("unknown command %q", cmd)
		}
	}
	return in.Err()
}

// slowReader yields 64 KiB blocks of 'N'; at block readyAfter it prints
// "ready" and blocks reading stdin, which the parent never writes.
type slowReader struct {
	n, readyAfter int
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.n == r.readyAfter {
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0, io.ErrUnexpectedEOF
	}
	r.n++
	return copy(p, bytes.Repeat([]byte{'N'}, min(len(p), sqlitefs.ChunkSize))), nil
}

// startHelper starts this test binary as a helper and waits for its
// first line, which must be want; the helper is killed when the test
// ends. It returns the helper, its stdin and what it wrote on stderr.
func startHelper(t *testing.T, role, path, id, want string) (*exec.Cmd, io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	stderr := &bytes.Buffer{}
	cmd, stdin, stdout := testws.StartSelf(t, t.Context(), []string{helperEnv + "=" + role, helperDB + "=" + path, helperID + "=" + id}, stderr)
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != want+"\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s said %q, %v, want %q\n%s", id, line, err, want, stderr)
	}
	return cmd, stdin, stderr
}

// TestCrossProcess runs processes helpers at once, each making rounds
// Update increments of one counter and appends to one log in one
// database: none is lost.
func TestCrossProcess(t *testing.T) {
	s, path := openStore(t)
	write(t, s, "counter", []byte("0"))
	write(t, s, "log", nil)
	var cmds []*exec.Cmd
	var stdins []io.WriteCloser
	var errs []*bytes.Buffer
	for i := range processes {
		cmd, stdin, stderr := startHelper(t, "update", path, strconv.Itoa(i), "ready")
		cmds, stdins, errs = append(cmds, cmd), append(stdins, stdin), append(errs, stderr)
	}
	for _, stdin := range stdins {
		if _, err := io.WriteString(stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
		stdin.Close()
	}
	// This process updates too, meanwhile.
	for range rounds {
		if err := increment(t.Context(), s, "counter"); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper %d: %v\n%s", i, err, errs[i])
		}
	}
	if got, want := string(read(t, s, "counter", 0)), strconv.Itoa((processes+1)*rounds); got != want {
		t.Errorf("counter = %s, want %s", got, want)
	}
	lines := strings.Split(strings.TrimSuffix(string(read(t, s, "log", 0)), "\n"), "\n")
	if len(lines) != processes*rounds {
		t.Fatalf("log has %d lines, want %d", len(lines), processes*rounds)
	}
	next := map[string]int{}
	switches := 0
	for i, line := range lines {
		if i > 0 && line[:1] != lines[i-1][:1] {
			switches++
		}
		id, n, _ := strings.Cut(line, " ")
		if want := fmt.Sprintf("%02d", next[id]); n != want {
			t.Fatalf("helper %s's line %q comes where %s was due", id, line, want)
		}
		next[id]++
	}
	t.Logf("the log switches from one process to another %d times", switches)
	for i := range processes {
		if next[strconv.Itoa(i)] != rounds {
			t.Errorf("helper %d appended %d lines, want %d", i, next[strconv.Itoa(i)], rounds)
		}
	}
	db := rawDB(t, path)
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
}

// TestKillMidWrite kills (SIGKILL) a process in the middle of a large
// WriteFile: the file keeps its old content, the database is intact, and
// a later Open collects the dead write's chunks once they are old enough.
func TestKillMidWrite(t *testing.T) {
	s, path := openStore(t)
	old := pattern(7, 3*sqlitefs.ChunkSize+11)
	write(t, s, "big", old)
	s.Close()

	cmd, stdin, _ := startHelper(t, "slowwrite", path, "0", "ready")
	defer stdin.Close()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("helper ended with %v, want killed", err)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Logf("no WAL left by the killed process: %v", err)
	}

	// Young garbage is kept: it could be a write in progress.
	s = reopen(t, path, sqlitefs.WithGCAge(time.Hour))
	if got := read(t, s, "big", 0); !bytes.Equal(got, old) {
		t.Fatalf("after the kill big holds %d bytes, want the old %d", len(got), len(old))
	}
	db := rawDB(t, path)
	const orphans = `SELECT count(*) FROM chunk WHERE cid NOT IN (SELECT cid FROM tree WHERE cid IS NOT NULL)`
	if n := queryInt(t, db, orphans); n != 32 {
		t.Errorf("%d chunks of the killed write, want the 32 it stored", n)
	}
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
	s.Close()

	// Old garbage is collected.
	s = reopen(t, path, sqlitefs.WithGCAge(0))
	if n := queryInt(t, db, orphans); n != 0 {
		t.Errorf("%d chunks of the killed write after collection, want 0", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM content`); n != 1 {
		t.Errorf("%d contents after collection, want big's 1", n)
	}
	if got := read(t, s, "big", 0); !bytes.Equal(got, old) {
		t.Errorf("after collection big holds %d bytes, want the old %d", len(got), len(old))
	}
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after collection: %q, %v", check, err)
	}
}
