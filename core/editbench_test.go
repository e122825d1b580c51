package core_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// BenchmarkEdit50MB edits one line in the middle of a 50 MB file of text
// lines on memfs, with edit's size cap raised to 64 MiB (the scale row
// of issue 14: ≤ 300 ms and ≤ 3× the file in memory). Each iteration
// changes the line back and forth. Besides time and allocation it
// reports peak-MB: the most heap the call held above what was live
// before it (sampled every 100 µs), which includes the new content the
// store keeps.
func BenchmarkEdit50MB(b *testing.B) {
	const size = 50 << 20
	var text strings.Builder
	text.Grow(size + 100)
	n := 0
	for text.Len() < size {
		n++
		fmt.Fprintf(&text, "%d: lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do\n", n)
	}
	mid := n / 2
	ws := vfs.New(memfs.New())
	ctx := context.Background()
	if err := ws.WriteFile(ctx, "/workspace/e.txt", []byte(text.String()), vfs.WriteOptions{CreateParents: true}); err != nil {
		b.Fatal(err)
	}
	text.Reset()
	ex, err := core.New(ws, core.Options{Edit: core.EditOptions{MaxBytes: 64 << 20}})
	if err != nil {
		b.Fatal(err)
	}
	from, to := fmt.Sprintf(`\n%d: lorem ipsum dolor`, mid), fmt.Sprintf(`\n%d: LOREM IPSUM edited`, mid)
	edit := func(old, new string) {
		out, err := ex.Call(ctx, "edit", []byte(`{"path":"/workspace/e.txt","edits":[{"oldText":"`+old+`","newText":"`+new+`"}]}`))
		if err != nil || out.IsError() {
			b.Fatalf("edit: %v %s", err, out.AsText())
		}
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	var peak uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		runtime.GC()
		base := heap()
		var top atomic.Uint64
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(100 * time.Microsecond)
			defer t.Stop()
			for {
				if h := heap(); h > top.Load() {
					top.Store(h)
				}
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		b.StartTimer()
		if i%2 == 0 {
			edit(from, to)
		} else {
			edit(to, from)
		}
		b.StopTimer()
		close(done)
		if h := heap(); h > top.Load() {
			top.Store(h)
		}
		peak = max(peak, top.Load()-min(base, top.Load()))
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}
