// Tests of path canonicalization (path.go).

package vfs_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

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
