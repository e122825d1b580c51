package raw_test

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
	"github.com/agenttools/agenttools/toolspec"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// A tool set over a host directory mounted at /workspace, as the README
// shows it.
func Example() {
	ctx := context.Background()
	project, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(project)
	_ = os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)

	host, err := hostfs.Open(project) // confined with os.Root
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	ws := vfs.New(memfs.New()) // "/" in memory ...
	if err := ws.Mount(ctx, "/workspace", host, vfs.MountOptions{}); err != nil {
		log.Fatal(err) // ... the project at /workspace
	}

	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range tools.Definitions() {
		fmt.Println(d.Name) // also d.Description and d.InputSchema, for the model
	}

	for _, call := range [][2]string{
		{"read", `{"path":"/workspace/main.go"}`},
		{"grep", `{"query":"func main"}`},
		{"read", `{"path":"/workspace/missing.go"}`},
	} {
		out, err := tools.Execute(ctx, call[0], []byte(call[1]))
		if err != nil {
			log.Fatal(err) // an unknown tool or a cancelled context
		}
		switch out.Kind {
		case toolspec.OutputText, toolspec.OutputErrorText:
			fmt.Printf("%s (error: %v): %q\n", out.Kind, out.IsError(), out.Text)
		case toolspec.OutputJSON:
			fmt.Printf("%s (error: %v): %s\n", out.Kind, out.IsError(), out.JSON)
		case toolspec.OutputContent:
			fmt.Printf("%s: %s, %d bytes of %s\n", out.Kind, out.Text, len(out.Media.Data), out.Media.MediaType)
		}
	}
	// Output:
	// read
	// ls
	// find
	// grep
	// write
	// edit
	// delete
	// text (error: false): "package main\n\nfunc main() {}"
	// json (error: false): {"path":"/workspace","query":"func main","count":1,"matches":[{"path":"/workspace/main.go","line":3,"text":"func main() {}"}]}
	// error-text (error: true): "File not found: /workspace/missing.go"
}
