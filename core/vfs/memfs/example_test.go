package memfs_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// A workspace held in memory: files a program puts there, the tools'
// changes, all gone with the process. The clock stamps modification
// times, which ls shows (milliseconds since the epoch).
func ExampleNew() {
	ctx := context.Background()
	clock := func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	ws := vfs.New(memfs.New(memfs.WithClock(clock)))
	if err := ws.WriteFile(ctx, "/workspace/notes.txt", []byte("draft\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		log.Fatal(err)
	}

	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, call := range [][2]string{
		{"write", `{"path":"/workspace/src/main.go","content":"package main\n"}`},
		{"ls", `{"path":"/workspace"}`},
		{"read", `{"path":"/workspace/notes.txt"}`},
	} {
		out, err := tools.Execute(ctx, call[0], []byte(call[1]))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n", raw.Value(out))
	}
	// Output:
	// {"path":"/workspace/src/main.go","bytesWritten":13}
	// {"path":"/workspace","count":2,"entries":[{"name":"notes.txt","size":6,"mtime":1700000000000,"isFile":true,"isDirectory":false,"isSymbolicLink":false},{"name":"src","size":0,"mtime":1700000000000,"isFile":false,"isDirectory":true,"isSymbolicLink":false}]}
	// "draft"
}
