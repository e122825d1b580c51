package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

// testListingFollowsChanges lists a directory between random changes
// (files and directories made, files replaced, entries removed), in
// bursts of listings, with ReadDir pages and, for a DirOpener, with a
// handle's Entries, and checks each listing against a plain model of
// the directory: a store that keeps listings (sorted names, a window)
// must drop what a change made stale.
func testListingFollowsChanges(t *testing.T, s vfs.Store) {
	ctx := t.Context()
	mustMkdir(t, s, "d", 0o755)
	model := map[string]vfs.FileType{}
	pool := []string{"a", "b", "B", "a-b", "a.b", "ab", "z", "é", "~", "0", "a0", "zz", "\u2028x"}
	for i := range 30 {
		pool = append(pool, fmt.Sprintf("f%02d", i))
	}
	sorted := func() []vfs.DirEntry {
		var out []vfs.DirEntry
		for name, typ := range model {
			out = append(out, vfs.DirEntry{Name: name, Type: typ})
		}
		slices.SortFunc(out, func(a, b vfs.DirEntry) int { return strings.Compare(a.Name, b.Name) })
		return out
	}
	o, _ := s.(vfs.DirOpener)
	rng := rand.New(rand.NewPCG(7, 14))
	for step := range 300 {
		name := pool[rng.IntN(len(pool))]
		typ, exists := model[name]
		switch op := rng.IntN(4); {
		case op == 0 && !exists:
			mustWrite(t, s, "d/"+name, "x", 0o644)
			model[name] = vfs.TypeFile
		case op == 1 && !exists:
			mustMkdir(t, s, "d/"+name, 0o755)
			model[name] = vfs.TypeDir
		case op == 2 && exists && typ == vfs.TypeFile:
			mustWrite(t, s, "d/"+name, "yy", 0o644)
		case op == 3 && exists:
			if err := s.Remove(ctx, "d/"+name); err != nil {
				t.Fatal(err)
			}
			delete(model, name)
		}
		want := sorted()
		for range 1 + rng.IntN(3) {
			offset, limit := rng.IntN(len(want)+2), []int{-1, 0, 1, 2, 5, 100}[rng.IntN(6)]
			page, err := s.ReadDir(ctx, "d", offset, limit)
			if err != nil {
				t.Fatal(err)
			}
			w := want[min(offset, len(want)):]
			if limit >= 0 && limit < len(w) {
				w = w[:limit]
			}
			var got []vfs.DirEntry
			for _, i := range page {
				got = append(got, vfs.DirEntry{Name: i.Name, Type: i.Type})
			}
			if !slices.Equal(got, w) {
				t.Fatalf("step %d: ReadDir(d, %d, %d) = %v, want %v", step, offset, limit, got, w)
			}
			if o == nil {
				continue
			}
			after := ""
			if len(want) > 0 && rng.IntN(2) == 0 {
				after = want[rng.IntN(len(want))].Name
			}
			h, err := o.OpenDir(ctx, "d")
			if err != nil {
				t.Fatal(err)
			}
			entries, err := h.Entries(ctx, after, limit)
			h.Close()
			if err != nil {
				t.Fatal(err)
			}
			i, found := slices.BinarySearchFunc(want, after, func(e vfs.DirEntry, name string) int { return strings.Compare(e.Name, name) })
			if found {
				i++
			}
			w = want[i:]
			if limit >= 0 && limit < len(w) {
				w = w[:limit]
			}
			if len(entries) == 0 && len(w) == 0 {
				continue
			}
			if !slices.Equal(entries, w) {
				t.Fatalf("step %d: Entries(%q, %d) = %v, want %v", step, after, limit, entries, w)
			}
		}
	}
}
