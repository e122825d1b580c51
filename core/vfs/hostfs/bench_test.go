package hostfs_test

import (
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/storebench"
)

func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) vfs.Store {
		s, err := hostfs.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
