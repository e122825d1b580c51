package sqlitefs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// exampleDatabase makes the workspace database agent.db in a new
// temporary directory, as Open makes it (with an empty /workspace), has
// the write tool write /workspace/notes.txt in it, and closes it. The
// caller removes dir.
func exampleDatabase() (dir, path string) {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "agent.db")
	db, err := sqlitefs.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	call(dir, db, "write", `{"path":"/workspace/notes.txt","content":"kept\n"}`)
	return dir, path
}

// call runs one tool call on the workspace database in dir and prints
// the value the model sees, with dir left out of the paths in it.
func call(dir string, db *sqlitefs.FS, tool, args string) {
	tools, err := raw.New(vfs.New(db), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	out, err := tools.Execute(context.Background(), tool, []byte(args))
	if err != nil {
		log.Fatal(err)
	}
	// The value is JSON: the directory is in it as a JSON string has it.
	quoted, _ := json.Marshal(dir + string(filepath.Separator))
	fmt.Println(strings.ReplaceAll(string(raw.Value(out)), strings.Trim(string(quoted), `"`), ""))
}

// A workspace in one SQLite file: Open makes it, with an empty
// /workspace, when the file does not exist, and it keeps what the tools
// wrote for the next process that opens it (several may have it open at
// once).
func ExampleOpen() {
	dir, path := exampleDatabase()
	defer os.RemoveAll(dir)

	db, err := sqlitefs.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	call(dir, db, "read", `{"path":"/workspace/notes.txt"}`)
	// Output:
	// {"path":"/workspace/notes.txt","bytesWritten":5}
	// "kept"
}

// A database opened read-only serves reads; every change is a failure
// the model sees, saying why.
func ExampleReadOnly() {
	dir, path := exampleDatabase()
	defer os.RemoveAll(dir)

	db, err := sqlitefs.Open(path, sqlitefs.ReadOnly())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	call(dir, db, "read", `{"path":"/workspace/notes.txt"}`)
	call(dir, db, "delete", `{"path":"/workspace/notes.txt"}`)
	// Output:
	// {"path":"/workspace/notes.txt","bytesWritten":5}
	// "kept"
	// {"error":"remove /workspace/notes.txt: the workspace database agent.db is read-only (it was opened read-only on request); nothing was changed"}
}

// Check examines a workspace database without changing it, as
// `agenttools check` does: here the root, /workspace and one file.
func ExampleCheck() {
	dir, path := exampleDatabase()
	defer os.RemoveAll(dir)

	r, err := sqlitefs.Check(context.Background(), path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.OK(), r.Integrity, r.Layout == sqlitefs.SchemaVersion, r.Nodes, r.Files, r.Problems)
	// Output:
	// {"path":"/workspace/notes.txt","bytesWritten":5}
	// true [ok] true 3 1 []
}
