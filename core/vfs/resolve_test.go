// Tests of path resolution (resolve.go): symbolic links, their limit and
// loops, Stat versus Lstat.

package vfs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

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
