package raw_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Execute answers every call the model can make with what the model must
// see: a json tool's result, a failure as an {"error": ...} object,
// invalid arguments as an error text naming the argument. Only a tool the
// set does not offer (or a cancelled context) is a Go error.
func ExampleTools_Execute() {
	ctx := context.Background()
	tools, err := raw.New(vfs.New(memfs.New()), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, call := range [][2]string{
		{"write", `{"path":"/workspace/todo.md","content":"- write docs\n- ship\n"}`},
		{"edit", `{"path":"/workspace/todo.md","edits":[{"oldText":"ship","newText":"release"}]}`},
		{"edit", `{"path":"/workspace/todo.md","edits":[{"oldText":"ship","newText":"release"}]}`},
		{"delete", `{"path":"/workspace/todo.md","recursive":"yes"}`},
		{"browse", `{}`},
	} {
		out, err := tools.Execute(ctx, call[0], []byte(call[1]))
		var unknown *toolspec.UnknownToolError
		switch {
		case errors.As(err, &unknown):
			fmt.Println("Go error:", err)
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Printf("%s, error %v: %s\n", out.Kind, out.IsError(), raw.Value(out))
		}
	}
	// Output:
	// json, error false: {"path":"/workspace/todo.md","bytesWritten":20}
	// json, error false: {"path":"/workspace/todo.md","editsApplied":1,"diff":" 1 - write docs\n-2 - ship\n+2 - release","patch":"Index: /workspace/todo.md\n===================================================================\n--- /workspace/todo.md\n+++ /workspace/todo.md\n@@ -1,2 +1,2 @@\n - write docs\n-- ship\n+- release\n","firstChangedLine":2}
	// json, error true: {"error":"Could not find the exact text in /workspace/todo.md. The old text must match exactly including all whitespace and newlines."}
	// error-text, error true: "Invalid input for tool delete: recursive must be a boolean, got a string"
	// Go error: toolspec: no tool named "browse"
}

// ModelOutput is an output as the reference hands it to the model,
// {"type": kind, "value": value}; Value is its value alone. A whole read
// is a text, a read cut short a json object that says where to go on.
func ExampleModelOutput() {
	ctx := context.Background()
	ws := vfs.New(memfs.New())
	if err := ws.WriteFile(ctx, "/workspace/a.txt", []byte("one\ntwo\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		log.Fatal(err)
	}
	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, call := range [][2]string{
		{"read", `{"path":"/workspace/a.txt"}`},
		{"read", `{"path":"/workspace/a.txt","limit":1}`},
		{"read", `{"path":"/workspace/b.txt"}`},
	} {
		out, err := tools.Execute(ctx, call[0], []byte(call[1]))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n", raw.ModelOutput(out))
	}
	// Output:
	// {"type":"text","value":"one\ntwo"}
	// {"type":"json","value":{"path":"/workspace/a.txt","content":"one","startLine":1,"endLine":1,"totalLines":null,"truncated":true,"nextOffset":2,"nextByteOffset":4}}
	// {"type":"error-text","value":"File not found: /workspace/b.txt"}
}

// A read-only set leaves out the tools that change the workspace.
func ExampleNew_readonly() {
	tools, err := raw.New(vfs.New(memfs.New()), agenttools.Options{Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range tools.Definitions() {
		fmt.Println(d.Name)
	}
	// Output:
	// read
	// ls
	// find
	// grep
}
