package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"

	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
)

// BenchmarkReadFirstPageOf1GiB reads the first page of a 1 GiB host file:
// 1 MiB of text lines, then a sparse hole up to 1 GiB. read streams, so
// the time and the bytes allocated do not depend on the file's size.
func BenchmarkReadFirstPageOf1GiB(b *testing.B) {
	var text strings.Builder
	for i := 1; text.Len() < 1<<20; i++ {
		fmt.Fprintf(&text, "line %d of the log, with some padding to look like real output\n", i)
	}
	benchSparseRead(b, "big.log", text.String(), func(out toolspec.Output) bool {
		return out.Kind == toolspec.OutputJSON && strings.Contains(string(out.JSON), `"nextOffset":2001`)
	})
}

// BenchmarkReadLongLine1GiB reads a host file that is one 1 GiB line: a
// few bytes of text, then a sparse hole. The line is longer than the
// read cap, so read answers that it is too long, after reading the cap
// and a byte past it rather than the whole line.
func BenchmarkReadLongLine1GiB(b *testing.B) {
	want := toolspec.MsgReadLineTooLong(1, toolspec.ReadMaxBytesDefault)
	benchSparseRead(b, "line.txt", "hello", func(out toolspec.Output) bool {
		return out.Kind == toolspec.OutputErrorText && out.Text == want
	})
}

// benchSparseRead times read of /workspace/NAME, a 1 GiB host file that
// holds prefix and then a sparse hole; ok checks each answer.
func benchSparseRead(b *testing.B, name, prefix string, ok func(toolspec.Output) bool) {
	dir := b.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(prefix), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		b.Fatal(err)
	}
	ws, _ := testws.Host(b, dir)
	ex, err := core.New(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"path":"/workspace/` + name + `"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := ex.Call(b.Context(), toolspec.ToolRead, args)
		if err != nil {
			b.Fatal(err)
		}
		if !ok(out) {
			b.Fatalf("unexpected answer: %.200s%.200s", out.Text, out.JSON)
		}
	}
}

// BenchmarkReadRows is the bench's read rows on memfs and on a host
// directory: the first page of 100,000 lines of 60 bytes, and a file
// that is one 1 MiB line (over the read cap).
func BenchmarkReadRows(b *testing.B) {
	var big strings.Builder
	for n := 1; n <= 100000; n++ {
		fmt.Fprintf(&big, "%d: lorem ipsum dolor sit amet, consectetur adipiscing elit\n", n)
	}
	files := map[string]string{"big.txt": big.String(), "oneline.txt": strings.Repeat("x", 1<<20)}
	for _, st := range benchStores[:2] {
		ws := st.open(b)
		for name, content := range files {
			if err := ws.WriteFile(b.Context(), "/workspace/"+name, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
				b.Fatal(err)
			}
		}
		ex, err := core.New(ws, core.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(st.name+"/first-page", func(b *testing.B) {
			b.ReportAllocs()
			benchCall(b, ex, "read", `{"path":"/workspace/big.txt"}`, func(s string) bool { return strings.HasSuffix(s, `"nextByteOffset":122893}`) })
		})
		b.Run(st.name+"/1MiB-single-line", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := ex.Call(b.Context(), "read", []byte(`{"path":"/workspace/oneline.txt"}`))
				if err != nil || !strings.Contains(out.Text, "exceeds the 262144-byte read cap") {
					b.Fatalf("%q %v", out.Text, err)
				}
			}
		})
	}
}
