//go:build unix

package execbackend_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// The host backend runs each command with the shell, in the host
// directory mounted at /workspace (a call's cwd is a workspace path), and
// kills it with its children when the call is cancelled or times out. It
// needs /workspace on the host (hostfs); for a workspace elsewhere, see
// NewMirror.
func ExampleNewHost() {
	ctx := context.Background()
	project, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(project)
	host, err := hostfs.Open(project)
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		log.Fatal(err)
	}

	shell, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		log.Fatal(err)
	}
	tools, err := raw.New(ws, agenttools.Options{Backends: []execbackend.Backend{shell}})
	if err != nil {
		log.Fatal(err)
	}
	for _, args := range []string{
		`{"command":"mkdir -p src && echo 'package app' > src/app.go"}`,
		`{"command":"cat app.go; echo careful >&2; exit 3","cwd":"/workspace/src"}`,
	} {
		out, err := tools.Execute(ctx, "exec", []byte(args))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n", out.JSON)
	}
	// Output:
	// {"command":"mkdir -p src && echo 'package app' > src/app.go","cwd":null,"backend":"host","exitCode":0,"stdout":"","stderr":""}
	// {"command":"cat app.go; echo careful >&2; exit 3","cwd":"/workspace/src","backend":"host","exitCode":3,"stdout":"package app\n","stderr":"careful\n"}
}
