// Tests of the other changes (change.go): Mkdir, Remove, Symlink, Chmod.

package vfs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

func TestMkdir(t *testing.T) {
	rec := vfs.MkdirOptions{Recursive: true}
	tests := []struct {
		name  string
		setup []op
		path  string
		opts  vfs.MkdirOptions
		code  errno.Code
		msg   string
		want  []string // nil: unchanged
	}{
		{name: "recursive", path: "/a/b/c", opts: rec,
			want: []string{"/a d755", "/a/b d755", "/a/b/c d755"}},
		{name: "single", setup: []op{dir("/a")}, path: "/a/b",
			want: []string{"/a d755", "/a/b d755"}},
		{name: "mode applies to the last directory only", path: "/a/b",
			opts: vfs.MkdirOptions{Recursive: true, Mode: u32(0o700)},
			want: []string{"/a d755", "/a/b d700"}},
		{name: "recursive on an existing directory", setup: []op{file("/a/f", "x")}, path: "/a/", opts: rec},
		{name: "existing directory", setup: []op{dir("/a")}, path: "/a/",
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/a")},
		{name: "root", path: "/", opts: rec,
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/")},
		{name: "missing parent", path: "/x/y",
			code: errno.ENOENT, msg: toolspec.MsgParentMissing("/x/y")},
		{name: "existing file", setup: []op{file("/f", "x")}, path: "/f", opts: rec,
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/f")},
		{name: "parent is a file", setup: []op{file("/f", "x")}, path: "/f/y", opts: rec,
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/f/y")},
		{name: "grandparent is a file", setup: []op{file("/f", "x")}, path: "/f/y/z", opts: rec,
			code: errno.ENOTDIR, msg: toolspec.MsgParentNotDirectory("/f/y/z")},
		{name: "recursive on a link to a directory", setup: []op{dir("/d"), link("/l", "d")}, path: "/l", opts: rec},
		{name: "a link to a directory", setup: []op{dir("/d"), link("/l", "d")}, path: "/l",
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/l")},
		{name: "recursive on a link to a file", setup: []op{file("/f", "x"), link("/l", "f")}, path: "/l", opts: rec,
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/l")},
		{name: "through a symlinked parent", setup: []op{dir("/d"), link("/l", "/d")}, path: "/l/new",
			want: []string{"/d d755", "/d/new d755", "/l -> /d"}},
		{name: "recursive through a dangling link", setup: []op{link("/l", "/nowhere")}, path: "/l/x", opts: rec,
			code: errno.ENOENT, msg: toolspec.MsgParentMissing("/l/x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, tt.setup...)
			before := dump(t, ws)
			err := ws.Mkdir(t.Context(), tt.path, tt.opts)
			if tt.code != "" {
				wantErr(t, "Mkdir", err, tt.code, tt.msg)
			} else if err != nil {
				t.Fatalf("Mkdir(%q): %v", tt.path, err)
			}
			want := tt.want
			if want == nil {
				want = before
			}
			if got := dump(t, ws); !slices.Equal(got, want) {
				t.Errorf("tree after Mkdir(%q) %s", tt.path, diffLines(want, got))
			}
		})
	}
}

func TestRemove(t *testing.T) {
	tree := []op{
		file("/d/f", "x"),
		file("/d/sub/g", "y"),
		dir("/empty"),
		file("/top", "t"),
		link("/flink", "/d/f"),
		link("/dlink", "d"),
		link("/dangling", "/nowhere"),
	}
	all := []string{
		"/d d755", "/d/f f644 x", "/d/sub d755", "/d/sub/g f644 y",
		"/dangling -> /nowhere", "/dlink -> d", "/empty d755", "/flink -> /d/f", "/top f644 t",
	}
	without := func(prefixes ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(line string) bool {
			return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(line, p+" ") })
		})
	}
	tests := []struct {
		path string
		opts vfs.RemoveOptions
		code errno.Code
		msg  string
		want []string
	}{
		{path: "/", opts: vfs.RemoveOptions{Recursive: true, Force: true},
			code: errno.EPERM, msg: toolspec.MsgRemoveRoot("/")},
		{path: "/d/..", code: errno.EPERM, msg: toolspec.MsgRemoveRoot("/")},
		{path: "/d/", code: errno.ENOTEMPTY, msg: toolspec.MsgNotEmpty("/d")},
		{path: "/dlink/sub", code: errno.ENOTEMPTY, msg: toolspec.MsgNotEmpty("/dlink/sub")},
		{path: "/missing", code: errno.ENOENT, msg: toolspec.MsgNoSuchPath("/missing")},
		{path: "/x/../missing", code: errno.ENOENT, msg: toolspec.MsgNoSuchPath("/missing")},
		{path: "/top/x", code: errno.ENOENT, msg: toolspec.MsgNoSuchPath("/top/x")},
		{path: "/missing", opts: vfs.RemoveOptions{Force: true}, want: all},
		{path: "/dangling/x", opts: vfs.RemoveOptions{Force: true}, want: all},
		{path: "/d", opts: vfs.RemoveOptions{Recursive: true}, want: without("/d", "/d/f", "/d/sub", "/d/sub/g")},
		{path: "/empty", want: without("/empty")},
		{path: "/top", want: without("/top")},
		{path: "/flink", want: without("/flink")},
		{path: "/dlink", opts: vfs.RemoveOptions{Recursive: true}, want: without("/dlink")},
		{path: "/dangling", want: without("/dangling")},
		{path: "/dlink/f", want: without("/d/f")},
		{path: "/dlink/sub", opts: vfs.RemoveOptions{Recursive: true}, want: without("/d/sub", "/d/sub/g")},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s%+v", tt.path, tt.opts), func(t *testing.T) {
			ws := newWS(t, tree...)
			err := ws.Remove(t.Context(), tt.path, tt.opts)
			want := tt.want
			if tt.code != "" {
				wantErr(t, "Remove", err, tt.code, tt.msg)
				want = all
			} else if err != nil {
				t.Fatalf("Remove(%q): %v", tt.path, err)
			}
			if got := dump(t, ws); !slices.Equal(got, want) {
				t.Errorf("tree after Remove(%q) %s", tt.path, diffLines(want, got))
			}
		})
	}
}

func TestSymlinkErrors(t *testing.T) {
	ws := newWS(t, file("/f", "x"), dir("/d"), link("/l", "/nowhere"))
	before := dump(t, ws)
	ctx := t.Context()
	tests := []struct {
		path string
		code errno.Code
		msg  string
	}{
		{"/", errno.EEXIST, toolspec.MsgPathExists("/")},
		{"/f", errno.EEXIST, toolspec.MsgPathExists("/f")},
		{"/d/", errno.EEXIST, toolspec.MsgPathExists("/d")},
		{"/l", errno.EEXIST, toolspec.MsgPathExists("/l")},
		{"/missing/x", errno.ENOENT, toolspec.MsgParentMissing("/missing/x")},
		{"/l/x", errno.ENOENT, toolspec.MsgParentMissing("/l/x")},
		{"/f/x", errno.EEXIST, toolspec.MsgPathExists("/f/x")},
		{"/f/x/y", errno.ENOTDIR, toolspec.MsgParentNotDirectory("/f/x/y")},
	}
	for _, tt := range tests {
		wantErr(t, fmt.Sprintf("Symlink(%q)", tt.path), ws.Symlink(ctx, "target", tt.path), tt.code, tt.msg)
	}
	if got := dump(t, ws); !slices.Equal(got, before) {
		t.Errorf("tree after failed Symlinks %s", diffLines(before, got))
	}
}

func TestChmod(t *testing.T) {
	ws := newWS(t, file("/d/f", "x"), link("/l", "/d/f"))
	ctx := t.Context()
	if err := ws.Chmod(ctx, "/l", 0o100600); err != nil {
		t.Fatal(err)
	}
	if err := ws.Chmod(ctx, "/d", 0o700); err != nil {
		t.Fatal(err)
	}
	want := []string{"/d d700", "/d/f f600 x", "/l -> /d/f"}
	if got := dump(t, ws); !slices.Equal(got, want) {
		t.Errorf("tree after Chmod %s", diffLines(want, got))
	}
	wantErr(t, "Chmod(missing)", ws.Chmod(ctx, "/missing", 0o644), errno.ENOENT, toolspec.MsgNoSuchPath("/missing"))
}

// TestCreateMountPoint: Create at a mount point finds the mounted store's
// root there (EEXIST "path exists", as on "/"), on each kind of mounted store,
// and adds nothing to it. The store is never asked to create its own root
// (hostfs answered "empty path"; memfs added a nameless file).
func TestCreateMountPoint(t *testing.T) {
	ctx := t.Context()
	mem := memfs.New()
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, "/mem", mem, vfs.MountOptions{}); err != nil {
		t.Fatal(err)
	}
	testws.MountHost(t, ws, "/host", "")
	for _, at := range []string{"/mem", "/host"} {
		err := ws.Create(ctx, at)
		wantErr(t, "Create("+at+")", err, errno.EEXIST, toolspec.MsgPathExists(at))
	}
	if got, err := mem.ReadDir(ctx, "", 0, -1); err != nil || len(got) != 0 {
		t.Errorf("the mounted memfs holds %+v, %v; want nothing", got, err)
	}
}
