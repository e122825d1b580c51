package memfs_test

import (
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/storebench"
)

func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) vfs.Store { return memfs.New() })
}
