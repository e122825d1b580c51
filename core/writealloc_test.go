package core_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
)

// writeArgs is a write call's arguments with about size bytes of content
// in lines, each ending in an escaped newline (as the bench case
// write-1mib sends them), and the content's length once decoded.
func writeArgs(size int) (args []byte, decoded int) {
	var content strings.Builder
	for n := 1; content.Len() < size; n++ {
		fmt.Fprintf(&content, "%d lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do\\n", n)
	}
	lines := strings.Count(content.String(), `\n`)
	return []byte(`{"path":"/workspace/out/w.txt","content":"` + content.String() + `"}`), content.Len() - lines
}

// memfsWriteExec is an executor over memfs with /workspace/out made.
func memfsWriteExec(tb testing.TB) *core.Executor {
	tb.Helper()
	ex, ws := memTools(tb)
	if err := ws.Mkdir(tb.Context(), "/workspace/out", vfs.MkdirOptions{}); err != nil {
		tb.Fatal(err)
	}
	return ex
}

// TestWriteKeepsDecodedContent: on memfs a write call allocates its
// content's bytes once (the decoded argument string, which the store keeps
// as the file), not a copy more on the way from the JSON argument to the
// file. Bytes allocated per call are counted (runtime.MemStats), the least
// of several rounds so that another goroutine's allocations do not count.
func TestWriteKeepsDecodedContent(t *testing.T) {
	args, size := writeArgs(1 << 20)
	ex := memfsWriteExec(t)
	call := func() {
		out, err := ex.Call(t.Context(), "write", args)
		if err != nil || out.IsError() {
			t.Fatal(err, out.AsText())
		}
	}
	call()
	const calls = 4
	least := uint64(1 << 62)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range calls {
			call()
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/calls)
	}
	// One content, plus the call's small allocations (paths, locks, the
	// result): far less than a second copy.
	if limit := uint64(size) + uint64(size)/8; least > limit {
		t.Errorf("a write of %d bytes allocates %d bytes per call, want at most %d (one content)", size, least, limit)
	}
}

// BenchmarkWriteCall1MiB is a write call of 1 MiB of content on memfs
// through Call (the bench row write-1MiB): time, bytes and allocations
// per call.
func BenchmarkWriteCall1MiB(b *testing.B) {
	args, _ := writeArgs(1 << 20)
	ex := memfsWriteExec(b)
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := ex.Call(b.Context(), "write", args)
		if err != nil || out.IsError() {
			b.Fatal(err, out.AsText())
		}
	}
}

// BenchmarkLsLimit1000 is ls of 1000 entries of a directory of 2000
// (the bench row ls-limit-1000) on memfs and sqlitefs: time, bytes and
// allocations per call.
func BenchmarkLsLimit1000(b *testing.B) {
	for _, st := range walkStores {
		if st.name == "hostfs" {
			continue
		}
		b.Run(st.name, func(b *testing.B) {
			ex := benchExec(b, st.open(b, func(mk func(string, []byte)) {
				mk("flat", nil)
				for i := range 2000 {
					mk(fmt.Sprintf("flat/entry-%d.txt", i), fmt.Appendf(nil, "entry %d\n", i))
				}
			}))
			b.ReportAllocs()
			benchCall(b, ex, "ls", `{"path":"/workspace/flat","limit":1000}`, func(s string) bool { return strings.Contains(s, `"name":"entry-1.txt"`) })
		})
	}
}
