package genkit_test

import (
	"testing"

	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/internal/agentcase"
)

func benchTools(b *testing.B) *agentgenkit.Tools {
	b.Helper()
	set, err := agentgenkit.New(agentcase.Workspace(b))
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkRead reads a small file through the Genkit tool, as Generate
// runs it (RunRaw: Genkit's JSON round trip, then core).
func BenchmarkRead(b *testing.B) {
	read, _ := benchTools(b).Read()
	input := map[string]any{"path": "/workspace/notes.txt"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := read.RunRaw(b.Context(), input); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCore is the same read through core alone.
func BenchmarkReadCore(b *testing.B) { agentcase.BenchReadCore(b, benchTools(b).Executor()) }
