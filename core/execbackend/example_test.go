package execbackend_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// A scripted backend runs nothing: each command gets the output and exit
// code its script gives (a queued script first, else the one for the
// command, else a silent success), so a test or a demo of an agent can
// show exec without a shell.
func ExampleNewScripted() {
	ctx := context.Background()
	scripts := execbackend.NewScripts(map[string]execbackend.Script{
		"go test ./...": {Stdout: []byte("ok  \texample.com/app\t0.01s\n")},
	})
	scripts.Queue(execbackend.Script{Stderr: []byte("boom\n"), ExitCode: 2})
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell", Description: "A scripted shell."}, scripts)

	tools, err := raw.New(vfs.New(memfs.New()), agenttools.Options{Backends: []execbackend.Backend{shell}})
	if err != nil {
		log.Fatal(err)
	}
	for _, command := range []string{"make", "go test ./...", "true"} {
		out, err := tools.Execute(ctx, "exec", []byte(`{"command":"`+command+`"}`))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n", out.JSON)
	}
	// Output:
	// {"command":"make","cwd":null,"backend":"shell","exitCode":2,"stdout":"","stderr":"boom\n"}
	// {"command":"go test ./...","cwd":null,"backend":"shell","exitCode":0,"stdout":"ok  \texample.com/app\t0.01s\n","stderr":""}
	// {"command":"true","cwd":null,"backend":"shell","exitCode":0,"stdout":"","stderr":""}
}
