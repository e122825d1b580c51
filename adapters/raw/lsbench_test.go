package raw_test

import (
	"fmt"
	"testing"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// BenchmarkLs2000 is the bench's ls rows on memfs as the bench times
// them (Execute, then ModelOutput): a directory of 2000 files, the first
// page of 200 and a page of 1000.
func BenchmarkLs2000(b *testing.B) {
	ws := vfs.New(memfs.New())
	for i := range 2000 {
		if err := ws.WriteFile(b.Context(), fmt.Sprintf("/workspace/flat/entry-%d.txt", i), fmt.Appendf(nil, "entry %d\n", i), vfs.WriteOptions{CreateParents: true}); err != nil {
			b.Fatal(err)
		}
	}
	tools, err := raw.New(ws, agenttools.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, args string }{
		{"first-page", `{"path":"/workspace/flat"}`},
		{"limit-1000", `{"path":"/workspace/flat","limit":1000}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := tools.Execute(b.Context(), "ls", []byte(c.args))
				if err != nil {
					b.Fatal(err, out.AsText())
				}
				raw.ModelOutput(out)
			}
		})
	}
}
