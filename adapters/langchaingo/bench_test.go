package langchaingo_test

import (
	"testing"

	"github.com/agenttools/agenttools/adapters/langchaingo"
	"github.com/agenttools/agenttools/internal/agentcase"
)

func benchTools(b *testing.B) *langchaingo.Tools {
	b.Helper()
	set, err := langchaingo.New(agentcase.Workspace(b))
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkRead reads a small file through the langchaingo tool, as the
// executor calls it.
func BenchmarkRead(b *testing.B) {
	read, _ := benchTools(b).Read()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := read.Call(b.Context(), agentcase.ReadArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCore is the same read through core alone.
func BenchmarkReadCore(b *testing.B) { agentcase.BenchReadCore(b, benchTools(b).Executor()) }
