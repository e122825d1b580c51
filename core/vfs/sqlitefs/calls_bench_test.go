package sqlitefs_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// BenchmarkToolCallAfterChange times find, grep and ls over sqlitefs
// each right after a change to the tree (a file written elsewhere), so
// that no listing kept from the call before serves it: the cost of the
// first call after an edit. The change itself is not timed.
func BenchmarkToolCallAfterChange(b *testing.B) {
	ctx := b.Context()
	s, err := sqlitefs.Open(filepath.Join(b.TempDir(), "ws.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ws := vfs.New(s)
	for d := range 200 {
		for i := range 10 {
			if err := ws.WriteFile(ctx, fmt.Sprintf("/workspace/src/pkg%d/file%d.go", d, i), []byte("\tv1 := f(1) // line 1\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := range 2000 {
		if err := ws.WriteFile(ctx, fmt.Sprintf("/workspace/flat/entry-%d.txt", i), []byte("x\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
			b.Fatal(err)
		}
	}
	e, err := core.New(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	calls := []struct {
		name string
		call func() (toolspec.Output, error)
	}{
		{"find-first-page", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.go"})
		}},
		{"find-full-walk", func() (toolspec.Output, error) {
			return e.Find(ctx, toolspec.FindArgs{Path: "/workspace/src", Pattern: "**/*.none"})
		}},
		{"grep-first-page", func() (toolspec.Output, error) {
			return e.Grep(ctx, toolspec.GrepArgs{Path: "/workspace/src", Query: "v1 :="})
		}},
		{"ls-first-page", func() (toolspec.Output, error) { return e.Ls(ctx, toolspec.LsArgs{Path: "/workspace/flat"}) }},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				if err := ws.WriteFile(ctx, "/workspace/other.txt", []byte(fmt.Sprint(i)), vfs.WriteOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := c.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
