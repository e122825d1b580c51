package main

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A command that fails after it created its database keeps the database
// when another process opened it meanwhile and wrote to it: the other
// process was told its write was made, and it must not be lost. Here the
// failing command is this process (openStore, then Discard, as import
// and call do), the other one a real agenttools call or MCP server.
func TestDiscardKeepsAnotherProcesssWrite(t *testing.T) {
	write := func(name string) string {
		return `{"path":"/workspace/` + name + `","content":"` + name + `"}`
	}
	// openNew opens a new database in a new directory as a failing
	// command would.
	openNew := func(t *testing.T) (*workspace, string, *bytes.Buffer) {
		db := filepath.Join(t.TempDir(), "new", "ws.db")
		var stderr bytes.Buffer
		w := workspaceFlags{db: db, stderr: &stderr}
		wsp, err := w.openStore(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		if wsp.made == "" {
			t.Fatal("openStore did not make the database")
		}
		return wsp, db, &stderr
	}
	// kept requires db to hold the files names with their names as
	// content, read by a new process.
	kept := func(t *testing.T, db string, names ...string) {
		t.Helper()
		for _, name := range names {
			got := cliEnv(t, nil, "call", "--exec", "none", "--db", db, "read", `{"path":"/workspace/`+name+`"}`)
			if got.code != 0 || got.stdout != name+"\n" {
				t.Errorf("read %s after the failed command: %+v, want what another process wrote", name, got)
			}
		}
	}

	t.Run("a call that wrote and exited", func(t *testing.T) {
		wsp, db, stderr := openNew(t)
		if got := cliEnv(t, nil, "call", "--exec", "none", "--db", db, "write", write("b")); got.code != 0 {
			t.Fatalf("write: %+v", got)
		}
		wsp.Discard()
		if !strings.Contains(stderr.String(), "kept") {
			t.Errorf("stderr %q says nothing of the database kept", stderr)
		}
		kept(t, db, "b")
	})

	t.Run("an MCP server that wrote and goes on", func(t *testing.T) {
		wsp, db, _ := openNew(t)
		s := startRaw(t, "--db", db)
		call := func(name string) {
			t.Helper()
			m := s.request("tools/call", []byte(`{"name":"write","arguments":`+write(name)+`}`))
			if text, isErr := toolText(t, m); isErr {
				t.Fatalf("write %s over MCP: %s", name, text)
			}
		}
		call("b")
		wsp.Discard()
		call("c")
		s.in.Close()
		s.waitExit()
		kept(t, db, "b", "c")
	})
}

// Alone, the failing command removes its new database and the directory
// made for it (TestFailureLeavesNothing runs real commands).
func TestDiscardAlone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a new database is removed on Linux only")
	}
	dir := t.TempDir()
	w := workspaceFlags{db: filepath.Join(dir, "new", "ws.db")}
	wsp, err := w.openStore(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := cliEnv(t, nil, "call", "--exec", "none", "--db", filepath.Join(dir, "other.db"), "ls", `{"path":"/workspace"}`); got.code != 0 {
		t.Fatalf("ls on another database: %+v", got)
	}
	wsp.Discard()
	if left := tree(t, dir); len(left) != 2 {
		t.Errorf("left %q, want only other.db", left)
	}
}
