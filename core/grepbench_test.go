package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// BenchmarkGrepTree2000 is the grep rows of the oracle's tree-2000 bench
// case on memfs: 2000 files of 200 lines in directories of 10.
func BenchmarkGrepTree2000(b *testing.B) {
	ex := tree2000(b)
	for _, c := range []struct{ name, args, want string }{
		{"literal", `{"path":"/workspace/src","query":"v123456 :="}`, `"count":1,`},
		{"regex", `{"path":"/workspace/src","query":"v1234[0-9]{2} := f\\(","regex":true}`, `"count":100,`},
		{"ignoreCase", `{"path":"/workspace/src","query":"V123456 := F(","ignoreCase":true}`, `"count":1,`},
		{"dense", `{"path":"/workspace/src","query":":= f("}`, `"count":200,`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			benchCall(b, ex, "grep", c.args, func(s string) bool { return strings.Contains(s, c.want) })
		})
	}
}

// BenchmarkFindTree2000 is the find rows of the oracle's tree-2000 bench
// case on memfs: the first page of "**/*.go", and every page of it.
func BenchmarkFindTree2000(b *testing.B) {
	ex := tree2000(b)
	b.Run("first-page", func(b *testing.B) {
		b.ReportAllocs()
		benchCall(b, ex, "find", `{"path":"/workspace/src","pattern":"**/*.go"}`, func(s string) bool {
			return strings.Contains(s, `"count":200,`) && strings.HasSuffix(s, `"nextOffset":200}`)
		})
	})
	b.Run("page-through", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for offset := 0; ; offset += 200 {
				out, err := ex.Call(b.Context(), "find", fmt.Appendf(nil, `{"path":"/workspace/src","pattern":"**/*.go","offset":%d}`, offset))
				if err != nil || !strings.Contains(string(out.JSON), `"count":`) {
					b.Fatalf("find: %.300s %v", out.JSON, err)
				}
				if !strings.Contains(string(out.JSON), `"nextOffset"`) {
					break
				}
			}
		}
	})
	b.Run("no-match", func(b *testing.B) {
		b.ReportAllocs()
		benchCall(b, ex, "find", `{"path":"/workspace/src","pattern":"**/*.none"}`, func(s string) bool { return strings.Contains(s, `"count":0`) })
	})
}

// tree2000 is an executor over the oracle's tree-2000 bench case on
// memfs: 2000 files of 200 lines in directories of 10.
func tree2000(b *testing.B) *core.Executor {
	ws := vfs.New(memfs.New())
	exts := []string{".go", ".ts", ".go", ".md", ".go"}
	n := 0
	for i := range 2000 {
		var text strings.Builder
		for range 200 {
			fmt.Fprintf(&text, "\tv%d := f(%d) // line %d\n", n, n, n)
			n++
		}
		p := fmt.Sprintf("/workspace/src/pkg%d/file%d_%d%s", i/10, i%10, i, exts[i%len(exts)])
		if err := ws.WriteFile(b.Context(), p, []byte(text.String()), vfs.WriteOptions{CreateParents: true}); err != nil {
			b.Fatal(err)
		}
	}
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ex
}
