package core_test

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// editorEnv makes the test binary an editor process for
// TestEditsFromSeveralProcesses: "DB NUMBER".
const editorEnv = "AGENTTOOLS_TEST_EDITOR"

const (
	editors        = 4
	editsPerEditor = 50
)

// Four processes each make 50 edits to one file of one SQLite workspace,
// at the same time, each edit a read, match and write of the whole file:
// afterwards all 200 are there (edit's read-modify-write is one
// transaction in the database, so no process overwrites another's).
func TestEditsFromSeveralProcesses(t *testing.T) {
	if spec := os.Getenv(editorEnv); spec != "" {
		runEditor(t, spec)
		return
	}
	db := filepath.Join(t.TempDir(), "ws.db")
	store, err := sqlitefs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ws := vfs.New(store)
	var lines []string
	for k := range editors {
		for i := range editsPerEditor {
			lines = append(lines, fmt.Sprintf("item %d.%d: todo", k, i))
		}
	}
	if err := ws.WriteFile(t.Context(), "/workspace/list.txt", []byte(strings.Join(lines, "\n")+"\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	var wg sync.WaitGroup
	outputs := make([][]byte, editors)
	errs := make([]error, editors)
	for k := range editors {
		wg.Go(func() {
			cmd := osexec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestEditsFromSeveralProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), editorEnv+"="+db+" "+strconv.Itoa(k))
			outputs[k], errs[k] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for k := range editors {
		if errs[k] != nil {
			t.Fatalf("editor %d: %v\n%s", k, errs[k], outputs[k])
		}
	}
	store, err = sqlitefs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ex, err := core.New(vfs.New(store), core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := call(t, ex, "read", `{"path":"/workspace/list.txt"}`).Text
	if n := strings.Count(got, ": done by "); n != editors*editsPerEditor {
		t.Errorf("%d of %d edits are in the file; lost: %d", n, editors*editsPerEditor, strings.Count(got, ": todo"))
	}
}

// runEditor makes one editor's edits: item k.i becomes "done by k".
func runEditor(t *testing.T, spec string) {
	db, kText, _ := strings.Cut(spec, " ")
	k, _ := strconv.Atoi(kText)
	store, err := sqlitefs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ex, err := core.New(vfs.New(store), core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range editsPerEditor {
		args := fmt.Sprintf(`{"path":"/workspace/list.txt","edits":[{"oldText":"item %d.%d: todo","newText":"item %d.%d: done by %d"}]}`, k, i, k, i, k)
		out := call(t, ex, "edit", args)
		if out.IsError() {
			t.Fatalf("edit %d.%d: %s", k, i, out.JSON)
		}
	}
}
