// Shared fixtures of the Workspace tests, the check that every method
// refuses an invalid path, and the tests of mounts (workspace.go).

package vfs_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// op is one setup step: a file (content, mode), a directory (mode) or a
// symbolic link (target), written straight into the workspace.
type op struct {
	kind string // "file", "dir", "link"
	path string
	data string // file content or link target
	mode uint32 // 0 means the default
}

func file(path, data string) op { return op{kind: "file", path: path, data: data} }
func fileMode(path, data string, m uint32) op {
	return op{kind: "file", path: path, data: data, mode: m}
}
func dir(path string) op          { return op{kind: "dir", path: path} }
func link(path, target string) op { return op{kind: "link", path: path, data: target} }

func apply(t *testing.T, ws *vfs.Workspace, ops ...op) {
	t.Helper()
	ctx := t.Context()
	for _, o := range ops {
		var err error
		switch o.kind {
		case "file":
			opts := vfs.WriteOptions{CreateParents: true}
			if o.mode != 0 {
				opts.Mode = &o.mode
			}
			err = ws.WriteFile(ctx, o.path, []byte(o.data), opts)
		case "dir":
			err = ws.Mkdir(ctx, o.path, vfs.MkdirOptions{Recursive: true})
		case "link":
			err = ws.Symlink(ctx, o.data, o.path)
		}
		if err != nil {
			t.Fatalf("setup %s %s: %v", o.kind, o.path, err)
		}
	}
}

func newWS(t *testing.T, ops ...op) *vfs.Workspace {
	t.Helper()
	ws := vfs.New(memfs.New())
	apply(t, ws, ops...)
	return ws
}

// wantErr fails unless err has code and exactly message.
func wantErr(t *testing.T, what string, err error, code errno.Code, message string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %s %q", what, code, message)
		return
	}
	if got := errno.CodeOf(err); got != code || err.Error() != message {
		t.Errorf("%s: error %s %q, want %s %q", what, got, err.Error(), code, message)
	}
}

// dump lists the whole tree below "/" in pre-order without following
// links, one line per node: "/path d755", "/path f644 content" or
// "/path -> target".
func dump(t *testing.T, ws *vfs.Workspace) []string {
	t.Helper()
	out := []string{}
	var walk func(p string)
	walk = func(p string) {
		entries, err := ws.ReadDir(t.Context(), p, 0, -1)
		if err != nil {
			t.Fatalf("dump: ReadDir(%q): %v", p, err)
		}
		for _, e := range entries {
			child := vfs.Join(p, e.Name)
			switch e.Type {
			case vfs.TypeDir:
				out = append(out, fmt.Sprintf("%s d%o", child, e.Mode))
				walk(child)
			case vfs.TypeSymlink:
				out = append(out, fmt.Sprintf("%s -> %s", child, e.Target))
			default:
				out = append(out, fmt.Sprintf("%s f%o %s", child, e.Mode, readAll(t, ws, child)))
			}
		}
	}
	walk("/")
	return out
}

func readAll(t *testing.T, ws *vfs.Workspace, p string) string {
	t.Helper()
	r, _, err := ws.Open(t.Context(), p, 0)
	if err != nil {
		t.Fatalf("Open(%q): %v", p, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %q: %v", p, err)
	}
	return string(b)
}

func diffLines(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	return fmt.Sprintf("(-want +got)\n-%s\n+%s", strings.Join(want, "\n-"), strings.Join(got, "\n+"))
}

func u32(v uint32) *uint32 { return &v }

// TestPathErrorsEverywhere checks that every method refuses an invalid
// path with Canonical's error before doing anything.
func TestPathErrorsEverywhere(t *testing.T) {
	ws := newWS(t, file("/f", "x"))
	ctx := t.Context()
	ops := map[string]func(p string) error{
		"Stat":    func(p string) error { _, err := ws.Stat(ctx, p); return err },
		"Lstat":   func(p string) error { _, err := ws.Lstat(ctx, p); return err },
		"Resolve": func(p string) error { _, err := ws.Resolve(ctx, p); return err },
		"ReadDir": func(p string) error { _, err := ws.ReadDir(ctx, p, 0, -1); return err },
		"Open":    func(p string) error { _, _, err := ws.Open(ctx, p, 0); return err },
		"WriteFile": func(p string) error {
			return ws.WriteFile(ctx, p, []byte("x"), vfs.WriteOptions{CreateParents: true})
		},
		"Mkdir":   func(p string) error { return ws.Mkdir(ctx, p, vfs.MkdirOptions{Recursive: true}) },
		"Remove":  func(p string) error { return ws.Remove(ctx, p, vfs.RemoveOptions{Force: true}) },
		"Symlink": func(p string) error { return ws.Symlink(ctx, "/f", p) },
		"Chmod":   func(p string) error { return ws.Chmod(ctx, p, 0o600) },
		"Mount":   func(p string) error { return ws.Mount(ctx, p, memfs.New(), vfs.MountOptions{}) },
	}
	paths := []struct{ in, msg string }{
		{"", toolspec.MsgInvalidPathEmpty},
		{"f", toolspec.MsgInvalidPathRelative("f")},
		{"/f\x00", toolspec.MsgInvalidPathNUL("/f\x00")},
		{"/../f", toolspec.MsgInvalidPathEscapes("/../f")},
	}
	for name, fn := range ops {
		for _, p := range paths {
			wantErr(t, fmt.Sprintf("%s(%q)", name, p.in), fn(p.in), errno.EINVAL, p.msg)
		}
	}
	if got, want := dump(t, ws), []string{"/f f644 x"}; !slices.Equal(got, want) {
		t.Errorf("tree after invalid paths %s", diffLines(want, got))
	}
}

// mountFixture is a workspace whose root is one memfs and whose
// /workspace is another, each with its own clock.
func mountFixture(t *testing.T) (ws *vfs.Workspace, root, mounted *memfs.FS) {
	t.Helper()
	root = memfs.New(memfs.WithClock(func() time.Time { return time.UnixMilli(1_000) }))
	mounted = memfs.New(memfs.WithClock(func() time.Time { return time.UnixMilli(2_000) }))
	ctx := t.Context()
	if err := mounted.WriteFile(ctx, "pre.txt", strings.NewReader("mounted"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := mounted.Symlink(ctx, "../rootfile", "up"); err != nil {
		t.Fatal(err)
	}
	ws = vfs.New(root)
	apply(t, ws, file("/rootfile", "from the root"))
	if err := ws.Mount(ctx, "/workspace/", mounted, vfs.MountOptions{}); err != nil {
		t.Fatal(err)
	}
	return ws, root, mounted
}

func TestMount(t *testing.T) {
	ws, root, mounted := mountFixture(t)
	ctx := t.Context()

	// The mount point shows with the mounted root's attributes.
	entries, err := ws.ReadDir(ctx, "/", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	want := []vfs.Info{
		{Name: "rootfile", Type: vfs.TypeFile, Mode: 0o644, Size: 13, MTime: 1_000},
		{Name: "workspace", Type: vfs.TypeDir, Mode: 0o755, MTime: 2_000},
	}
	for i := range entries {
		entries[i].Rev = 0 // the stores' own numbers
	}
	if !slices.Equal(entries, want) {
		t.Errorf("ReadDir(/) = %+v, want %+v", entries, want)
	}
	info, err := ws.Stat(ctx, "/workspace")
	info.Rev = 0
	if err != nil || info != want[1] {
		t.Errorf("Stat(/workspace) = %+v, %v; want %+v", info, err, want[1])
	}
	if got := readAll(t, ws, "/workspace/pre.txt"); got != "mounted" {
		t.Errorf("/workspace/pre.txt = %q", got)
	}
	// A link in the mount climbs out of it in workspace path space.
	if got := readAll(t, ws, "/workspace/up"); got != "from the root" {
		t.Errorf("/workspace/up = %q", got)
	}

	// Writes land in the mounted store, not under the mount point below.
	if err := ws.WriteFile(ctx, "/workspace/a/b.txt", []byte("new"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	if info, err := mounted.Lstat(ctx, "a/b.txt"); err != nil || info.Size != 3 {
		t.Errorf("mounted store's a/b.txt = %+v, %v", info, err)
	}
	if got, err := root.ReadDir(ctx, "workspace", 0, -1); err != nil || len(got) != 0 {
		t.Errorf("the root store's mount point holds %+v, %v; want nothing", got, err)
	}
	if err := ws.Mkdir(ctx, "/workspace/m", vfs.MkdirOptions{}); err != nil {
		t.Fatal(err)
	}
	if info, err := mounted.Lstat(ctx, "m"); err != nil || info.Type != vfs.TypeDir {
		t.Errorf("mounted store's m = %+v, %v", info, err)
	}

	// A mount point cannot be removed, nor a directory holding one.
	for _, opts := range []vfs.RemoveOptions{{Recursive: true}, {Recursive: true, Force: true}} {
		err := ws.Remove(ctx, "/workspace", opts)
		wantErr(t, "Remove(/workspace)", err, errno.EBUSY, toolspec.MsgMountPoint("/workspace"))
	}
	if got := readAll(t, ws, "/workspace/pre.txt"); got != "mounted" {
		t.Errorf("after refused removals /workspace/pre.txt = %q", got)
	}
	// Mounting twice, or at "/", is refused.
	err = ws.Mount(ctx, "/workspace", memfs.New(), vfs.MountOptions{})
	wantErr(t, "Mount twice", err, errno.EBUSY, toolspec.MsgMountPoint("/workspace"))
	err = ws.Mount(ctx, "/", memfs.New(), vfs.MountOptions{})
	wantErr(t, "Mount(/)", err, errno.EBUSY, toolspec.MsgMountPoint("/"))
	if got := readAll(t, ws, "/workspace/pre.txt"); got != "mounted" {
		t.Errorf("after a refused second mount /workspace/pre.txt = %q", got)
	}
}

func TestMountPointRemoval(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name   string
		mount  string
		remove string
		opts   vfs.RemoveOptions
		busy   string
	}{
		{"empty mount, not recursive", "/m", "/m", vfs.RemoveOptions{}, "/m"},
		{"ancestor of a mount", "/a/b/m", "/a", vfs.RemoveOptions{Recursive: true}, "/a/b/m"},
		{"through a link to an ancestor", "/a/m", "/la/m", vfs.RemoveOptions{Recursive: true}, "/a/m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, dir("/a"), link("/la", "/a"))
			if err := ws.Mount(ctx, tt.mount, memfs.New(), vfs.MountOptions{}); err != nil {
				t.Fatal(err)
			}
			before := dump(t, ws)
			wantErr(t, "Remove", ws.Remove(ctx, tt.remove, tt.opts), errno.EBUSY, toolspec.MsgMountPoint(tt.busy))
			if got := dump(t, ws); !slices.Equal(got, before) {
				t.Errorf("tree after refused Remove %s", diffLines(before, got))
			}
		})
	}
}

func TestReadOnlyMount(t *testing.T) {
	ctx := t.Context()
	ro := memfs.New()
	apply(t, vfs.New(ro), fileMode("/f.txt", "read only", 0o644), file("/d/g", "g"))
	roBefore := dump(t, vfs.New(ro))

	ws := newWS(t, file("/writable", "w"))
	if err := ws.Mount(ctx, "/ro", ro, vfs.MountOptions{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	apply(t, ws, link("/tofile", "/ro/f.txt"), link("/rolink", "ro"))
	wsBefore := dump(t, ws)

	rofs := func(p string) string { return toolspec.MsgReadOnlyMount("/ro", p) }
	wo := vfs.WriteOptions{CreateParents: true}
	tests := []struct {
		name string
		call func() error
		msg  string
	}{
		{"WriteFile existing", func() error { return ws.WriteFile(ctx, "/ro/f.txt", []byte("x"), vfs.WriteOptions{}) }, rofs("/ro/f.txt")},
		{"WriteFile new with parents", func() error { return ws.WriteFile(ctx, "/ro/new/x", []byte("x"), wo) }, rofs("/ro/new/x")},
		{"WriteFile through a final link", func() error { return ws.WriteFile(ctx, "/tofile", []byte("x"), wo) }, rofs("/ro/f.txt")},
		{"WriteFile through a parent link", func() error { return ws.WriteFile(ctx, "/rolink/new.txt", []byte("x"), wo) }, rofs("/ro/new.txt")},
		{"Mkdir", func() error { return ws.Mkdir(ctx, "/ro/newdir", vfs.MkdirOptions{}) }, rofs("/ro/newdir")},
		{"Mkdir existing recursive", func() error { return ws.Mkdir(ctx, "/ro/d", vfs.MkdirOptions{Recursive: true}) }, rofs("/ro/d")},
		{"Mkdir through a link", func() error { return ws.Mkdir(ctx, "/rolink/x", vfs.MkdirOptions{}) }, rofs("/ro/x")},
		{"Remove file", func() error { return ws.Remove(ctx, "/ro/f.txt", vfs.RemoveOptions{}) }, rofs("/ro/f.txt")},
		{"Remove missing with Force", func() error { return ws.Remove(ctx, "/ro/missing", vfs.RemoveOptions{Force: true}) }, rofs("/ro/missing")},
		{"Remove the mount", func() error { return ws.Remove(ctx, "/ro", vfs.RemoveOptions{Recursive: true}) }, rofs("/ro")},
		{"Remove through a link", func() error { return ws.Remove(ctx, "/rolink/d", vfs.RemoveOptions{Recursive: true}) }, rofs("/ro/d")},
		{"Symlink", func() error { return ws.Symlink(ctx, "x", "/ro/l") }, rofs("/ro/l")},
		{"Symlink through a link", func() error { return ws.Symlink(ctx, "x", "/rolink/l") }, rofs("/ro/l")},
		{"Chmod", func() error { return ws.Chmod(ctx, "/ro/f.txt", 0o600) }, rofs("/ro/f.txt")},
		{"Chmod through a link", func() error { return ws.Chmod(ctx, "/tofile", 0o600) }, rofs("/ro/f.txt")},
		{"Chmod the mount", func() error { return ws.Chmod(ctx, "/ro", 0o700) }, rofs("/ro")},
	}
	for _, tt := range tests {
		wantErr(t, tt.name, tt.call(), errno.EROFS, tt.msg)
	}
	if got := dump(t, vfs.New(ro)); !slices.Equal(got, roBefore) {
		t.Errorf("read-only store after refused changes %s", diffLines(roBefore, got))
	}
	if got := dump(t, ws); !slices.Equal(got, wsBefore) {
		t.Errorf("workspace after refused changes %s", diffLines(wsBefore, got))
	}
	// Reads work, and the link to the mount is itself writable.
	if got := readAll(t, ws, "/rolink/f.txt"); got != "read only" {
		t.Errorf("read through the mount = %q", got)
	}
	if err := ws.Remove(ctx, "/rolink", vfs.RemoveOptions{}); err != nil {
		t.Errorf("removing a link to the read-only mount: %v", err)
	}
}

func TestReadOnlyMountBelow(t *testing.T) {
	ctx := t.Context()
	ro := memfs.New()
	apply(t, vfs.New(ro), file("/f", "x"))
	ws := newWS(t, file("/a/other.txt", "o"), link("/la", "a"))
	if err := ws.Mount(ctx, "/a/ro", ro, vfs.MountOptions{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, ws)
	tests := []struct {
		path string
		opts vfs.RemoveOptions
		msg  string
	}{
		{"/a", vfs.RemoveOptions{Recursive: true}, toolspec.MsgReadOnlyMount("/a/ro", "/a")},
		{"/a", vfs.RemoveOptions{}, toolspec.MsgReadOnlyMount("/a/ro", "/a")},
		{"/la/", vfs.RemoveOptions{Recursive: true}, ""}, // removes the link only
	}
	for _, tt := range tests {
		err := ws.Remove(ctx, tt.path, tt.opts)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("Remove(%q): %v", tt.path, err)
			}
			continue
		}
		wantErr(t, fmt.Sprintf("Remove(%q, %+v)", tt.path, tt.opts), err, errno.EROFS, tt.msg)
	}
	want := slices.DeleteFunc(before, func(s string) bool { return strings.HasPrefix(s, "/la ") })
	if got := dump(t, ws); !slices.Equal(got, want) {
		t.Errorf("tree after refused removals %s", diffLines(want, got))
	}
	// Changes beside the mount are allowed.
	if err := ws.Remove(ctx, "/a/other.txt", vfs.RemoveOptions{}); err != nil {
		t.Errorf("Remove beside a read-only mount: %v", err)
	}
}

// shortNames is a store that keeps names of at most 10 bytes: it
// refuses a longer new file or directory with a *vfs.NameTooLongError.
type shortNames struct{ vfs.Store }

func (s shortNames) WriteFile(ctx context.Context, name string, r io.Reader, mode uint32) error {
	if len(name) > 10 {
		return &vfs.NameTooLongError{Len: len(name), Max: 10}
	}
	return s.Store.WriteFile(ctx, name, r, mode)
}

func (s shortNames) Mkdir(ctx context.Context, name string, mode uint32) error {
	if len(name) > 10 {
		return &vfs.NameTooLongError{Len: len(name), Max: 10}
	}
	return s.Store.Mkdir(ctx, name, mode)
}

// TestStoreNameTooLong: a store's refusal of a name too long reaches
// the model as the Workspace's own refusal of a path too long (EINVAL),
// with the limit it makes for a path of that mount (its mount point's
// length more), and changes nothing.
func TestStoreNameTooLong(t *testing.T) {
	ws := vfs.New(memfs.New())
	ctx := t.Context()
	if err := ws.Mount(ctx, "/mnt/point", shortNames{memfs.New()}, vfs.MountOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(ctx, "/mnt/point/0123456789", []byte("x"), vfs.WriteOptions{}); err != nil {
		t.Fatalf("a name of 10 bytes: %v", err)
	}
	for _, p := range []string{"/mnt/point/0123456789a", "/mnt/point/dir/abcdefg"} {
		want := toolspec.MsgPathTooLong(int64(len("/mnt/point/")+10), p)
		err := ws.WriteFile(ctx, p, []byte("x"), vfs.WriteOptions{CreateParents: true})
		if errno.CodeOf(err) != errno.EINVAL || err.Error() != want {
			t.Errorf("write %s: %v, want EINVAL %q", p, err, want)
		}
		if _, err := ws.Lstat(ctx, p); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("after the refusal, Lstat(%s): %v", p, err)
		}
	}
	if _, err := ws.Lstat(ctx, "/mnt/point/dir"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("a refused write left its parent: %v", err)
	}
	long := "/mnt/point/" + strings.Repeat("é", 60)
	want := toolspec.MsgPathTooLong(int64(len("/mnt/point/")+10), toolspec.MsgShortened(long[:99]))
	if err := ws.Mkdir(ctx, long, vfs.MkdirOptions{}); err == nil || err.Error() != want {
		t.Errorf("mkdir of %d bytes: %v, want %q", len(long), err, want)
	}
}
