package hostfs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

// TestEntriesWindowIsAReading checks the entries a handle answers from
// the window it kept against a fresh reading of the directory, for many
// bounds and counts in a random order, over a directory larger than the
// window: the window gives exactly what a reading gives.
func TestEntriesWindowIsAReading(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 3*windowMin + 17 {
		name := fmt.Sprintf("e%05d", (i*7919)%100000)
		names = append(names, name)
		if i%50 == 0 {
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)
	f, d := openRoot(t, dir)
	defer d.Close()
	// First at the window's edges: windowMin+1 names and then windowMin
	// follow the bound of the first reading.
	fixed := []struct {
		after string
		n     int
	}{
		{names[len(names)-windowMin-2], 1}, {names[len(names)-3], 5},
		{names[len(names)-windowMin-1], 1}, {names[len(names)-3], 5},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	after := ""
	for step := range 600 + len(fixed) {
		n := []int{-1, 0, 1, 3, 64, 200, windowMin - 1, windowMin, 2 * windowMin}[rng.IntN(9)]
		switch r := rng.IntN(4); {
		case step < len(fixed):
			after, n = fixed[step].after, fixed[step].n
		case r == 0: // the walk's way: on from the last name
		case r == 1:
			after = names[rng.IntN(len(names))]
		case r == 2:
			after = names[rng.IntN(len(names))] + "x" // between two names
		case r == 3:
			after = ""
		}
		got, err := d.Entries(t.Context(), after, n)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := f.openDir("")
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := fresh.scan(t.Context(), after, n, true)
		fresh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: Entries(%q, %d) = %d entries %v..., a reading gives %d %v...", step, after, n, len(got), head(got), len(want), head(want))
		}
		if len(got) > 0 {
			after = got[len(got)-1].Name
		}
	}
}

func head(e []vfs.DirEntry) []vfs.DirEntry { return e[:min(len(e), 3)] }

// openRoot opens the host directory dir as a store (closed when the test
// ends) and its root as a handle (the caller closes it).
func openRoot(t *testing.T, dir string) (*FS, *dir) {
	t.Helper()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	d, err := f.openDir("")
	if err != nil {
		t.Fatal(err)
	}
	return f, d
}
