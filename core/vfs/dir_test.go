package vfs_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

// TestSmallest: Smallest keeps what sorting every name and cutting would
// keep, whatever the order names come in.
func TestSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var names []string
		for range rng.IntN(50) {
			names = append(names, fmt.Sprintf("n%03d", rng.IntN(100)))
		}
		names = slices.Compact(slices.Sorted(slices.Values(names)))
		after := ""
		if rng.IntN(2) == 0 {
			after = fmt.Sprintf("n%03d", rng.IntN(100))
		}
		n := rng.IntN(12) - 1
		var want []string
		for _, name := range names {
			if name > after && (n < 0 || len(want) < n) {
				want = append(want, name)
			}
		}
		keep := vfs.NewSmallest(after, n)
		for _, i := range rng.Perm(len(names)) {
			keep.Offer(vfs.DirEntry{Name: names[i]})
		}
		var got []string
		for _, e := range keep.Sorted() {
			got = append(got, e.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: first %d after %q of %v = %v, want %v", round, n, after, names, got, want)
		}
	}
}
