// Tests of lookups through a vfs.PathStatter: the same answers as one
// Lstat per element, in one store call per run of plain elements.

package vfs_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// pathStore is a memfs that is a vfs.PathStatter, built on its Lstat,
// counting the calls the Workspace makes of each.
type pathStore struct {
	*memfs.FS
	lstats, paths atomic.Int64
}

func (s *pathStore) Lstat(ctx context.Context, name string) (vfs.Info, error) {
	s.lstats.Add(1)
	return s.FS.Lstat(ctx, name)
}

func (s *pathStore) LstatPath(ctx context.Context, name string, elems []string) ([]vfs.Info, error) {
	s.paths.Add(1)
	var out []vfs.Info
	for i := -1; i < len(elems); i++ {
		if i >= 0 {
			if name != "" {
				name += "/"
			}
			name += elems[i]
		}
		info, err := s.FS.Lstat(ctx, name)
		if errno.CodeOf(err) == errno.ENOENT {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(out, info)
		if info.Type != vfs.TypeDir {
			break
		}
	}
	return out, nil
}

// describe is what a workspace answers about path: Stat, Lstat and
// Resolve, and Mkdir of a directory below it, errors included.
func describe(ctx context.Context, ws *vfs.Workspace, path string) string {
	var b strings.Builder
	info, err := ws.Stat(ctx, path)
	fmt.Fprintf(&b, "stat %+v %v\n", info, err)
	info, err = ws.Lstat(ctx, path)
	fmt.Fprintf(&b, "lstat %+v %v\n", info, err)
	loc, err := ws.Resolve(ctx, path)
	fmt.Fprintf(&b, "resolve %+v %v\n", loc, err)
	err = ws.Mkdir(ctx, path+"/new/deeper", vfs.MkdirOptions{Recursive: true})
	fmt.Fprintf(&b, "mkdir %v\n", err)
	return b.String()
}

func TestPathStatterSameAnswers(t *testing.T) {
	ctx := t.Context()
	tree := append([]op{
		dir("/m/inside/deep"),
		link("/m/inside/out", "/d/sub"),
		link("/m/inside/up", "../.."),
		link("/tomount", "/m/inside"),
		link("/loop1", "/loop2"),
		link("/loop2", "/loop1/x"),
		file("/m/inside/deep/f", "x"),
	}, symlinkTree...)
	paths := []string{
		"/", "/d", "/d/f", "/d/f/x", "/d/missing/x", "/abs", "/d/rel", "/d/sub/up", "/d/sub/far",
		"/d/sub/toroot/d/f", "/dirlink/sub/up", "/d/sub/parent/f", "/chain", "/dangling", "/dangling/x",
		"/d/viafile", "/d/slash", "/d/dotted", "/rootlink/rootlink/dirlink/rel", "/dirlink/../d/f",
		"/m", "/m/inside/deep/f", "/m/inside/out/up", "/m/inside/up/d/f", "/tomount/deep/f",
		"/tomount/up/m/inside/deep", "/loop1", "/loop1/a/b", "/m/inside/deep/f/g",
	}
	build := func(ps bool) (*vfs.Workspace, *pathStore, *pathStore) {
		clock := memfs.WithClock(func() time.Time { return time.UnixMilli(1e12) })
		root, mounted := &pathStore{FS: memfs.New(clock)}, &pathStore{FS: memfs.New(clock)}
		var ws *vfs.Workspace
		if ps {
			ws = vfs.New(root)
		} else {
			ws = vfs.New(root.FS)
		}
		var m vfs.Store = mounted.FS
		if ps {
			m = mounted
		}
		if err := ws.Mount(ctx, "/m", m, vfs.MountOptions{}); err != nil {
			t.Fatal(err)
		}
		apply(t, ws, tree...)
		root.lstats.Store(0)
		mounted.lstats.Store(0)
		return ws, root, mounted
	}
	plain, _, _ := build(false)
	withPaths, root, mounted := build(true)
	for _, p := range paths {
		want, got := describe(ctx, plain, p), describe(ctx, withPaths, p)
		if got != want {
			t.Errorf("%s through LstatPath:\n%s\none Lstat per element:\n%s", p, got, want)
		}
	}
	if root.paths.Load() == 0 || mounted.paths.Load() == 0 {
		t.Errorf("LstatPath calls: %d in the root store, %d in the mounted one", root.paths.Load(), mounted.paths.Load())
	}
	if n := root.lstats.Load() + mounted.lstats.Load(); n != 0 {
		t.Errorf("%d Lstat calls of a PathStatter store", n)
	}
	// A path of plain elements costs one call.
	root.paths.Store(0)
	if _, err := withPaths.Stat(ctx, "/d/sub/up"); err != nil {
		t.Fatal(err)
	}
	// /d/sub/up, then the link's "..", then f: two runs.
	if n := root.paths.Load(); n != 2 {
		t.Errorf("Stat(/d/sub/up): %d LstatPath calls, want 2", n)
	}
	root.paths.Store(0)
	if _, err := withPaths.Stat(ctx, "/d/sub/missing/x"); errno.CodeOf(err) != errno.ENOENT {
		t.Fatal(err)
	}
	if n := root.paths.Load(); n != 1 {
		t.Errorf("Stat(/d/sub/missing/x): %d LstatPath calls, want 1", n)
	}
}
