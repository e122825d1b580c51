// Tests of writing a file's content (write.go), and that a failed write
// or mkdir leaves no directory it created behind.

package vfs_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name  string
		setup []op
		path  string
		opts  vfs.WriteOptions
		code  errno.Code // "" for success
		msg   string
		want  []string // the whole tree afterwards; nil means unchanged
	}{
		{
			name: "creates parents", path: "/a/b/c.txt",
			opts: vfs.WriteOptions{CreateParents: true},
			want: []string{"/a d755", "/a/b d755", "/a/b/c.txt f644 DATA"},
		},
		{
			name: "existing parent", setup: []op{dir("/a")}, path: "/a/c.txt",
			want: []string{"/a d755", "/a/c.txt f644 DATA"},
		},
		{
			name: "missing parent without CreateParents", path: "/a/b.txt",
			code: errno.ENOENT, msg: toolspec.MsgParentMissing("/a/b.txt"),
		},
		{
			name: "keeps an existing file's mode", setup: []op{fileMode("/f", "old content", 0o600)}, path: "/f",
			want: []string{"/f f600 DATA"},
		},
		{
			name: "explicit mode on an existing file", setup: []op{fileMode("/f", "old", 0o600)}, path: "/f",
			opts: vfs.WriteOptions{Mode: u32(0o755)},
			want: []string{"/f f755 DATA"},
		},
		{
			name: "explicit mode on a new file keeps only permission bits", path: "/f",
			opts: vfs.WriteOptions{Mode: u32(0o174755)},
			want: []string{"/f f4755 DATA"},
		},
		{
			name:  "follows a final link to a file",
			setup: []op{fileMode("/d/f", "old", 0o600), link("/l", "/d/f")}, path: "/l",
			want: []string{"/d d755", "/d/f f600 DATA", "/l -> /d/f"},
		},
		{
			name:  "follows a relative final link",
			setup: []op{file("/d/f", "old"), link("/d/l", "f")}, path: "/d/l",
			want: []string{"/d d755", "/d/f f644 DATA", "/d/l -> f"},
		},
		{
			name:  "follows a chain of final links",
			setup: []op{file("/d/f", "old"), link("/l2", "d/f"), link("/l1", "/l2")}, path: "/l1",
			want: []string{"/d d755", "/d/f f644 DATA", "/l1 -> /l2", "/l2 -> d/f"},
		},
		{
			name:  "a dangling link creates its target",
			setup: []op{dir("/d"), link("/l", "/d/new")}, path: "/l",
			want: []string{"/d d755", "/d/new f644 DATA", "/l -> /d/new"},
		},
		{
			name:  "a dangling relative link creates its target",
			setup: []op{dir("/d"), link("/d/l", "../d/./new")}, path: "/d/l",
			want: []string{"/d d755", "/d/l -> ../d/./new", "/d/new f644 DATA"},
		},
		{
			name:  "a dangling link's missing parent is not created",
			setup: []op{link("/l", "/nodir/new")}, path: "/l",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.ENOENT, msg: toolspec.MsgParentMissing("/nodir/new"),
		},
		{
			name:  "a link to a directory",
			setup: []op{dir("/d"), link("/l", "/d")}, path: "/l",
			code: errno.EISDIR, msg: toolspec.MsgIsDirectory("/d"),
		},
		{
			name:  "a dangling link naming a directory",
			setup: []op{dir("/d"), link("/l", "/d/new/")}, path: "/l",
			code: errno.EISDIR, msg: toolspec.MsgIsDirectory("/d/new"),
		},
		{
			name:  "through a symlinked parent",
			setup: []op{dir("/d"), link("/ld", "/d")}, path: "/ld/new",
			want: []string{"/d d755", "/d/new f644 DATA", "/ld -> /d"},
		},
		{
			name:  "through a symlinked parent, creating parents",
			setup: []op{dir("/d"), link("/ld", "d")}, path: "/ld/x/y.txt",
			opts: vfs.WriteOptions{CreateParents: true},
			want: []string{"/d d755", "/d/x d755", "/d/x/y.txt f644 DATA", "/ld -> d"},
		},
		{
			name:  "through a dangling parent link, creating parents",
			setup: []op{link("/ld", "/nowhere")}, path: "/ld/x",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.ENOENT, msg: toolspec.MsgParentMissing("/ld"),
		},
		{
			name: "trailing slash", path: "/workspace/dir/",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.EISDIR, msg: toolspec.MsgIsDirectory("/workspace/dir"),
			want: []string{},
		},
		{
			name: "slash dot", path: "/workspace/dir/.",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.EISDIR, msg: toolspec.MsgIsDirectory("/workspace/dir"),
			want: []string{},
		},
		{
			name: "slash dot dot", path: "/workspace/dir/..",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.EISDIR, msg: toolspec.MsgIsDirectory("/workspace"),
			want: []string{},
		},
		{
			name: "an existing directory", setup: []op{dir("/d")}, path: "/d",
			code: errno.EISDIR, msg: toolspec.MsgIsDirectory("/d"),
		},
		{
			name: "a parent that is a file", setup: []op{file("/file", "x")}, path: "/file/x",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.EEXIST, msg: toolspec.MsgPathExists("/file"),
		},
		{
			name: "a grandparent that is a file", setup: []op{file("/file", "x")}, path: "/file/sub/x",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.ENOTDIR, msg: toolspec.MsgParentNotDirectory("/file/sub"),
		},
		{
			name: "the root", path: "/",
			code: errno.EISDIR, msg: toolspec.MsgWriteRoot("/"),
		},
		{
			name: "the root spelled otherwise", path: "//./",
			opts: vfs.WriteOptions{CreateParents: true},
			code: errno.EISDIR, msg: toolspec.MsgWriteRoot("/"),
		},
		{
			name: "relative", path: "a.txt",
			code: errno.EINVAL, msg: toolspec.MsgInvalidPathRelative("a.txt"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, tt.setup...)
			before := dump(t, ws)
			err := ws.WriteFile(t.Context(), tt.path, []byte("DATA"), tt.opts)
			if tt.code != "" {
				wantErr(t, "WriteFile", err, tt.code, tt.msg)
			} else if err != nil {
				t.Fatalf("WriteFile(%q): %v", tt.path, err)
			}
			want := tt.want
			if want == nil {
				want = before
			}
			if got := dump(t, ws); !slices.Equal(got, want) {
				t.Errorf("tree after WriteFile(%q) %s", tt.path, diffLines(want, got))
			}
		})
	}
}

// failingStore fails the operations its hooks name.
type failingStore struct {
	vfs.Store
	failWrite func(name string) bool
	failMkdir func(name string) bool
}

var errDiskFull = errno.New(errno.ENOSPC, "no space left on device", "")

func (s *failingStore) WriteFile(ctx context.Context, name string, r io.Reader, mode uint32) error {
	if s.failWrite != nil && s.failWrite(name) {
		return errDiskFull
	}
	return s.Store.WriteFile(ctx, name, r, mode)
}

func (s *failingStore) Mkdir(ctx context.Context, name string, mode uint32) error {
	if s.failMkdir != nil && s.failMkdir(name) {
		return errDiskFull
	}
	return s.Store.Mkdir(ctx, name, mode)
}

// TestFailedCallChangesNothing checks the deliberate difference from the
// reference: when the last step of a write or mkdir fails, the
// directories it created on the way are removed again.
func TestFailedCallChangesNothing(t *testing.T) {
	always := func(string) bool { return true }
	is := func(n string) func(string) bool { return func(name string) bool { return name == n } }
	tests := []struct {
		name  string
		store func(vfs.Store) *failingStore
		setup []op
		call  func(ctx context.Context, ws *vfs.Workspace) error
		code  errno.Code
		msg   string
	}{
		{
			name:  "write fails after creating parents",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failWrite: always} },
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/a/b/c.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO(toolspec.MsgOpWrite, "/a/b/c.txt", "no space left on device"),
		},
		{
			name:  "write fails after creating some parents",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failWrite: always} },
			setup: []op{file("/a/keep", "k")},
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/a/b/c/d.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO(toolspec.MsgOpWrite, "/a/b/c/d.txt", "no space left on device"),
		},
		{
			name:  "write fails through a symlinked parent",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failWrite: always} },
			setup: []op{dir("/real"), link("/ld", "/real")},
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/ld/x/y.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO(toolspec.MsgOpWrite, "/real/x/y.txt", "no space left on device"),
		},
		{
			name:  "a parent's mkdir fails",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failMkdir: is("a/b")} },
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/a/b/c/d.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO(toolspec.MsgOpMkdir, "/a/b", "no space left on device"),
		},
		{
			name:  "recursive mkdir fails at the last directory",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failMkdir: is("a/b/c")} },
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.Mkdir(ctx, "/a/b/c", vfs.MkdirOptions{Recursive: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO(toolspec.MsgOpMkdir, "/a/b/c", "no space left on device"),
		},
		{
			name:  "recursive mkdir fails at a parent",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failMkdir: is("a/b")} },
			setup: []op{file("/x", "x")},
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.Mkdir(ctx, "/a/b/c", vfs.MkdirOptions{Recursive: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO(toolspec.MsgOpMkdir, "/a/b", "no space left on device"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memfs.New()
			apply(t, vfs.New(mem), tt.setup...)
			plain := vfs.New(mem)
			before := dump(t, plain)
			ws := vfs.New(tt.store(mem))
			wantErr(t, "call", tt.call(t.Context(), ws), tt.code, tt.msg)
			if got := dump(t, plain); !slices.Equal(got, before) {
				t.Errorf("tree after the failed call %s", diffLines(before, got))
			}
		})
	}
}
