package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// BenchmarkExec5MB is the bench's exec-5MB-stdout-64KiB-chunks row: a
// scripted command prints 60000 lines (5 MB) in 64 KiB chunks; the tool
// keeps the end for the model and saves the whole output in the
// workspace, on each store.
func BenchmarkExec5MB(b *testing.B) {
	var out strings.Builder
	for n := 1; n <= 60000; n++ {
		fmt.Fprintf(&out, "build output line %d: compiling package and linking objects into the final binary\n", n)
	}
	script := execbackend.Script{Stdout: []byte(out.String()), ChunkBytes: 64 << 10}
	for _, st := range benchStores {
		b.Run(st.name, func(b *testing.B) {
			ws := st.open(b)
			scripts := execbackend.NewScripts(map[string]execbackend.Script{"big-output": script})
			ex, err := core.New(ws, core.Options{Backends: []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell"}, scripts)}})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(script.Stdout)))
			for b.Loop() {
				b.StopTimer()
				if err := ws.Remove(b.Context(), toolspec.OutputDir, vfs.RemoveOptions{Recursive: true, Force: true}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := ex.Call(b.Context(), "exec", []byte(`{"command":"big-output"}`))
				if err != nil || !strings.Contains(string(res.JSON), "Full output: /.computer/output/") {
					b.Fatalf("%.300s %v", res.JSON, err)
				}
			}
		})
	}
}
