//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// runAs runs bin (from publicBinary) as uid, or as the current user when
// uid is -1.
func runAs(t *testing.T, bin string, uid int, args ...string) result {
	t.Helper()
	prep := func(*osexec.Cmd) {}
	if uid >= 0 {
		prep = testws.AsUser(uid)
	}
	return cliRun(t, prep, append([]string{bin}, args...)...)
}

// ownedDir is a new directory every user can enter, owned by uid (unless
// uid is -1).
func ownedDir(t *testing.T, uid int) string {
	t.Helper()
	dir := testws.PublicDir(t)
	if uid >= 0 {
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// write and edit honour a file's own permissions and owner, as the
// shell's "echo x > f" does, whatever the directory allows: a file the
// user may not write is refused (EACCES) and left byte for byte with
// its owner; a file of another user's that the user may write keeps
// that owner; a file the user may write in a directory the user may not
// is written.
func TestWritesHonourFilePermissions(t *testing.T) {
	uid, self := testws.Nobody, os.Geteuid()
	if self != 0 {
		uid = -1 // already not root: run as ourselves
	}
	bin := publicBinary(t)
	dir := ownedDir(t, uid)
	dbDir := ownedDir(t, uid)
	type file struct {
		mode  os.FileMode
		owner int // -1: the user running the command
	}
	files := map[string]file{
		"readonly.txt": {0o444, -1},
		"mine.txt":     {0o644, -1},
	}
	if self == 0 {
		files["roots.txt"] = file{0o644, 0}
		files["shared.txt"] = file{0o666, 0}
		// In a directory of root's, which the user may not write: the
		// files the user may write are still written, in place.
		files["closed/shared.txt"] = file{0o666, 0}
		files["closed/mine.txt"] = file{0o644, -1}
		if err := os.Mkdir(filepath.Join(dir, "closed"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("alpha\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		owner := f.owner
		if owner < 0 {
			owner = max(uid, self)
		}
		if err := os.Chown(p, owner, owner); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	call := func(tool, args string) result {
		return runAs(t, bin, uid, "call", "--db", filepath.Join(dbDir, "ws.db"), "--dir", dir, "--exec", "none", tool, args)
	}
	for name, f := range files {
		p := filepath.Join(dir, name)
		owner := testws.OwnerOf(t, p)
		writable := f.mode&0o200 != 0 && (f.owner < 0 || f.mode&0o002 != 0)
		wsPath := "/workspace/" + name
		for _, c := range []struct{ tool, args, want string }{
			{"write", `{"path":"` + wsPath + `","content":"beta\n"}`, "beta\n"},
			{"edit", `{"path":"` + wsPath + `","edits":[{"oldText":"beta","newText":"gamma"}]}`, "gamma\n"},
		} {
			before, _ := os.ReadFile(p)
			got := call(c.tool, c.args)
			after, _ := os.ReadFile(p)
			if writable {
				if got.code != 0 || string(after) != c.want {
					t.Errorf("%s %s (mode %v): exit %d %s%s; file %q, want %q", c.tool, name, f.mode, got.code, got.stdout, got.stderr, after, c.want)
				}
			} else {
				want, _ := json.Marshal(map[string]string{"error": toolspec.MsgHostIO(toolspec.MsgOpWrite, wsPath, "permission denied")})
				if c.tool == "edit" {
					want, _ = json.Marshal(map[string]string{"error": toolspec.MsgHostIO(toolspec.MsgOpUpdate, wsPath, "permission denied")})
				}
				if got.code != 1 || strings.TrimSpace(got.stdout) != string(want) || string(after) != string(before) {
					t.Errorf("%s %s (mode %v, owner %d): exit %d %q; file %q (was %q); want exit 1 %s and the file unchanged", c.tool, name, f.mode, owner, got.code, got.stdout, after, before, want)
				}
			}
			if now := testws.OwnerOf(t, p); now != owner {
				t.Errorf("%s %s: the file's owner is now %d, was %d", c.tool, name, now, owner)
			}
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != f.mode {
				t.Errorf("%s %s: mode now %v, was %v", c.tool, name, fi.Mode().Perm(), f.mode)
			}
		}
	}
}

// export stays within the host's permissions as cp does: over a file the
// user may not write it stops, leaving the file as it was; a file of
// another user's that the user may write is rewritten and keeps its
// owner.
func TestExportHonoursFilePermissions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make files of another user's and run the command as nobody")
	}
	bin := publicBinary(t)
	dbDir, out := ownedDir(t, testws.Nobody), ownedDir(t, testws.Nobody)
	db := filepath.Join(dbDir, "ws.db")
	for _, name := range []string{"b-readonly.txt", "a-shared.txt"} {
		if got := runAs(t, bin, testws.Nobody, "call", "--db", db, "--exec", "none", "write", `{"path":"/workspace/`+name+`","content":"new\n"}`); got.code != 0 {
			t.Fatalf("write %s: %+v", name, got)
		}
	}
	for name, f := range map[string]struct {
		mode  os.FileMode
		owner int
	}{"b-readonly.txt": {0o444, testws.Nobody}, "a-shared.txt": {0o666, 0}} {
		p := filepath.Join(out, name)
		if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, f.owner, f.owner); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	// a-shared.txt comes first: it is rewritten before b-readonly.txt stops
	// the export.
	got := runAs(t, bin, testws.Nobody, "export", "--db", db, out)
	if got.code != 2 || !strings.Contains(got.stderr, "permission denied") {
		t.Errorf("export over a read-only file: %+v, want exit 2 and permission denied", got)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "b-readonly.txt")); string(b) != "old\n" {
		t.Errorf("readonly.txt is now %q", b)
	}
	if owner := testws.OwnerOf(t, filepath.Join(out, "b-readonly.txt")); owner != testws.Nobody {
		t.Errorf("readonly.txt is now owned by %d", owner)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "a-shared.txt")); string(b) != "new\n" {
		t.Errorf("shared.txt is %q, want the workspace's", b)
	}
	if owner := testws.OwnerOf(t, filepath.Join(out, "a-shared.txt")); owner != 0 {
		t.Errorf("shared.txt is now owned by %d, was root's", owner)
	}
}

// A program that is running cannot be written (the system says "text
// file busy"); when its replacement could not keep its owner, write says
// so, and changes nothing (it said "invalid argument").
func TestWriteOfARunningProgram(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a program of root's that nobody may write")
	}
	bin := publicBinary(t)
	dir, dbDir := ownedDir(t, testws.Nobody), ownedDir(t, testws.Nobody)
	sleep, err := osexec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, data, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(prog, 0o777); err != nil {
		t.Fatal(err)
	}
	run := osexec.Command(prog, "60")
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = run.Process.Kill(); _ = run.Wait() }()
	got := runAs(t, bin, testws.Nobody, "call", "--db", filepath.Join(dbDir, "ws.db"), "--dir", dir, "--exec", "none", "write", `{"path":"/workspace/prog","content":"x"}`)
	want, _ := json.Marshal(map[string]string{"error": toolspec.MsgHostIO(toolspec.MsgOpWrite, "/workspace/prog", "text file busy")})
	if got.code != 1 || strings.TrimSpace(got.stdout) != string(want) {
		t.Errorf("write of a running program: %+v, want exit 1 %s", got, want)
	}
	if after, _ := os.ReadFile(prog); !bytes.Equal(after, data) {
		t.Error("the program changed")
	}
}
