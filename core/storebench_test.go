package core_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
)

// benchStores are the workspaces the tool benchmarks compare: /workspace
// in memory, in a host directory, in an SQLite database.
var benchStores = []struct {
	name string
	open func(b *testing.B) *vfs.Workspace
}{
	{"memfs", func(b *testing.B) *vfs.Workspace { return vfs.New(memfs.New()) }},
	{"hostfs", func(b *testing.B) *vfs.Workspace { ws, _ := testws.Host(b, ""); return ws }},
	{"sqlitefs", func(b *testing.B) *vfs.Workspace {
		db, err := sqlitefs.Open(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return vfs.New(db)
	}},
}

func benchCall(b *testing.B, ex *core.Executor, tool, args string, check func(string) bool) {
	b.Helper()
	for b.Loop() {
		out, err := ex.Call(b.Context(), tool, []byte(args))
		if err != nil || !check(string(out.JSON)) {
			b.Fatalf("%s %s: %.300s %v", tool, args, out.JSON, err)
		}
	}
}

// BenchmarkFindTree is find ** over a 10x10x10 tree: 110 directories and
// 1000 files, listed in one page of 1000.
func BenchmarkFindTree(b *testing.B) {
	for _, st := range benchStores {
		b.Run(st.name, func(b *testing.B) {
			ws := st.open(b)
			for i := range 10 {
				for j := range 10 {
					for k := range 10 {
						p := fmt.Sprintf("/workspace/d%d/d%d/f%d.txt", i, j, k)
						if err := ws.WriteFile(b.Context(), p, []byte("x\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			ex, err := core.New(ws, core.Options{})
			if err != nil {
				b.Fatal(err)
			}
			benchCall(b, ex, "find", `{"pattern":"**","limit":1000}`, func(s string) bool { return strings.Contains(s, `"count":1000,`) })
		})
	}
}

// BenchmarkGrepLiteral50MB is grep of a literal over 50 files of 1 MiB
// (about 52 MB), which it finds once near the end of each.
func BenchmarkGrepLiteral50MB(b *testing.B) {
	line := strings.Repeat("lorem ipsum dolor sit amet ", 3) + "\n"
	body := strings.Repeat(line, (1<<20)/len(line))
	for _, st := range benchStores {
		b.Run(st.name, func(b *testing.B) {
			ws := st.open(b)
			for i := range 50 {
				content := body + fmt.Sprintf("needle %d\n", i)
				if err := ws.WriteFile(b.Context(), fmt.Sprintf("/workspace/corpus/f%02d.txt", i), []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
					b.Fatal(err)
				}
			}
			ex, err := core.New(ws, core.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(50 << 20)
			benchCall(b, ex, "grep", `{"query":"needle","path":"/workspace/corpus"}`, func(s string) bool { return strings.Contains(s, `"count":50,`) })
		})
	}
}
