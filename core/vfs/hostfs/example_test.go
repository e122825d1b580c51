package hostfs_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// A host directory mounted at /workspace, under a "/" in memory: the
// tools read and change the files in it, and a path that climbs out of
// the workspace is refused. (The FS itself is confined with os.Root: a
// symbolic link on the host does not lead out of the directory either.)
func ExampleOpen() {
	ctx := context.Background()
	project, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(project)
	if err := os.WriteFile(filepath.Join(project, "go.mod"), []byte("module example.com/app\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	host, err := hostfs.Open(project)
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		log.Fatal(err)
	}

	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, call := range [][2]string{
		{"read", `{"path":"/workspace/go.mod"}`},
		{"write", `{"path":"/workspace/cmd/app/main.go","content":"package main\n"}`},
		{"read", `{"path":"/workspace/../../etc/hostname"}`},
	} {
		out, err := tools.Execute(ctx, call[0], []byte(call[1]))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n", raw.Value(out))
	}
	// The write is a file on the host.
	data, err := os.ReadFile(filepath.Join(project, "cmd", "app", "main.go"))
	fmt.Printf("%q %v\n", data, err)
	// Output:
	// "module example.com/app"
	// {"path":"/workspace/cmd/app/main.go","bytesWritten":13}
	// "Invalid path (escapes root): /workspace/../../etc/hostname"
	// "package main\n" <nil>
}
