//go:build unix

package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// sharedWorkspace makes a database in a shared directory holding
// /workspace/a.txt = "hello", and one holding only "/".
func sharedWorkspace(t *testing.T) (db, bare string) {
	t.Helper()
	dir := testws.PublicDir(t)
	db = filepath.Join(dir, "ws.db")
	if got := runCLI(t, "", "call", "--db", db, "write", `{"path":"/workspace/a.txt","content":"hello"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	bare = filepath.Join(dir, "bare.db")
	s, err := sqlitefs.Open(bare)
	if err != nil {
		t.Fatal(err)
	}
	// A database without /workspace (sqlitefs makes a new one with it).
	if err := s.Remove(t.Context(), "workspace"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range []string{db, bare} {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return db, bare
}

// listDir names the files in dir.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// readOnlyCalls checks the calls on a read-only database db (and bare,
// one with "/" only): reads work, changes answer the read-only message
// with reason, nothing is written, and a database that does not exist in
// its directory is not created.
func readOnlyCalls(t *testing.T, run func(args ...string) result, db, bare, reason string) {
	t.Helper()
	dir := filepath.Dir(db)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	files := listDir(t, dir)
	roError := func(op, path string) string {
		return marshal(t, toolspec.ErrorResult{Error: toolspec.MsgHostIO(op, path, toolspec.MsgDatabaseReadOnly(db, reason))}) + "\n"
	}
	tests := []struct {
		name string
		args []string
		want result
	}{
		{"read", []string{"call", "--db", db, "read", `{"path":"/workspace/a.txt"}`}, result{0, "hello\n", ""}},
		{"grep, --readonly", []string{"call", "--readonly", "--db", db, "grep", `{"query":"hel"}`},
			result{0, `{"path":"/workspace","query":"hel","count":1,"matches":[{"path":"/workspace/a.txt","line":1,"text":"hello"}]}` + "\n", ""}},
		{"write", []string{"call", "--db", db, "write", `{"path":"/workspace/b.txt","content":"b"}`}, result{1, roError(toolspec.MsgOpWrite, "/workspace/b.txt"), ""}},
		{"delete", []string{"call", "--db", db, "delete", `{"path":"/workspace/a.txt"}`}, result{1, roError(toolspec.MsgOpRemove, "/workspace/a.txt"), ""}},
		{"no /workspace is made", []string{"call", "--db", bare, "ls", `{"path":"/"}`}, result{0, `{"path":"/","count":0,"entries":[]}` + "\n", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(tt.args...)
			if got != tt.want {
				t.Errorf("agenttools %q:\n got %+v\nwant %+v", tt.args, got, tt.want)
			}
		})
	}
	missing := filepath.Join(dir, "new.db")
	if got := run("call", "--db", missing, "ls", `{"path":"/"}`); got.code != 2 || !strings.Contains(got.stderr, "cannot be created") {
		t.Errorf("call on a database that does not exist: %+v", got)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(after, before) {
		t.Error("the database changed")
	}
	if got := listDir(t, dir); got != files {
		t.Errorf("files beside the database: %q, were %q", got, files)
	}
}

// TestReadOnlyDatabaseOtherUser: a database, and its directory, that the
// user running the command may read and not write: every call failed
// with "attempt to write a readonly database", even with --readonly. Now
// the reading tools work and the changes say why they cannot.
func TestReadOnlyDatabaseOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running the command as another user (nobody) needs root")
	}
	bin := publicBinary(t)
	db, bare := sharedWorkspace(t)
	run := func(args ...string) result {
		return cliRun(t, testws.AsUser(testws.Nobody), append([]string{bin}, args...)...)
	}
	readOnlyCalls(t, run, db, bare, toolspec.MsgDatabaseNotWritable)
}

// TestReadOnlyDatabaseMount: a database on a read-only mount: every call
// failed with "unable to open database file", even with --readonly. Now
// the reading tools work and the changes say it is on a read-only mount.
func TestReadOnlyDatabaseMount(t *testing.T) {
	db, bare := sharedWorkspace(t)
	dir := filepath.Dir(db)
	args := []string{"-m", "--propagation", "private"}
	if os.Geteuid() != 0 {
		args = append([]string{"-r"}, args...)
	}
	if out, err := osexec.Command("unshare", append(args, "true")...).CombinedOutput(); err != nil {
		t.Skipf("no mount namespace (unshare %s): %v %s", strings.Join(args, " "), err, out)
	}
	bin := agenttoolsBinary(t)
	run := func(cliArgs ...string) result {
		all := append(append(args, "sh", "-c", `mount --bind -o ro "$1" "$1" && shift && exec "$@"`, "sh", dir, bin), cliArgs...)
		return cliRun(t, func(*osexec.Cmd) {}, append([]string{"unshare"}, all...)...)
	}
	readOnlyCalls(t, run, db, bare, toolspec.MsgDatabaseMountReadOnly)
}

// TestCheckLogWithoutSharedMemory: check of a database a writer left a
// -wal beside but no -shm, in a directory the user cannot write, says
// why it cannot read it and how to fix it, as call does (it printed
// SQLite's bare "unable to open database file").
func TestCheckLogWithoutSharedMemory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running the command as another user (nobody) needs root")
	}
	bin := publicBinary(t)
	db, _ := sharedWorkspace(t)
	if err := os.WriteFile(db+"-wal", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "--db", db}, {"call", "--db", db, "read", `{"path":"/workspace/a.txt"}`}} {
		got := cliRun(t, testws.AsUser(testws.Nobody), append([]string{bin}, args...)...)
		if got.code != 2 || !strings.Contains(got.stderr, "ws.db-wal but no ws.db-shm") || !strings.Contains(got.stderr, "open it once as a user who can write "+filepath.Dir(db)) {
			t.Errorf("%s: %+v, want exit 2 saying why and how to fix it", args[0], got)
		}
	}
}
