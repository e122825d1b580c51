package main

import (
	"encoding/json"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/toolspec"
)

// pgURLs are the URLs of one database made for a test: with a password
// (the test server trusts every connection, so any password is
// accepted, and none may be shown), and as the command shows it.
type pgURLs struct{ db, shown string }

// workspace is the URL of the workspace name ("" for none: the default)
// with the password, and as the command shows it.
func (u pgURLs) workspace(name string) (string, string) {
	withName := func(s string) string {
		p, _ := url.Parse(s)
		q := p.Query()
		q.Set("workspace", name)
		p.RawQuery = q.Encode()
		return p.String()
	}
	return withName(u.db), withName(u.shown)
}

// postgresDatabase makes a database for t on the tests' server.
func postgresDatabase(t *testing.T) pgURLs {
	t.Helper()
	p, err := url.Parse(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	shown := *p
	shown.User = url.User(p.User.Username())
	p.User = url.UserPassword(p.User.Username(), "s3cret-pw")
	return pgURLs{db: p.String(), shown: shown.String()}
}

// pgCommand runs the built command in dir, with cache as its user cache
// directory (where the exec mirrors are).
func pgCommand(t *testing.T, dir, cache string, args ...string) result {
	t.Helper()
	cmd := osexec.Command(agenttoolsBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	got := runCmd(t, cmd)
	if strings.Contains(got.stdout+got.stderr, "s3cret-pw") {
		t.Errorf("agenttools %q shows the password: %+v", args, got)
	}
	return got
}

// TestPostgresWorkspace: --db postgres://… is a workspace of a PostgreSQL
// database, for import, call (exec on a mirror of it, whose output
// files come back), export, mcp, and workspaces lists them; another
// workspace of the same database is apart; no file is made where the
// command runs; the password is never shown; check refuses a URL; and
// --readonly and export make no workspace.
func TestPostgresWorkspace(t *testing.T) {
	db := postgresDatabase(t)
	work, cache := t.TempDir(), t.TempDir()
	cli := func(args ...string) result {
		t.Helper()
		return pgCommand(t, work, cache, args...)
	}
	a, aShown := db.workspace("a")
	b, _ := db.workspace("b")
	c, cShown := db.workspace("c")

	if got := cli("import", "--db", a, hostDir(t)); got.code != 0 || got.stdout != "imported 4 nodes\n" {
		t.Fatalf("import: %+v", got)
	}
	if got := cli("call", "--db", a, "read", `{"path":"/workspace/sub/b.txt"}`); got.code != 0 || got.stdout != "b\n" {
		t.Errorf("read after import: %+v", got)
	}
	if got := cli("call", "--db", a, "write", `{"path":"/workspace/w.txt","content":"written\n"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	// exec sees what import and write put in the workspace, and what it
	// writes comes back.
	got := cli("call", "--db", a, "exec", `{"command":"cat a.txt w.txt && rm w.txt && printf built > out.txt && mkdir gen && echo y > gen/y"}`)
	var res toolspec.ExecResult
	if err := json.Unmarshal([]byte(got.stdout), &res); err != nil || res.ExitCode == nil || *res.ExitCode != 0 || res.Stdout != "hello\nworld\nwritten\n" {
		t.Fatalf("exec: %+v", got)
	}
	if got := cli("call", "--db", a, "read", `{"path":"/workspace/out.txt"}`); got.stdout != "built\n" {
		t.Errorf("read of the file exec wrote: %+v", got)
	}
	if got := cli("call", "--db", a, "read", `{"path":"/workspace/w.txt"}`); got.code != 1 {
		t.Errorf("read of the file exec removed: %+v", got)
	}
	// The mirror is named by the URL without the password.
	if got := cli("mirrors"); got.code != 0 || !strings.Contains(got.stdout, "  "+aShown+"\n") {
		t.Errorf("mirrors does not name %s: %+v", aShown, got)
	}

	// Another workspace of the database holds none of it.
	if got := cli("call", "--db", b, "ls", `{"path":"/workspace"}`); got.code != 0 || got.stdout != `{"path":"/workspace","count":0,"entries":[]}`+"\n" {
		t.Errorf("ls of another workspace: %+v", got)
	}
	if got := cli("call", "--db", b, "read", `{"path":"/workspace/a.txt"}`); got.code != 1 {
		t.Errorf("read in another workspace: %+v", got)
	}

	out := filepath.Join(t.TempDir(), "export")
	if got := cli("export", "--db", a, out); got.code != 0 || got.stdout != "exported 7 nodes\n" {
		t.Errorf("export: %+v", got)
	}
	for name, want := range map[string]string{"a.txt": "hello\nworld\n", "sub/b.txt": "b\n", "out.txt": "built", "gen/y": "y\n"} {
		if data, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(data) != want {
			t.Errorf("exported %s: %q, %v; want %q", name, data, err, want)
		}
	}

	// mcp says what it serves, by the shown URL.
	if got := cli("mcp", "--db", a); got.code != 0 || got.stderr != "agenttools mcp: serving read, ls, find, grep, write, edit, delete over stdin and stdout on "+aShown+"\n" {
		t.Errorf("mcp: %+v", got)
	}
	// --readonly reads a workspace that exists; it and export make
	// none.
	if got := cli("call", "--readonly", "--db", a, "read", `{"path":"/workspace/sub/b.txt"}`); got.code != 0 || got.stdout != "b\n" {
		t.Errorf("read --readonly: %+v", got)
	}
	if got := cli("mcp", "--readonly", "--db", c); got.code != 0 || got.stderr != "agenttools mcp: serving read, ls, find, grep over stdin and stdout on an empty workspace in memory ("+cShown+" does not exist, and --readonly makes none)\n" {
		t.Errorf("mcp --readonly on a missing workspace: %+v", got)
	}
	if got := cli("export", "--db", c, filepath.Join(t.TempDir(), "none")); got.code != 2 || !strings.Contains(got.stderr, `has no workspace "c"`) {
		t.Errorf("export of a missing workspace: %+v", got)
	}
	if got := cli("check", "--db", a); got.code != 2 || !strings.Contains(got.stderr, "SQLite workspace databases only") {
		t.Errorf("check of a URL: %+v", got)
	}
	if got := cli("call", "--db", db.db+"&workspace=", "ls", "{}"); got.code != 2 {
		t.Errorf("an empty workspace name: %+v", got)
	}

	if entries, err := os.ReadDir(work); err != nil || len(entries) != 0 {
		t.Errorf("the commands made files where they ran: %v %v", entries, err)
	}

	// a and b, and nothing else: what each holds.
	got = cli("workspaces", "--db", a)
	lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
	if got.code != 0 || len(lines) != 4 || lines[0] != db.shown+": 2 workspaces" || strings.Fields(lines[1])[0] != "NAME" {
		t.Fatalf("workspaces: %+v", got)
	}
	// a: /, /workspace, a.txt, pic.png, sub, sub/b.txt, out.txt, gen, gen/y.
	for i, want := range []struct {
		name         string
		nodes, bytes int
	}{{"a", 9, 12 + 3 + 2 + 5 + 2}, {"b", 2, 0}} {
		f := strings.Fields(lines[2+i])
		if len(f) != 4 || f[0] != want.name || f[2] != strconv.Itoa(want.nodes) || f[3] != toolspec.FormatSize(int64(want.bytes)) {
			t.Errorf("workspaces line %q, want %s with %d nodes, %s", lines[2+i], want.name, want.nodes, toolspec.FormatSize(int64(want.bytes)))
		}
		if rev, err := strconv.Atoi(f[1]); err != nil || rev <= 0 {
			t.Errorf("workspace %s: REV %q", want.name, f[1])
		}
	}
}

// TestPostgresReplay: replay --workspace postgres://… gives the answers
// the in-memory workspace gives, case for case, and leaves no workspace
// behind.
func TestPostgresReplay(t *testing.T) {
	db := postgresDatabase(t)
	cases := filepath.Join(pkgDir, "..", "..", "golden", "testdata", "oracle", "smoke.json")
	want := runCLI(t, "", "replay", cases)
	if want.code != 0 || strings.Count(want.stdout, "\n") < 20 {
		t.Fatalf("replay on memory: %+v", want)
	}
	got := runCLI(t, "", "replay", "--workspace", db.db, cases)
	if got.code != 0 || got.stderr != "" {
		t.Fatalf("replay on postgres: exit %d, stderr %q", got.code, got.stderr)
	}
	wantLines, gotLines := strings.Split(want.stdout, "\n"), strings.Split(got.stdout, "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("replay on postgres printed %d lines, on memory %d", len(gotLines), len(wantLines))
	}
	for i := range wantLines {
		if gotLines[i] != wantLines[i] {
			t.Errorf("case %d differs:\nmemory:   %s\npostgres: %s", i, wantLines[i], gotLines[i])
		}
	}
	if got := runCLI(t, "", "workspaces", "--db", db.db); got.code != 0 || got.stdout != db.shown+": 0 workspaces\n" {
		t.Errorf("after the replay: %+v", got)
	}
	// A server that cannot be reached stops the replay.
	if got := runCLI(t, "", "replay", "--workspace", "postgres://nobody@/none?host="+url.QueryEscape(t.TempDir()), cases); got.code != 2 || got.stdout != "" {
		t.Errorf("replay on no server: %+v", got)
	}
}

// TestShownURLHidesPasswords: the URL the command shows, and names an
// exec mirror by (written in the mirror's directory), holds none of the
// passwords a connection URL may carry: the user's, in its user part or
// a password parameter, and that of the client's TLS key (sslpassword).
func TestShownURLHidesPasswords(t *testing.T) {
	u := "postgres://bob:pw1@h/db?sslmode=verify-full&sslkey=%2Fk.pem&sslpassword=pw2&password=pw3&workspace=w"
	for _, withWorkspace := range []bool{true, false} {
		got, err := shownURL(u, withWorkspace)
		if err != nil {
			t.Fatal(err)
		}
		want := "postgres://bob@h/db?sslkey=%2Fk.pem&sslmode=verify-full"
		if withWorkspace {
			want += "&workspace=w"
		}
		if got != want {
			t.Errorf("shownURL(%s, %v) = %s, want %s", u, withWorkspace, got, want)
		}
	}
}

// TestPostgresURLWithoutAuthority: a URL that names everything in its
// parameters (postgres://?host=…&dbname=…&user=…&password=…) is shown,
// and names its exec mirror, as a postgres:// URL without the password,
// which mirrors recognises (no "(gone)").
func TestPostgresURLWithoutAuthority(t *testing.T) {
	q := pgtest.Params(t, pgtest.Database(t))
	q.Del("password")
	q.Set("workspace", "a")
	shown := "postgres://?" + q.Encode()
	q.Set("password", "s3cret-pw")
	u := "postgres://?" + q.Encode()

	work, cache := t.TempDir(), t.TempDir()
	if got := pgCommand(t, work, cache, "mcp", "--db", u); got.code != 0 || got.stderr != "agenttools mcp: serving read, ls, find, grep, write, edit, delete over stdin and stdout on "+shown+"\n" {
		t.Errorf("mcp: %+v; want it served on %s", got, shown)
	}
	if got := pgCommand(t, work, cache, "call", "--db", u, "exec", `{"command":"true"}`); got.code != 0 {
		t.Fatalf("exec: %+v", got)
	}
	if got := pgCommand(t, work, cache, "mirrors"); got.code != 0 || !strings.Contains(got.stdout, "  "+shown+"\n") {
		t.Errorf("mirrors does not name %s (without (gone)): %+v", shown, got)
	}
}

// TestPostgresFailedCommandKeepsWorkspace: a command that fails after
// opening a PostgreSQL workspace (an unknown tool, arguments a tool
// refuses) removes nothing from the database, as the README says: the
// workspace and its files stay, unlike a new SQLite file such a command
// made, which it removes.
func TestPostgresFailedCommandKeepsWorkspace(t *testing.T) {
	u, err := url.Parse(postgresDatabase(t).db)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("workspace", "keep")
	u.RawQuery = q.Encode()
	db := u.String()
	work, cache := t.TempDir(), t.TempDir()
	if got := pgCommand(t, work, cache, "call", "--db", db, "write", `{"path":"/workspace/kept.txt","content":"kept\n"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	if got := pgCommand(t, work, cache, "call", "--db", db, "nosuchtool"); got.code != 2 {
		t.Fatalf("an unknown tool: %+v, want exit status 2", got)
	}
	if got := pgCommand(t, work, cache, "call", "--db", db, "read", `{"path":7}`); got.code != 1 {
		t.Fatalf("arguments read refuses: %+v, want exit status 1", got)
	}
	if got := pgCommand(t, work, cache, "call", "--db", db, "read", `{"path":"/workspace/kept.txt"}`); got.code != 0 || !strings.Contains(got.stdout, "kept") {
		t.Errorf("the file after the failed commands: %+v", got)
	}
}
