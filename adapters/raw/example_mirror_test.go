package raw_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// exec on a workspace that is not on the host (SQLite here; memfs alike):
// a Mirror copies /workspace into a host directory before each command
// and what the command changed back after it, as the README shows it.
func Example_mirror() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(tmp)

	db, err := sqlitefs.Open(filepath.Join(tmp, "agent.db")) // with an empty /workspace
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ws := vfs.New(db)

	// Mirror is the host directory of the copy; without it, Key names the
	// workspace for a default one in the user's cache directory
	// (execbackend.MirrorCache).
	shell, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Mirror: filepath.Join(tmp, "mirror")})
	if err != nil {
		log.Fatal(err)
	}
	tools, err := raw.New(ws, agenttools.Options{Backends: []execbackend.Backend{shell}})
	if err != nil {
		log.Fatal(err)
	}
	out, err := tools.Execute(ctx, "exec", []byte(`{"command":"echo hello > made.txt && ls"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", out.JSON)
	out, _ = tools.Execute(ctx, "read", []byte(`{"path":"/workspace/made.txt"}`))
	fmt.Printf("%q\n", out.Text)
	// Output:
	// {"command":"echo hello > made.txt && ls","cwd":null,"backend":"host","exitCode":0,"stdout":"made.txt\n","stderr":""}
	// "hello"
}
