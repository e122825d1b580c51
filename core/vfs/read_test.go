// Tests of reading (read.go): ReadDir and Open.

package vfs_test

import (
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

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
