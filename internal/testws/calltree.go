package testws

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

// CallTree writes the tree on which the tests that count a store's work
// per tool call run: /workspace/small.txt (10 lines), /workspace/flat
// holding 300 files e000.txt to e299.txt, and /workspace/src holding 20
// directories pkg0 to pkg19 of 10 files f0.go to f9.go each.
func CallTree(tb testing.TB, ws *vfs.Workspace) {
	tb.Helper()
	ctx := context.Background()
	files := map[string]string{"/workspace/small.txt": strings.Repeat("a line\n", 10)}
	for i := range 300 {
		files[fmt.Sprintf("/workspace/flat/e%03d.txt", i)] = "x\n"
	}
	for d := range 20 {
		for i := range 10 {
			files[fmt.Sprintf("/workspace/src/pkg%d/f%d.go", d, i)] = "package p\n"
		}
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := ws.WriteFile(ctx, p, []byte(files[p]), vfs.WriteOptions{CreateParents: true}); err != nil {
			tb.Fatal(err)
		}
	}
}
