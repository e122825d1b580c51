package eino_test

import (
	"testing"

	"github.com/cloudwego/eino/components/tool"

	"github.com/agenttools/agenttools/adapters/eino"
	"github.com/agenttools/agenttools/internal/agentcase"
)

func benchTools(b *testing.B) *eino.Tools {
	b.Helper()
	set, err := eino.New(agentcase.Workspace(b))
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkRead reads a small file through eino's tool interface, as a
// ToolsNode calls it.
func BenchmarkRead(b *testing.B) {
	read, _ := benchTools(b).Read()
	rt := read.(tool.InvokableTool)
	b.ReportAllocs()
	for b.Loop() {
		res, err := rt.InvokableRun(b.Context(), agentcase.ReadArgs)
		if err != nil || res == "" {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkReadCore is the same read through core alone.
func BenchmarkReadCore(b *testing.B) { agentcase.BenchReadCore(b, benchTools(b).Executor()) }
