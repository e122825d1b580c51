package exec_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/exec"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// Code written against the old package name still builds and runs: its
// names are execbackend's (here a scripted backend, which runs nothing).
// New code imports core/execbackend, whose examples show the host
// backend too.
func ExampleNewScripted() {
	shell := exec.NewScripted(exec.Info{ID: "shell", Description: "A scripted shell."},
		exec.NewScripts(map[string]exec.Script{"make": {Stdout: []byte("built\n")}}))
	tools, err := raw.New(vfs.New(memfs.New()), agenttools.Options{Backends: []exec.Backend{shell}})
	if err != nil {
		log.Fatal(err)
	}
	out, err := tools.Execute(context.Background(), "exec", []byte(`{"command":"make"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", out.JSON)
	// Output:
	// {"command":"make","cwd":null,"backend":"shell","exitCode":0,"stdout":"built\n","stderr":""}
}
