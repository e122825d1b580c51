package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/gen"

	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
)

// BenchmarkReadFirstPageOf1GiB reads the first page of a 1 GiB host file:
// 1 MiB of text lines, then a sparse hole up to 1 GiB. read streams, so
// the time and the bytes allocated do not depend on the file's size.
func BenchmarkReadFirstPageOf1GiB(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.log")
	var text strings.Builder
	for i := 1; text.Len() < 1<<20; i++ {
		fmt.Fprintf(&text, "line %d of the log, with some padding to look like real output\n", i)
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
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
	args := []byte(`{"path":"/workspace/big.log"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := ex.Call(b.Context(), gen.ToolRead, args)
		if err != nil {
			b.Fatal(err)
		}
		if out.Kind != gen.OutputJSON || !strings.Contains(string(out.JSON), `"nextOffset":2001`) {
			b.Fatalf("unexpected first page: %.200s", out.JSON)
		}
	}
}

// BenchmarkReadLongLine1GiB reads a host file that is one 1 GiB line: a
// few bytes of text, then a sparse hole. The line is longer than the
// read cap, so read answers that it is too long, after reading the cap
// and a byte past it rather than the whole line.
func BenchmarkReadLongLine1GiB(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "line.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
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
	args := []byte(`{"path":"/workspace/line.txt"}`)
	want := gen.MsgReadLineTooLong(1, gen.ReadMaxBytesDefault)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := ex.Call(b.Context(), gen.ToolRead, args)
		if err != nil {
			b.Fatal(err)
		}
		if out.Kind != gen.OutputErrorText || out.Text != want {
			b.Fatalf("unexpected answer: %.200s", out.Text)
		}
	}
}
