package sqlitefs_test

import (
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/core/vfs/storebench"
)

func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) vfs.Store {
		s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "ws.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
