package storetest

import (
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
)

// testPathStatter checks LstatPath against Lstat of each prefix: it
// describes name and the elements after it as Lstat does, stops after a
// node that is no directory (a file, a link to a directory) and before a
// missing one, and refuses malformed elements.
func testPathStatter(t *testing.T, s vfs.Store, ps vfs.PathStatter) {
	ctx := t.Context()
	mustMkdir(t, s, "a", 0o755)
	mustMkdir(t, s, "a/b", 0o700)
	mustMkdir(t, s, "a/b/c", 0o755)
	mustWrite(t, s, "a/b/c/f", "data", 0o640)
	mustSymlink(t, s, "b", "a/link")
	mustMkdir(t, s, "a-b", 0o755)
	cases := []struct {
		name  string
		elems []string
		want  int // how many nodes it describes
	}{
		{"", nil, 1},
		{"", []string{"a", "b", "c", "f"}, 5},
		{"a", []string{"b", "c"}, 3},
		{"a/b", nil, 1},
		{"", []string{"a", "b", "c", "f", "x", "y"}, 5},
		{"", []string{"a", "link", "c"}, 3},
		{"", []string{"a", "missing", "c"}, 2},
		{"a", []string{"b", "c", "f", "g"}, 4},
		{"missing", []string{"a"}, 0},
		{"a/b/c/f", []string{"x"}, 1},
		{"", []string{"a-b"}, 2},
		{"a", strings.Split(strings.Repeat("b/", 20)+"b", "/"), 2},
	}
	for _, c := range cases {
		got, err := ps.LstatPath(ctx, c.name, c.elems)
		if err != nil {
			t.Fatalf("LstatPath(%q, %q): %v", c.name, c.elems, err)
		}
		if len(got) != c.want {
			t.Fatalf("LstatPath(%q, %q) described %d nodes, want %d: %+v", c.name, c.elems, len(got), c.want, got)
		}
		name := c.name
		for i, info := range got {
			if i > 0 {
				if name != "" {
					name += "/"
				}
				name += c.elems[i-1]
			}
			want := Lstat(t, s, name)
			if name != "" && info != want {
				t.Errorf("LstatPath(%q, %q)[%d] = %+v, Lstat(%q) = %+v", c.name, c.elems, i, info, name, want)
			}
			if name == "" && info.Type != vfs.TypeDir {
				t.Errorf("LstatPath of the root = %+v", info)
			}
		}
	}
	for _, elems := range [][]string{{"a/b"}, {"."}, {".."}, {""}, {"a\x00"}} {
		_, err := ps.LstatPath(ctx, "", elems)
		wantCode(t, "LstatPath of a malformed element", err, errno.EINVAL)
	}
}
