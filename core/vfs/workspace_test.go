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

func TestCanonical(t *testing.T) {
	tests := []struct {
		in    string
		want  string
		parts []string
		code  errno.Code
		msg   string
	}{
		{in: "/", want: "/", parts: []string{}},
		{in: "//", want: "/", parts: []string{}},
		{in: "/.", want: "/", parts: []string{}},
		{in: "/a", want: "/a", parts: []string{"a"}},
		{in: "/a/", want: "/a", parts: []string{"a"}},
		{in: "/a/./b//c/..", want: "/a/b", parts: []string{"a", "b"}},
		{in: "/a/../b", want: "/b", parts: []string{"b"}},
		{in: "/a/..", want: "/", parts: []string{}},
		{in: "/a/b/../../c/./", want: "/c", parts: []string{"c"}},
		{in: "/é 😀/x", want: "/é 😀/x", parts: []string{"é 😀", "x"}},
		{in: "/...", want: "/...", parts: []string{"..."}},
		{in: "", code: errno.EINVAL, msg: toolspec.MsgInvalidPathEmpty},
		{in: "a/b", code: errno.EINVAL, msg: toolspec.MsgInvalidPathRelative("a/b")},
		{in: ".", code: errno.EINVAL, msg: toolspec.MsgInvalidPathRelative(".")},
		{in: "./a", code: errno.EINVAL, msg: toolspec.MsgInvalidPathRelative("./a")},
		{in: "/a\x00b", code: errno.EINVAL, msg: toolspec.MsgInvalidPathNUL("/a\x00b")},
		{in: "/..", code: errno.EINVAL, msg: toolspec.MsgInvalidPathEscapes("/..")},
		{in: "/a/../..", code: errno.EINVAL, msg: toolspec.MsgInvalidPathEscapes("/a/../..")},
		{in: "/../a", code: errno.EINVAL, msg: toolspec.MsgInvalidPathEscapes("/../a")},
	}
	for _, tt := range tests {
		got, parts, err := vfs.Canonical(tt.in)
		if tt.code != "" {
			wantErr(t, fmt.Sprintf("Canonical(%q)", tt.in), err, tt.code, tt.msg)
			continue
		}
		if err != nil || got != tt.want || !slices.Equal(parts, tt.parts) {
			t.Errorf("Canonical(%q) = %q, %q, %v; want %q, %q", tt.in, got, parts, err, tt.want, tt.parts)
		}
	}
}

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

// symlinkTree is the fixture of the resolution tests.
var symlinkTree = []op{
	file("/d/f", "content"),
	dir("/d/sub"),
	link("/abs", "/d/f"),
	link("/d/rel", "f"),
	link("/d/sub/up", "../f"),
	link("/d/sub/far", "../../../../../../d/f"),
	link("/d/sub/toroot", "../../../.."),
	link("/dirlink", "/d"),
	link("/d/sub/parent", ".."),
	link("/chain", "/abs"),
	link("/dangling", "/nowhere"),
	link("/d/viafile", "f/x"),
	link("/d/slash", "sub/"),
	link("/d/dotted", "./sub/./../f"),
	link("/rootlink", "/"),
}

func TestSymlinkResolution(t *testing.T) {
	ws := newWS(t, symlinkTree...)
	tests := []struct {
		path string
		typ  vfs.FileType
		real string // link-free path, from Resolve
	}{
		{"/abs", vfs.TypeFile, "/d/f"},
		{"/d/rel", vfs.TypeFile, "/d/f"},
		{"/d/sub/up", vfs.TypeFile, "/d/f"},
		{"/d/sub/far", vfs.TypeFile, "/d/f"},
		{"/d/sub/toroot", vfs.TypeDir, "/"},
		{"/d/sub/toroot/d/f", vfs.TypeFile, "/d/f"},
		{"/dirlink", vfs.TypeDir, "/d"},
		{"/dirlink/f", vfs.TypeFile, "/d/f"},
		{"/dirlink/sub/up", vfs.TypeFile, "/d/f"},
		{"/d/sub/parent/f", vfs.TypeFile, "/d/f"},
		{"/chain", vfs.TypeFile, "/d/f"},
		{"/d/slash", vfs.TypeDir, "/d/sub"},
		{"/d/dotted", vfs.TypeFile, "/d/f"},
		{"/rootlink/rootlink/dirlink/rel", vfs.TypeFile, "/d/f"},
		// ".." in the path itself is lexical: /dirlink/.. is "/", not /d/..
		{"/dirlink/../d/f", vfs.TypeFile, "/d/f"},
		{"/d/sub/../f", vfs.TypeFile, "/d/f"},
	}
	for _, tt := range tests {
		info, err := ws.Stat(t.Context(), tt.path)
		if err != nil {
			t.Errorf("Stat(%q): %v", tt.path, err)
			continue
		}
		canon, _, _ := vfs.Canonical(tt.path)
		if info.Type != tt.typ || info.Name != vfs.Base(canon) {
			t.Errorf("Stat(%q) = %v named %q, want %v named %q", tt.path, info.Type, info.Name, tt.typ, vfs.Base(canon))
		}
		if tt.typ == vfs.TypeFile && info.Size != int64(len("content")) {
			t.Errorf("Stat(%q).Size = %d, want %d", tt.path, info.Size, len("content"))
		}
		loc, err := ws.Resolve(t.Context(), tt.path)
		if err != nil || loc.Real != tt.real || loc.Path != canon {
			t.Errorf("Resolve(%q) = %+v, %v; want Path %q Real %q", tt.path, loc, err, canon, tt.real)
		}
	}

	missing := []string{
		"/dangling",
		"/dangling/x",
		"/d/viafile",
		"/d/f/x",
		"/abs/x",
		"/nowhere",
		"/d/sub/toroot/nowhere",
	}
	for _, p := range missing {
		_, err := ws.Stat(t.Context(), p)
		wantErr(t, fmt.Sprintf("Stat(%q)", p), err, errno.ENOENT, toolspec.MsgNoSuchPath(p))
	}
	// Stat words the path as given, Resolve the canonical path.
	_, err := ws.Stat(t.Context(), "/x/..//dangling/")
	wantErr(t, "Stat as given", err, errno.ENOENT, toolspec.MsgNoSuchPath("/x/..//dangling/"))
	_, err = ws.Resolve(t.Context(), "/x/..//dangling/")
	wantErr(t, "Resolve canonical", err, errno.ENOENT, toolspec.MsgNoSuchPath("/dangling"))
}

// chain builds /l1 -> /l2 -> ... -> /l<n> -> /target.
func chain(n int) []op {
	ops := []op{file("/target", "end")}
	for i := 1; i <= n; i++ {
		next := fmt.Sprintf("/l%d", i+1)
		if i == n {
			next = "/target"
		}
		ops = append(ops, link(fmt.Sprintf("/l%d", i), next))
	}
	return ops
}

func TestSymlinkLimit(t *testing.T) {
	tests := []struct {
		links int
		loop  bool
	}{
		{1, false},
		{39, false},
		{40, false}, // Linux's SYMLOOP_MAX and the reference's limit
		{41, true},
		{45, true},
	}
	if vfs.MaxSymlinkFollows != 40 {
		t.Errorf("MaxSymlinkFollows = %d, want 40", vfs.MaxSymlinkFollows)
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.links), func(t *testing.T) {
			ws := newWS(t, chain(tt.links)...)
			ctx := t.Context()
			_, statErr := ws.Stat(ctx, "/l1")
			_, _, openErr := ws.Open(ctx, "/l1", 0)
			_, dirErr := ws.ReadDir(ctx, "/l1", 0, -1)
			if !tt.loop {
				if statErr != nil || openErr != nil {
					t.Fatalf("%d links: Stat %v, Open %v; want success", tt.links, statErr, openErr)
				}
				wantErr(t, "ReadDir", dirErr, errno.ENOTDIR, toolspec.MsgNotDirectory("/l1"))
				if got := readAll(t, ws, "/l1"); got != "end" {
					t.Errorf("read through %d links = %q", tt.links, got)
				}
				return
			}
			wantErr(t, "Stat", statErr, errno.ELOOP, toolspec.MsgTooManySymlinks)
			wantErr(t, "Open", openErr, errno.ELOOP, toolspec.MsgTooManySymlinks)
			wantErr(t, "ReadDir", dirErr, errno.ELOOP, toolspec.MsgTooManySymlinks)
			// Lstat follows nothing.
			if info, err := ws.Lstat(ctx, "/l1"); err != nil || info.Type != vfs.TypeSymlink {
				t.Errorf("Lstat(/l1) = %+v, %v; want the link", info, err)
			}
			// A write follows the final links as well.
			err := ws.WriteFile(ctx, "/l1", []byte("x"), vfs.WriteOptions{})
			wantErr(t, "WriteFile", err, errno.ELOOP, toolspec.MsgTooManySymlinksAt("/l1"))
			if got := readAll(t, ws, "/target"); got != "end" {
				t.Errorf("target after the failed write = %q", got)
			}
		})
	}
}

func TestSymlinkLoops(t *testing.T) {
	ws := newWS(t,
		link("/self", "/self"),
		link("/selfrel", "selfrel"),
		link("/a", "/b"),
		link("/b", "a"),
		dir("/d"),
		link("/d/up", "../d/up"),
	)
	before := dump(t, ws)
	ctx := t.Context()
	for _, p := range []string{"/self", "/self/x", "/selfrel", "/a", "/b/c", "/d/up"} {
		_, err := ws.Stat(ctx, p)
		wantErr(t, fmt.Sprintf("Stat(%q)", p), err, errno.ELOOP, toolspec.MsgTooManySymlinks)
		_, _, err = ws.Open(ctx, p, 0)
		wantErr(t, fmt.Sprintf("Open(%q)", p), err, errno.ELOOP, toolspec.MsgTooManySymlinks)
	}
	err := ws.Mkdir(ctx, "/self/x", vfs.MkdirOptions{Recursive: true})
	wantErr(t, "Mkdir through a loop", err, errno.ELOOP, toolspec.MsgTooManySymlinksAt("/self/x"))
	err = ws.WriteFile(ctx, "/a/x", []byte("x"), vfs.WriteOptions{CreateParents: true})
	wantErr(t, "WriteFile through a loop", err, errno.ELOOP, toolspec.MsgTooManySymlinksAt("/a"))
	err = ws.WriteFile(ctx, "/selfrel", []byte("x"), vfs.WriteOptions{})
	wantErr(t, "WriteFile to a loop", err, errno.ELOOP, toolspec.MsgTooManySymlinksAt("/selfrel"))
	// A loop can still be removed: the final link is not followed.
	if err := ws.Remove(ctx, "/self", vfs.RemoveOptions{}); err != nil {
		t.Errorf("Remove(/self): %v", err)
	}
	want := slices.DeleteFunc(before, func(s string) bool { return strings.HasPrefix(s, "/self ") })
	if got := dump(t, ws); !slices.Equal(got, want) {
		t.Errorf("tree after loops %s", diffLines(want, got))
	}
}

func TestLstatSymlinkInfo(t *testing.T) {
	tests := []struct {
		target string
		size   int64
	}{
		{"/workspace/é😀", 14},
		{"f", 1},
		{"😀😀", 4},
		{"../x", 4},
		{"é", 1},
		{"/", 1},
	}
	for _, tt := range tests {
		ws := newWS(t, dir("/d"), link("/d/l", tt.target))
		info, err := ws.Lstat(t.Context(), "/d/l")
		if err != nil {
			t.Fatal(err)
		}
		want := vfs.Info{Name: "l", Type: vfs.TypeSymlink, Mode: 0o777, Size: tt.size, MTime: info.MTime, Target: tt.target, Rev: info.Rev}
		if info != want {
			t.Errorf("Lstat of a link to %q = %+v, want %+v", tt.target, info, want)
		}
		entries, err := ws.ReadDir(t.Context(), "/d", 0, -1)
		if err != nil || len(entries) != 1 || entries[0] != want {
			t.Errorf("ReadDir entry of a link to %q = %+v, %v; want %+v", tt.target, entries, err, want)
		}
		if got, err := ws.Readlink(t.Context(), "/d/l"); err != nil || got != tt.target {
			t.Errorf("Readlink = %q, %v; want %q", got, err, tt.target)
		}
		if vfs.UTF16Len(tt.target) != tt.size {
			t.Errorf("UTF16Len(%q) = %d, want %d", tt.target, vfs.UTF16Len(tt.target), tt.size)
		}
	}
}

func TestStatVersusLstat(t *testing.T) {
	ws := newWS(t,
		fileMode("/d/f", "12345", 0o600),
		link("/flink", "/d/f"),
		link("/dlink", "d"),
		link("/dangling", "/nowhere"),
	)
	ctx := t.Context()
	tests := []struct {
		path         string
		follow       bool
		typ          vfs.FileType
		mode         uint32
		size         int64
		name, target string
		code         errno.Code
		msg          string
	}{
		{path: "/", follow: true, typ: vfs.TypeDir, mode: 0o755, name: ""},
		{path: "/d", follow: true, typ: vfs.TypeDir, mode: 0o755, name: "d"},
		{path: "/d/f", follow: true, typ: vfs.TypeFile, mode: 0o600, size: 5, name: "f"},
		{path: "/flink", follow: true, typ: vfs.TypeFile, mode: 0o600, size: 5, name: "flink"},
		{path: "/flink", follow: false, typ: vfs.TypeSymlink, mode: 0o777, size: 4, name: "flink", target: "/d/f"},
		{path: "/dlink", follow: true, typ: vfs.TypeDir, mode: 0o755, name: "dlink"},
		{path: "/dlink", follow: false, typ: vfs.TypeSymlink, mode: 0o777, size: 1, name: "dlink", target: "d"},
		{path: "/dlink/f", follow: false, typ: vfs.TypeFile, mode: 0o600, size: 5, name: "f"},
		{path: "/dangling", follow: false, typ: vfs.TypeSymlink, mode: 0o777, size: 8, name: "dangling", target: "/nowhere"},
		{path: "/dangling", follow: true, code: errno.ENOENT, msg: toolspec.MsgNoSuchPath("/dangling")},
	}
	for _, tt := range tests {
		stat, what := ws.Lstat, "Lstat"
		if tt.follow {
			stat, what = ws.Stat, "Stat"
		}
		info, err := stat(ctx, tt.path)
		what = fmt.Sprintf("%s(%q)", what, tt.path)
		if tt.code != "" {
			wantErr(t, what, err, tt.code, tt.msg)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		want := vfs.Info{Name: tt.name, Type: tt.typ, Mode: tt.mode, Size: tt.size, MTime: info.MTime, Target: tt.target, Rev: info.Rev}
		if info != want {
			t.Errorf("%s = %+v, want %+v", what, info, want)
		}
	}
	_, err := ws.Readlink(ctx, "/d/f")
	wantErr(t, "Readlink(file)", err, errno.EINVAL, toolspec.MsgNotSymlink("/d/f"))
	_, err = ws.Readlink(ctx, "/missing")
	wantErr(t, "Readlink(missing)", err, errno.ENOENT, toolspec.MsgNoSuchPath("/missing"))
}

func TestReadDir(t *testing.T) {
	ws := newWS(t,
		file("/d/b.txt", "bb"),
		file("/d/B.txt", "B"),
		dir("/d/sub"),
		file("/d/sub/inner", "x"),
		link("/d/l", "/workspace/é😀"),
		file("/f", "x"),
		link("/flink", "/f"),
		link("/dlink", "/d"),
		link("/dangling", "/nowhere"),
	)
	ctx := t.Context()
	type entry struct {
		name string
		typ  vfs.FileType
		mode uint32
		size int64
	}
	all := []entry{
		{"B.txt", vfs.TypeFile, 0o644, 1},
		{"b.txt", vfs.TypeFile, 0o644, 2},
		{"l", vfs.TypeSymlink, 0o777, 14},
		{"sub", vfs.TypeDir, 0o755, 0},
	}
	tests := []struct {
		path          string
		offset, limit int
		want          []entry
	}{
		{"/d", 0, -1, all},
		{"/d/", 0, -1, all},
		{"/dlink", 0, -1, all},
		{"/dlink/sub/..", 0, -1, all}, // lexical: /dlink
		{"/d", 1, 2, all[1:3]},
		{"/d", 3, -1, all[3:]},
		{"/d", 4, -1, []entry{}},
		{"/d", 10, 10, []entry{}},
		{"/d", 0, 0, []entry{}},
	}
	for _, tt := range tests {
		entries, err := ws.ReadDir(ctx, tt.path, tt.offset, tt.limit)
		if err != nil {
			t.Errorf("ReadDir(%q): %v", tt.path, err)
			continue
		}
		got := []entry{}
		for _, e := range entries {
			got = append(got, entry{e.Name, e.Type, e.Mode, e.Size})
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ReadDir(%q, %d, %d) = %v, want %v", tt.path, tt.offset, tt.limit, got, tt.want)
		}
	}

	errs := []struct {
		path string
		code errno.Code
		msg  string
	}{
		{"/missing", errno.ENOENT, toolspec.MsgNoSuchPath("/missing")},
		{"/x/../missing//", errno.ENOENT, toolspec.MsgNoSuchPath("/missing")},
		{"/dangling", errno.ENOENT, toolspec.MsgNoSuchPath("/dangling")},
		{"/f/x", errno.ENOENT, toolspec.MsgNoSuchPath("/f/x")},
		{"/f", errno.ENOTDIR, toolspec.MsgNotDirectory("/f")},
		{"/f/", errno.ENOTDIR, toolspec.MsgNotDirectory("/f")},
		{"/./flink", errno.ENOTDIR, toolspec.MsgNotDirectory("/flink")},
	}
	for _, tt := range errs {
		_, err := ws.ReadDir(ctx, tt.path, 0, -1)
		wantErr(t, fmt.Sprintf("ReadDir(%q)", tt.path), err, tt.code, tt.msg)
	}
}

func TestOpen(t *testing.T) {
	ws := newWS(t,
		fileMode("/d/f", "hello, world", 0o600),
		link("/flink", "d/f"),
		link("/dlink", "/d"),
		link("/dangling", "/nowhere"),
	)
	ctx := t.Context()
	reads := []struct {
		path   string
		offset int64
		want   string
	}{
		{"/d/f", 0, "hello, world"},
		{"/d/f", 7, "world"},
		{"/d/f", 12, ""},
		{"/d/f", 100, ""},
		{"/flink", 7, "world"},
		{"/dlink/f", 0, "hello, world"},
		{"/dlink/../d/./f", 0, "hello, world"},
	}
	for _, tt := range reads {
		r, info, err := ws.Open(ctx, tt.path, tt.offset)
		if err != nil {
			t.Errorf("Open(%q): %v", tt.path, err)
			continue
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(b) != tt.want {
			t.Errorf("Open(%q, %d) read %q, %v; want %q", tt.path, tt.offset, b, err, tt.want)
		}
		if info.Type != vfs.TypeFile || info.Size != 12 || info.Mode != 0o600 {
			t.Errorf("Open(%q) info = %+v, want the target file's", tt.path, info)
		}
	}
	errs := []struct {
		path string
		code errno.Code
		msg  string
	}{
		{"/missing", errno.ENOENT, toolspec.MsgNoSuchFile("/missing")},
		{"/d//missing", errno.ENOENT, toolspec.MsgNoSuchFile("/d//missing")},
		{"/dangling", errno.ENOENT, toolspec.MsgNoSuchFile("/dangling")},
		{"/d/f/x", errno.ENOENT, toolspec.MsgNoSuchFile("/d/f/x")},
		{"/d", errno.EISDIR, toolspec.MsgIsDirectory("/d")},
		{"/d/", errno.EISDIR, toolspec.MsgIsDirectory("/d/")},
		{"/dlink", errno.EISDIR, toolspec.MsgIsDirectory("/dlink")},
		{"/", errno.EISDIR, toolspec.MsgIsDirectory("/")},
	}
	for _, tt := range errs {
		_, _, err := ws.Open(ctx, tt.path, 0)
		wantErr(t, fmt.Sprintf("Open(%q)", tt.path), err, tt.code, tt.msg)
	}
}

func u32(v uint32) *uint32 { return &v }

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
			code: errno.ENOSPC, msg: toolspec.MsgHostIO("write", "/a/b/c.txt", "no space left on device"),
		},
		{
			name:  "write fails after creating some parents",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failWrite: always} },
			setup: []op{file("/a/keep", "k")},
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/a/b/c/d.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO("write", "/a/b/c/d.txt", "no space left on device"),
		},
		{
			name:  "write fails through a symlinked parent",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failWrite: always} },
			setup: []op{dir("/real"), link("/ld", "/real")},
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/ld/x/y.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO("write", "/real/x/y.txt", "no space left on device"),
		},
		{
			name:  "a parent's mkdir fails",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failMkdir: is("a/b")} },
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.WriteFile(ctx, "/a/b/c/d.txt", []byte("x"), vfs.WriteOptions{CreateParents: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO("mkdir", "/a/b", "no space left on device"),
		},
		{
			name:  "recursive mkdir fails at the last directory",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failMkdir: is("a/b/c")} },
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.Mkdir(ctx, "/a/b/c", vfs.MkdirOptions{Recursive: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO("mkdir", "/a/b/c", "no space left on device"),
		},
		{
			name:  "recursive mkdir fails at a parent",
			store: func(s vfs.Store) *failingStore { return &failingStore{Store: s, failMkdir: is("a/b")} },
			setup: []op{file("/x", "x")},
			call: func(ctx context.Context, ws *vfs.Workspace) error {
				return ws.Mkdir(ctx, "/a/b/c", vfs.MkdirOptions{Recursive: true})
			},
			code: errno.ENOSPC, msg: toolspec.MsgHostIO("mkdir", "/a/b", "no space left on device"),
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
