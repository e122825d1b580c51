package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
)

// walkStores are the stores the walk and listing benchmarks compare,
// each mounted at /workspace and filled through fill before it is
// mounted: fill gets a function that makes a directory or a file (data
// nil) at a name relative to the store's root.
var walkStores = []struct {
	name string
	open func(b *testing.B, fill func(mk func(name string, data []byte))) *vfs.Workspace
}{
	{"hostfs", func(b *testing.B, fill func(mk func(string, []byte))) *vfs.Workspace {
		dir := b.TempDir()
		root, err := os.OpenRoot(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer root.Close()
		// Through directory handles one level at a time: a deep name is
		// longer than the host lets one path be.
		roots := map[string]*os.Root{"": root}
		defer func() {
			for name, r := range roots {
				if name != "" {
					r.Close()
				}
			}
		}()
		fill(func(name string, data []byte) {
			parent, base := "", name
			if i := strings.LastIndexByte(name, '/'); i >= 0 {
				parent, base = name[:i], name[i+1:]
			}
			r := roots[parent]
			var err error
			if data == nil {
				if err = r.Mkdir(base, 0o755); err == nil {
					var sub *os.Root
					if sub, err = r.OpenRoot(base); err == nil {
						roots[name] = sub
					}
				}
			} else {
				err = r.WriteFile(base, data, 0o644)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
		host, err := hostfs.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { host.Close() })
		return mountBench(b, host)
	}},
	{"memfs", func(b *testing.B, fill func(mk func(string, []byte))) *vfs.Workspace {
		s := memfs.New()
		fillStore(b, s, fill)
		return mountBench(b, s)
	}},
	{"sqlitefs", func(b *testing.B, fill func(mk func(string, []byte))) *vfs.Workspace {
		s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		fillStore(b, s, fill)
		return mountBench(b, s)
	}},
}

func fillStore(b *testing.B, s vfs.Store, fill func(mk func(string, []byte))) {
	fill(func(name string, data []byte) {
		var err error
		if data == nil {
			err = s.Mkdir(b.Context(), name, 0o755)
		} else {
			err = s.WriteFile(b.Context(), name, strings.NewReader(string(data)), 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	})
}

func mountBench(b *testing.B, s vfs.Store) *vfs.Workspace {
	ws := vfs.New(memfs.New())
	if err := ws.Mount(b.Context(), "/workspace", s, vfs.MountOptions{}); err != nil {
		b.Fatal(err)
	}
	return ws
}

func benchExec(b *testing.B, ws *vfs.Workspace) *core.Executor {
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ex
}

// chain makes a chain of depth directories d/d/.../d with a file
// leaf.txt holding a needle at the bottom.
func chain(depth int) func(mk func(string, []byte)) {
	return func(mk func(string, []byte)) {
		name := ""
		for range depth {
			name = strings.TrimPrefix(name+"/d", "/")
			mk(name, nil)
		}
		mk(name+"/leaf.txt", []byte("needle\n"))
	}
}

// BenchmarkWalkDeep is find and grep of the one file at the bottom of a
// chain of 1000 and 2000 directories (a path of 4019 bytes, near the
// cap): the walk goes all the way down.
func BenchmarkWalkDeep(b *testing.B) {
	for _, c := range []struct{ tool, args string }{
		{"find", `{"pattern":"**/leaf.txt"}`},
		{"grep", `{"query":"needle"}`},
	} {
		for _, st := range walkStores {
			for _, depth := range []int{1000, 2000} {
				b.Run(fmt.Sprintf("%s/%s/depth=%d", c.tool, st.name, depth), func(b *testing.B) {
					ex := benchExec(b, st.open(b, chain(depth)))
					b.ReportAllocs()
					benchCall(b, ex, c.tool, c.args, func(s string) bool { return strings.Contains(s, `"count":1,`) })
				})
			}
		}
	}
}

// wide makes directory big holding n empty files.
func wide(n int) func(mk func(string, []byte)) {
	return func(mk func(string, []byte)) {
		mk("big", nil)
		for i := range n {
			mk(fmt.Sprintf("big/f%07d", i), []byte{})
		}
	}
}

// BenchmarkLsBig is ls of the first page (200 entries) and of a page deep
// in (offset 150000) of a directory of 200,000 files.
func BenchmarkLsBig(b *testing.B) {
	for _, st := range walkStores {
		b.Run(st.name, func(b *testing.B) {
			ex := benchExec(b, st.open(b, wide(200_000)))
			b.Run("first", func(b *testing.B) {
				b.ReportAllocs()
				benchCall(b, ex, "ls", `{"path":"/workspace/big"}`, func(s string) bool { return strings.Contains(s, `"name":"f0000000"`) })
			})
			b.Run("offset=150000", func(b *testing.B) {
				b.ReportAllocs()
				benchCall(b, ex, "ls", `{"path":"/workspace/big","offset":150000}`, func(s string) bool { return strings.Contains(s, `"name":"f0150000"`) })
			})
		})
	}
}

// BenchmarkFindLimit1Big is find with limit 1 in a directory of 100,000
// files.
func BenchmarkFindLimit1Big(b *testing.B) {
	for _, st := range walkStores {
		b.Run(st.name, func(b *testing.B) {
			ex := benchExec(b, st.open(b, wide(100_000)))
			b.ReportAllocs()
			benchCall(b, ex, "find", `{"pattern":"**","path":"/workspace/big","limit":1}`, func(s string) bool { return strings.Contains(s, `"path":"/workspace/big/f0000000"`) })
		})
	}
}
