package core_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// countingStore is a memfs store that counts the work a tool asks of
// it: steps, the name elements it is handed (each one a lookup for a
// store that resolves names from its root, as os.Root does on a host,
// and one for each name handed to an open directory), listings of a
// whole directory, the most entries one listing returned, and the most
// directories open at once.
type countingStore struct {
	*memfs.FS
	mu        sync.Mutex
	steps     int
	wholeDirs int
	largest   int
	open      int
	mostOpen  int
}

// opened counts a directory handle opened (n = 1) or closed (n = -1).
func (s *countingStore) opened(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open += n
	s.mostOpen = max(s.mostOpen, s.open)
}

func (s *countingStore) count(name string, entries int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name != "" {
		s.steps += strings.Count(name, "/") + 1
	}
	s.largest = max(s.largest, entries)
}

func (s *countingStore) Lstat(ctx context.Context, name string) (vfs.Info, error) {
	s.count(name, 0)
	return s.FS.Lstat(ctx, name)
}

func (s *countingStore) ReadDir(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	out, err := s.FS.ReadDir(ctx, name, offset, limit)
	s.count(name, len(out))
	if limit < 0 {
		s.mu.Lock()
		s.wholeDirs++
		s.mu.Unlock()
	}
	return out, err
}

func (s *countingStore) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	s.count(name, 0)
	return s.FS.Open(ctx, name, offset)
}

// TestWalkLinearInDepth: find and grep down a chain of directories ask
// the store for work in proportion to the entries walked, not to the
// square of the depth (each step resolving the whole path again).
func TestWalkLinearInDepth(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"find", `{"pattern":"**/leaf.txt"}`},
		{"grep", `{"query":"needle"}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			steps := map[int]int{}
			for _, depth := range []int{100, 400} {
				s := &countingStore{FS: memfs.New()}
				files := map[string]string{"/workspace" + strings.Repeat("/d", depth) + "/leaf.txt": "needle\n"}
				ex := newExecOn(t, s, core.Options{}, files)
				s.steps = 0
				if out := call(t, ex, c.tool, c.args); !strings.Contains(string(out.JSON), `"count":1,`) {
					t.Fatalf("depth %d: %s", depth, out.JSON)
				}
				steps[depth] = s.steps
			}
			// Linear: 4 times the depth, about 4 times the steps; the
			// square would be 16 times.
			if steps[400] > 5*steps[100] {
				t.Errorf("%s asked the store for %d name lookups at depth 100 and %d at depth 400: not linear in the depth", c.tool, steps[100], steps[400])
			}
		})
	}
}

// TestWalkLinearInComb: find and grep down a comb (each directory holds
// a/, where the chain goes on, and b/, visited after it) ask the store
// for work in proportion to the entries walked, however deep, and hold
// a bounded number of directories open: a directory the walk closed
// while below it is opened again from a nearby open one, not by its
// whole path. With the default span of open directories and with a
// tiny one (many checkpoints).
func TestWalkLinearInComb(t *testing.T) {
	for _, span := range []int{0, 4} {
		for _, c := range []struct{ tool, args string }{
			{"find", `{"pattern":"**/zzz"}`},
			{"grep", `{"query":"needle"}`},
		} {
			t.Run(fmt.Sprintf("%s/span%d", c.tool, span), func(t *testing.T) {
				if span > 0 {
					defer core.SetWalkHeldDirs(span)()
				}
				steps := map[int]int{}
				for _, depth := range []int{300, 1200} {
					s := &countingStore{FS: memfs.New()}
					// Built through the store: the workspace resolves
					// each path from the root, which is slow this deep.
					ctx, dir := t.Context(), "workspace"
					for range depth {
						if err := errors.Join(s.Mkdir(ctx, dir, 0o755), s.Mkdir(ctx, dir+"/b", 0o755)); err != nil {
							t.Fatal(err)
						}
						dir += "/a"
					}
					if err := errors.Join(s.Mkdir(ctx, dir, 0o755), s.WriteFile(ctx, dir+"/zzz", strings.NewReader("needle\n"), 0o644)); err != nil {
						t.Fatal(err)
					}
					ex := newExecOn(t, s, core.Options{}, nil)
					s.steps, s.open, s.mostOpen = 0, 0, 0
					if out := call(t, ex, c.tool, c.args); !strings.Contains(string(out.JSON), `"count":1,`) {
						t.Fatalf("depth %d: %s", depth, out.JSON)
					}
					steps[depth] = s.steps
					t.Logf("depth %d: %d steps, %d open at most", depth, s.steps, s.mostOpen)
					if s.open != 0 || s.mostOpen > 300 {
						t.Errorf("depth %d: %d directories left open, %d open at once; want 0 and at most 300", depth, s.open, s.mostOpen)
					}
				}
				// Linear: 4 times the depth, about 4 times the steps
				// (a little more with the checkpoints); the square
				// would be 16 times.
				if steps[1200] > 6*steps[300] {
					t.Errorf("%s asked the store for %d name lookups at depth 300 and %d at depth 1200: not linear in the depth", c.tool, steps[300], steps[1200])
				}
			})
		}
	}
}

// TestFindLimitHoldsPage: find with limit 1 in a directory of 5000
// entries lists a chunk of it, not the whole directory.
func TestFindLimitHoldsPage(t *testing.T) {
	files := map[string]string{}
	for i := range 5000 {
		files[fmt.Sprintf("/workspace/big/f%05d", i)] = ""
	}
	s := &countingStore{FS: memfs.New()}
	ex := newExecOn(t, s, core.Options{}, files)
	s.wholeDirs, s.largest = 0, 0
	out := call(t, ex, "find", `{"pattern":"**","path":"/workspace/big","limit":1}`)
	if !strings.Contains(string(out.JSON)+out.Text, `/workspace/big/f00000`) {
		t.Fatalf("find: %s%s", out.JSON, out.Text)
	}
	if s.wholeDirs > 0 || s.largest > 100 {
		t.Errorf("find with limit 1 listed %d whole directories, at most %d entries at once; want none whole and at most 100", s.wholeDirs, s.largest)
	}
}

// TestWalkPassesOverLongPaths: find and grep down a chain deeper than a
// path may be long pass over every entry whose path is longer than
// toolspec.WorkspaceMaxPathBytesDefault (deviation pathLength), and all below
// it: what they report can be named in a call, and a chain twice as
// deep costs the store no more.
func TestWalkPassesOverLongPaths(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"find", `{"pattern":"**/leaf.txt"}`},
		{"grep", `{"query":"needle"}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			steps := map[int]int{}
			for _, depth := range []int{3000, 6000} {
				s := &countingStore{FS: memfs.New()}
				ctx, dir := t.Context(), "workspace"
				for i := range depth {
					if err := s.Mkdir(ctx, dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if i == 1000 || i == depth-1 {
						if err := s.WriteFile(ctx, dir+"/leaf.txt", strings.NewReader("needle\n"), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					dir += "/d"
				}
				ex := newExecOn(t, s, core.Options{}, nil)
				s.steps = 0
				out := call(t, ex, c.tool, c.args)
				var got struct {
					Count   int
					Matches []struct{ Path string }
					Entries []struct{ Path string }
				}
				mustJSON(t, out.JSON, &got)
				if got.Count != 1 {
					t.Errorf("depth %d: count %d, want the one leaf within the cap: %.300s", depth, got.Count, out.JSON)
				}
				for _, m := range append(got.Matches, got.Entries...) {
					if int64(len(m.Path)) > toolspec.WorkspaceMaxPathBytesDefault {
						t.Errorf("depth %d: a path of %d bytes reported", depth, len(m.Path))
					}
				}
				steps[depth] = s.steps
			}
			if steps[6000] > steps[3000]+steps[3000]/10 {
				t.Errorf("%s asked the store for %d name lookups at depth 3000 and %d at depth 6000: it went below the cap", c.tool, steps[3000], steps[6000])
			}
		})
	}
}

// TestWalkPathCapBoundary: an entry whose path is exactly the cap long
// is listed, one a byte longer is not, at the top of the walk from "/"
// and deeper down.
func TestWalkPathCapBoundary(t *testing.T) {
	limit := int(toolspec.WorkspaceMaxPathBytesDefault)
	s := memfs.New()
	ctx := t.Context()
	mk := func(name string, dir bool) {
		var err error
		if dir {
			err = s.Mkdir(ctx, name, 0o755)
		} else {
			err = s.WriteFile(ctx, name, strings.NewReader("needle\n"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// At the top: "/" and the name.
	mk(strings.Repeat("a", limit-1), false)
	mk(strings.Repeat("b", limit), false)
	// Below: "/d/" and the name.
	mk("d", true)
	mk("d/"+strings.Repeat("c", limit-3), false)
	mk("d/"+strings.Repeat("e", limit-2), false)
	ex := newExecOn(t, s, core.Options{}, nil)
	for _, c := range []struct{ tool, args string }{
		{"find", `{"path":"/","pattern":"**"}`},
		{"grep", `{"path":"/","query":"needle"}`},
	} {
		var got struct {
			Matches []struct{ Path string }
			Entries []struct{ Path string }
		}
		mustJSON(t, call(t, ex, c.tool, c.args).JSON, &got)
		var lens []int
		for _, m := range append(got.Matches, got.Entries...) {
			lens = append(lens, len(m.Path))
		}
		want := []int{limit, 2, limit}
		if c.tool == "grep" {
			want = []int{limit, limit}
		}
		if !slices.Equal(lens, want) {
			t.Errorf("%s: paths of %v bytes, want %v", c.tool, lens, want)
		}
	}
}
