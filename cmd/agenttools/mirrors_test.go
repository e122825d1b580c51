//go:build unix

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/testws"
)

// sharedDir is a directory like /tmp: every user can make entries in it,
// and only remove their own.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := testws.PublicDir(t)
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asNobody runs a shell script as another user (testws.Nobody).
func asNobody(t *testing.T, script string, args ...string) {
	t.Helper()
	cmd := osexec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	testws.AsUser(testws.Nobody)(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %v: %s", err, out)
	}
}

// newDatabase makes a workspace database with /workspace/a.txt, without
// exec, and returns its real path.
func newDatabase(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ws.db")
	if got := cliEnv(t, nil, "call", "--exec", "none", "--db", db, "write", `{"path":"/workspace/a.txt","content":"a"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	real, err := filepath.EvalSymlinks(db)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// mirrorName is the name of a database's default mirror directory.
func mirrorName(db string) string {
	sum := sha256.Sum256([]byte(db))
	return hex.EncodeToString(sum[:8])
}

// Another user who makes the path where the mirror would go in a shared
// directory (HOME unset: the temporary directory), as a link to a
// directory of ours, neither gets our files removed nor our commands run
// where they can reach them: exec refuses, saying why, and the other
// tools work.
func TestMirrorHijackedInSharedTemp(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a program as another user")
	}
	db := newDatabase(t)
	tmp := sharedDir(t)
	// Ours: a directory shaped like a mirror, with a file the sync in
	// would remove.
	victim := t.TempDir()
	precious := filepath.Join(victim, "tree", "precious.txt")
	if err := os.MkdirAll(filepath.Dir(precious), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(precious, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	asNobody(t, `mkdir -p "$1/agenttools/mirror" && chmod -R 777 "$1/agenttools" && ln -s "$2" "$1/agenttools/mirror/$3"`, tmp, victim, mirrorName(db))

	env := []string{"TMPDIR=" + tmp}
	got := cliEnv(t, env, "call", "--db", db, "exec", `{"command":"echo ran; pwd"}`)
	if data, err := os.ReadFile(precious); err != nil || string(data) != "keep me" {
		t.Errorf("our file behind the other user's link: %q, %v", data, err)
	}
	if got.code != 1 || strings.Contains(got.stdout, `"stdout":"ran`) || !strings.Contains(got.stdout, "mirror") {
		t.Errorf("exec with the mirror path taken: %+v", got)
	}
	t.Logf("exec: %s", got.stdout)
	if got := cliEnv(t, env, "call", "--db", db, "read", `{"path":"/workspace/a.txt"}`); got.code != 0 || got.stdout != "a\n" {
		t.Errorf("read: %+v", got)
	}
}

// Another user who owns a directory on the way to the cache (a cache
// directory in a shared place) cannot take the mirror: every component
// of its path is checked, not only the last.
func TestMirrorUnderAnotherUsersDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a program as another user")
	}
	db := newDatabase(t)
	cache := filepath.Join(sharedDir(t), "cache")
	mirror := filepath.Join(cache, "agenttools", "mirror", mirrorName(db))
	asNobody(t, `mkdir -p "$1" && chmod -R 777 "$2"`, mirror, cache)

	got := cliEnv(t, []string{"XDG_CACHE_HOME=" + cache}, "call", "--db", db, "exec", `{"command":"echo ran"}`)
	if got.code != 1 || strings.Contains(got.stdout, `"stdout":"ran`) || !strings.Contains(got.stdout, cache) {
		t.Errorf("exec in another user's directory: %+v", got)
	}
	t.Logf("exec: %s", got.stdout)
	if entries, _ := os.ReadDir(mirror); len(entries) != 0 {
		t.Errorf("the other user's directory was used: %v", entries)
	}
}

// Without a home or a cache directory, exec says so (it does not fall
// back to a shared directory); the file tools work.
func TestMirrorWithoutACacheDirectory(t *testing.T) {
	db := newDatabase(t)
	tmp := sharedDir(t)
	env := []string{"TMPDIR=" + tmp}
	got := cliEnv(t, env, "call", "--db", db, "exec", `{"command":"echo ran"}`)
	if got.code != 1 || !strings.Contains(got.stdout, "XDG_CACHE_HOME") {
		t.Errorf("exec without a cache directory: %+v", got)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("made in the shared temporary directory: %v", entries)
	}
	if got := cliEnv(t, env, "call", "--db", db, "read", `{"path":"/workspace/a.txt"}`); got.code != 0 || got.stdout != "a\n" {
		t.Errorf("read: %+v", got)
	}
	// --mirror names one.
	mirror := filepath.Join(t.TempDir(), "m")
	if got := cliEnv(t, env, "call", "--db", db, "--mirror", mirror, "exec", `{"command":"cat a.txt"}`); got.code != 0 || !strings.Contains(got.stdout, `"stdout":"a"`) {
		t.Errorf("exec with --mirror: %+v", got)
	}
	if fi, err := os.Stat(mirror); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the mirror is not private: %v %v", fi.Mode(), err)
	}
}

// A cache directory that cannot be made breaks only exec, when it runs:
// the file tools and the MCP server never make the mirror.
func TestUnwritableCacheDirectory(t *testing.T) {
	db := newDatabase(t)
	env := []string{"HOME=/proc"}
	if got := cliEnv(t, env, "call", "--db", db, "read", `{"path":"/workspace/a.txt"}`); got.code != 0 || got.stdout != "a\n" {
		t.Errorf("read: %+v", got)
	}
	if got := cliEnv(t, env, "call", "--db", db, "write", `{"path":"/workspace/b.txt","content":"b"}`); got.code != 0 {
		t.Errorf("write: %+v", got)
	}
	got := cliEnv(t, env, "call", "--db", db, "exec", `{"command":"echo ran"}`)
	if got.code != 1 || !strings.Contains(got.stdout, "/proc/.cache") || !strings.Contains(got.stdout, "the CLI's --mirror") {
		t.Errorf("exec: %+v", got)
	}
	t.Logf("exec: %s", got.stdout)
	// tools and mcp start (mcp ends at once: no input).
	if got := cliEnv(t, env, "tools"); got.code != 0 {
		t.Errorf("tools: %+v", got)
	}
	cmd := osexec.Command(agenttoolsBinary(t), "mcp", "--exec", "host", "--db", db)
	cmd.Env = append(os.Environ(), "HOME=/proc")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "XDG_CACHE_HOME=") })
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("mcp: %v: %s", err, out)
	}
}

// mirrors lists the mirrors in the cache directory; --prune removes
// them, except one a command runs in (another process).
func TestMirrorsCommand(t *testing.T) {
	cache := t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	one, two := newDatabase(t), newDatabase(t)
	for _, db := range []string{one, two} {
		if got := cliEnv(t, env, "call", "--db", db, "exec", `{"command":"seq 1000 > n.txt"}`); got.code != 0 {
			t.Fatalf("exec: %+v", got)
		}
	}
	root := filepath.Join(cache, "agenttools", "mirror")
	got := cliEnv(t, env, "mirrors")
	if got.code != 0 || !strings.HasPrefix(got.stdout, root+": 2 mirrors\nMIRROR ") || !strings.Contains(got.stdout, mirrorName(one)) || !strings.Contains(got.stdout, " "+two+"\n") {
		t.Errorf("mirrors: %+v", got)
	}
	if got := cliEnv(t, env, "mirrors", "--older-than", "7d"); got.code != 0 || got.stdout != root+": 0 mirrors\n" {
		t.Errorf("mirrors --older-than 7d: %+v", got)
	}
	// A directory without a key file: its database is not known.
	if err := os.Mkdir(filepath.Join(root, "stray"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := cliEnv(t, env, "mirrors"); got.code != 0 || !strings.HasPrefix(got.stdout, root+": 3 mirrors\n") || !strings.Contains(got.stdout, " (not recorded)\n") {
		t.Errorf("mirrors with a stray directory: %+v", got)
	}
	if err := os.Remove(filepath.Join(root, "stray")); err != nil {
		t.Fatal(err) // also: listing made no lock file in it
	}
	for _, bad := range []string{"7x", "-1h", "99999999999d"} {
		if got := cliEnv(t, env, "mirrors", "--older-than", bad); got.code != 2 || !strings.Contains(got.stderr, "--older-than") {
			t.Errorf("mirrors --older-than %s: %+v", bad, got)
		}
	}

	// A command runs on one's mirror, in another process.
	fifo := filepath.Join(t.TempDir(), "pid")
	started := testws.PIDFIFO(t, fifo)
	running := osexec.Command(agenttoolsBinary(t), "call", "--db", one, "exec", `{"command":"echo $$ > `+fifo+`; sleep 100"}`)
	running.Env = append(os.Environ(), env...)
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	started()
	got = cliEnv(t, env, "mirrors", "--prune")
	kept := "kept " + filepath.Join(root, mirrorName(one)) + ": in use by a running command\n"
	removed := "removed " + filepath.Join(root, mirrorName(two)) + " ("
	if got.code != 0 || !strings.Contains(got.stdout, kept) || !strings.Contains(got.stdout, removed) || !strings.Contains(got.stdout, "\nremoved 1 mirror, ") {
		t.Errorf("mirrors --prune: %+v", got)
	}
	if err := running.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = running.Wait()
	if got := cliEnv(t, env, "mirrors", "--prune"); got.code != 0 || !strings.Contains(got.stdout, "removed "+filepath.Join(root, mirrorName(one))+" (") {
		t.Errorf("mirrors --prune after the command: %+v", got)
	}
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Errorf("left: %v %v", entries, err)
	}
}
