package hostfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

const secret = "TOP SECRET: never shown to a model"

// confined is a host tree
//
//	base/outside/secret.txt, base/outside/sub/deep.txt
//	base/inside/...          mounted at /workspace over a memfs root
//
// with host symbolic links inside/ that point outside in every way.
type confined struct {
	base, inside, outside string
	secretPath            string // host path of outside/secret.txt
	root                  *memfs.FS
	host                  *hostfs.FS
	ws                    *vfs.Workspace
}

// The links created in inside/, by name.
func (c *confined) links() map[string]string {
	return map[string]string{
		"abs_file":   c.secretPath,
		"abs_dir":    c.outside,
		"rel_file":   "../outside/secret.txt",
		"rel_dir":    "../outside",
		"far":        "../../../../../../etc/passwd",
		"to_root":    "/",
		"sub/up_out": "../../outside/secret.txt",
		"inner_link": "inner.txt", // stays inside: the positive control
	}
}

func newConfined(t *testing.T) *confined {
	t.Helper()
	base := t.TempDir()
	c := &confined{
		base:    base,
		inside:  filepath.Join(base, "inside"),
		outside: filepath.Join(base, "outside"),
	}
	c.secretPath = filepath.Join(c.outside, "secret.txt")
	for _, d := range []string{c.inside, filepath.Join(c.inside, "sub"), filepath.Join(c.outside, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string]string{
		c.secretPath: secret,
		filepath.Join(c.outside, "sub", "deep.txt"): secret + " (deep)",
		filepath.Join(c.inside, "inner.txt"):        "inner",
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range c.links() {
		if err := os.Symlink(target, filepath.Join(c.inside, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	host, err := hostfs.Open(c.inside)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	c.host = host
	c.root = memfs.New()
	c.ws = vfs.New(c.root)
	if err := c.ws.Mount(t.Context(), "/workspace", host, vfs.MountOptions{}); err != nil {
		t.Fatal(err)
	}
	return c
}

// snapshot describes every host node under base except inside/: type,
// mode, size, mtime in nanoseconds, and content or link target.
func (c *confined) snapshot(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(c.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == c.inside {
			// The mount point itself is inside; only its existence counts.
			m[p] = "inside"
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v size=%d mtime=%d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		}
		m[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// unchanged fails if anything outside inside/ differs from before.
func (c *confined) unchanged(t *testing.T, what string, before map[string]string) {
	t.Helper()
	after := c.snapshot(t)
	if maps.Equal(before, after) {
		return
	}
	for _, p := range slices.Sorted(maps.Keys(before)) {
		if before[p] != after[p] {
			t.Errorf("%s changed %s outside the mount:\n-%s\n+%s", what, p, before[p], after[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created %s outside the mount: %s", what, p, after[p])
		}
	}
}

func wantErr(t *testing.T, what string, err error, code errno.Code, msg string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %s %q", what, code, msg)
		return
	}
	if got := errno.CodeOf(err); got != code || err.Error() != msg {
		t.Errorf("%s: error %s %q, want %s %q", what, got, err.Error(), code, msg)
	}
}

// readEverything reads every file and lists every directory the
// workspace shows, following each link it meets once, and returns all
// it read.
func readEverything(t *testing.T, ws *vfs.Workspace) string {
	t.Helper()
	ctx := t.Context()
	var all strings.Builder
	seen := map[string]bool{}
	var visit func(p string)
	visit = func(p string) {
		if seen[p] || strings.Count(p, "/") > 8 {
			return
		}
		seen[p] = true
		if r, _, err := ws.Open(ctx, p, 0); err == nil {
			b, _ := io.ReadAll(r)
			r.Close()
			all.Write(b)
			all.WriteByte('\n')
		}
		entries, err := ws.ReadDir(ctx, p, 0, -1)
		if err != nil {
			return
		}
		for _, e := range entries {
			visit(vfs.Join(p, e.Name))
		}
	}
	visit("/")
	return all.String()
}

func TestConfinedReads(t *testing.T) {
	c := newConfined(t)
	before := c.snapshot(t)
	ctx := t.Context()

	// The positive control: reading inside works, also through a link.
	for _, p := range []string{"/workspace/inner.txt", "/workspace/inner_link", "/workspace/to_root/workspace/inner_link"} {
		r, _, err := c.ws.Open(ctx, p, 0)
		if err != nil {
			t.Fatalf("Open(%q): %v", p, err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if string(b) != "inner" {
			t.Errorf("Open(%q) read %q, want %q", p, b, "inner")
		}
	}

	// Every link out names a workspace path that does not exist.
	missing := []string{
		"/workspace/abs_file",
		"/workspace/abs_dir",
		"/workspace/abs_dir/secret.txt",
		"/workspace/rel_file",
		"/workspace/rel_dir",
		"/workspace/rel_dir/secret.txt",
		"/workspace/far",
		"/workspace/sub/up_out",
		"/workspace/to_root/etc/passwd",
		"/workspace/to_root/outside/secret.txt",
		"/workspace/../outside/secret.txt", // lexical: /outside/secret.txt
		"/workspace/../etc",
		"/workspace/sub/../../etc/passwd",
		c.secretPath, // a host path is a workspace path
	}
	for _, p := range missing {
		_, err := c.ws.Stat(ctx, p)
		wantErr(t, fmt.Sprintf("Stat(%q)", p), err, errno.ENOENT, toolspec.MsgNoSuchPath(p))
		_, _, err = c.ws.Open(ctx, p, 0)
		wantErr(t, fmt.Sprintf("Open(%q)", p), err, errno.ENOENT, toolspec.MsgNoSuchFile(p))
		canon, _, _ := vfs.Canonical(p)
		_, err = c.ws.ReadDir(ctx, p, 0, -1)
		wantErr(t, fmt.Sprintf("ReadDir(%q)", p), err, errno.ENOENT, toolspec.MsgNoSuchPath(canon))
	}

	// ".." above "/" is refused, not clamped.
	for _, p := range []string{"/workspace/../../outside/secret.txt", "/../etc/passwd"} {
		_, _, err := c.ws.Open(ctx, p, 0)
		wantErr(t, fmt.Sprintf("Open(%q)", p), err, errno.EINVAL, toolspec.MsgInvalidPathEscapes(p))
	}

	// A link to "/" is the workspace root, not the host's.
	entries, err := c.ws.ReadDir(ctx, "/workspace/to_root", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name != "workspace" || entries[0].Type != vfs.TypeDir {
		t.Errorf("ReadDir(/workspace/to_root) = %+v, want only the workspace directory", entries)
	}

	// Lstat shows the links as they are, with their verbatim targets.
	for name, target := range c.links() {
		p := "/workspace/" + name
		info, err := c.ws.Lstat(ctx, p)
		if err != nil || info.Type != vfs.TypeSymlink || info.Target != target || info.Size != vfs.UTF16Len(target) {
			t.Errorf("Lstat(%q) = %+v, %v; want a link to %q", p, info, err, target)
		}
	}

	// Nothing reachable holds the secret.
	all := readEverything(t, c.ws)
	if strings.Contains(all, secret[:10]) {
		t.Errorf("the workspace reads the secret:\n%s", all)
	}
	if !strings.Contains(all, "inner") {
		t.Errorf("the workspace walk read nothing inside; it proves nothing:\n%s", all)
	}
	c.unchanged(t, "reads", before)
}

// TestConfinedAbsoluteTargetsAreWorkspacePaths puts decoys in the memfs
// root at the paths the links name: the links reach the decoys, never
// the host files.
func TestConfinedAbsoluteTargetsAreWorkspacePaths(t *testing.T) {
	c := newConfined(t)
	ctx := t.Context()
	for _, p := range []string{c.secretPath, "/outside/secret.txt", "/etc/passwd"} {
		if err := c.ws.WriteFile(ctx, p, []byte("decoy "+p), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	before := c.snapshot(t)
	tests := []struct{ path, want string }{
		{"/workspace/abs_file", "decoy " + c.secretPath},
		{"/workspace/abs_dir/secret.txt", "decoy " + c.secretPath},
		{"/workspace/rel_file", "decoy /outside/secret.txt"},
		{"/workspace/rel_dir/secret.txt", "decoy /outside/secret.txt"},
		{"/workspace/sub/up_out", "decoy /outside/secret.txt"},
		{"/workspace/far", "decoy /etc/passwd"},
		{"/workspace/to_root/etc/passwd", "decoy /etc/passwd"},
	}
	for _, tt := range tests {
		r, _, err := c.ws.Open(ctx, tt.path, 0)
		if err != nil {
			t.Errorf("Open(%q): %v", tt.path, err)
			continue
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if string(b) != tt.want {
			t.Errorf("Open(%q) read %q, want %q", tt.path, b, tt.want)
		}
	}
	// Writes through the links change the decoys.
	for _, p := range []string{"/workspace/abs_file", "/workspace/rel_file", "/workspace/abs_dir/sub/new.txt"} {
		if err := c.ws.WriteFile(ctx, p, []byte("changed"), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Errorf("WriteFile(%q): %v", p, err)
		}
	}
	for _, name := range []string{
		strings.TrimPrefix(c.secretPath, "/"),
		"outside/secret.txt",
		strings.TrimPrefix(filepath.Join(c.outside, "sub", "new.txt"), "/"),
	} {
		info, err := c.root.Lstat(ctx, name)
		if err != nil || info.Size != int64(len("changed")) {
			t.Errorf("memfs root %q after writes through links: %+v, %v", name, info, err)
		}
	}
	c.unchanged(t, "writes through links to decoys", before)
}

func TestConfinedChanges(t *testing.T) {
	wo := vfs.WriteOptions{CreateParents: true}
	type call func(ctx context.Context, c *confined) error
	write := func(p string) call {
		return func(ctx context.Context, c *confined) error { return c.ws.WriteFile(ctx, p, []byte("pwned"), wo) }
	}
	tests := []struct {
		name string
		call call
		code errno.Code // "" for success
		msg  func(c *confined) string
		// check runs after a success.
		check func(t *testing.T, c *confined)
	}{
		{name: "write through an absolute file link", call: write("/workspace/abs_file"),
			code: errno.ENOENT, msg: func(c *confined) string { return toolspec.MsgParentMissing(c.secretPath) }},
		{name: "write through a relative file link", call: write("/workspace/rel_file"),
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/outside/secret.txt") }},
		{name: "write through a link climbing far", call: write("/workspace/far"),
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/etc/passwd") }},
		{name: "write through a link in a subdirectory", call: write("/workspace/sub/up_out"),
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/outside/secret.txt") }},
		{name: "write below an absolute directory link", call: write("/workspace/abs_dir/secret.txt"),
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/workspace/abs_dir") }},
		{name: "write below a relative directory link", call: write("/workspace/rel_dir/sub/new.txt"),
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/workspace/rel_dir/sub") }},
		{name: "write with .. in the path", call: write("/workspace/../outside/secret.txt"),
			check: func(t *testing.T, c *confined) { inMemfsRoot(t, c, "outside/secret.txt") }},
		{name: "write with .. above the root", call: write("/workspace/../../outside/secret.txt"),
			code: errno.EINVAL, msg: func(*confined) string { return toolspec.MsgInvalidPathEscapes("/workspace/../../outside/secret.txt") }},
		{name: "write below the link to /", call: write("/workspace/to_root/outside/secret.txt"),
			check: func(t *testing.T, c *confined) { inMemfsRoot(t, c, "outside/secret.txt") }},
		{name: "mkdir below an absolute directory link",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Mkdir(ctx, "/workspace/abs_dir/newdir", vfs.MkdirOptions{Recursive: true})
			},
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/workspace/abs_dir/newdir") }},
		{name: "mkdir below a relative directory link",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Mkdir(ctx, "/workspace/rel_dir/newdir", vfs.MkdirOptions{})
			},
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/workspace/rel_dir/newdir") }},
		{name: "remove below an absolute directory link",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/abs_dir/secret.txt", vfs.RemoveOptions{})
			},
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgNoSuchPath("/workspace/abs_dir/secret.txt") }},
		{name: "remove below a relative directory link, forced",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/rel_dir/sub", vfs.RemoveOptions{Recursive: true, Force: true})
			}},
		{name: "recursive remove of a directory link removes the link",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/abs_dir", vfs.RemoveOptions{Recursive: true})
			},
			check: func(t *testing.T, c *confined) { goneOnHost(t, c, "abs_dir") }},
		{name: "recursive remove of a relative directory link removes the link",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/rel_dir/", vfs.RemoveOptions{Recursive: true})
			},
			check: func(t *testing.T, c *confined) { goneOnHost(t, c, "rel_dir") }},
		{name: "recursive remove of the mount's contents keeps links' targets",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/sub", vfs.RemoveOptions{Recursive: true})
			},
			check: func(t *testing.T, c *confined) { goneOnHost(t, c, "sub") }},
		{name: "remove the link to / removes the link",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/to_root", vfs.RemoveOptions{Recursive: true})
			},
			check: func(t *testing.T, c *confined) { goneOnHost(t, c, "to_root") }},
		{name: "remove the mount through the link to /",
			call: func(ctx context.Context, c *confined) error {
				return c.ws.Remove(ctx, "/workspace/to_root/workspace", vfs.RemoveOptions{Recursive: true})
			},
			code: errno.EBUSY, msg: func(*confined) string { return toolspec.MsgMountPoint("/workspace") }},
		{name: "chmod through an absolute file link",
			call: func(ctx context.Context, c *confined) error { return c.ws.Chmod(ctx, "/workspace/abs_file", 0o777) },
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgNoSuchPath("/workspace/abs_file") }},
		{name: "chmod through a relative directory link",
			call: func(ctx context.Context, c *confined) error { return c.ws.Chmod(ctx, "/workspace/rel_dir", 0o777) },
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgNoSuchPath("/workspace/rel_dir") }},
		{name: "new absolute link to the host secret, then write",
			call: func(ctx context.Context, c *confined) error {
				if err := c.ws.Symlink(ctx, c.secretPath, "/workspace/new_abs"); err != nil {
					return err
				}
				return c.ws.WriteFile(ctx, "/workspace/new_abs", []byte("pwned"), wo)
			},
			code: errno.ENOENT, msg: func(c *confined) string { return toolspec.MsgParentMissing(c.secretPath) }},
		{name: "new relative link out, then write",
			call: func(ctx context.Context, c *confined) error {
				if err := c.ws.Symlink(ctx, "../outside/secret.txt", "/workspace/new_rel"); err != nil {
					return err
				}
				return c.ws.WriteFile(ctx, "/workspace/new_rel", []byte("pwned"), wo)
			},
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/outside/secret.txt") }},
		{name: "new relative directory link out, then write below it",
			call: func(ctx context.Context, c *confined) error {
				if err := c.ws.Symlink(ctx, "../outside", "/workspace/new_dir"); err != nil {
					return err
				}
				return c.ws.WriteFile(ctx, "/workspace/new_dir/secret.txt", []byte("pwned"), wo)
			},
			code: errno.ENOENT, msg: func(*confined) string { return toolspec.MsgParentMissing("/workspace/new_dir") }},
		{name: "new link to /, then write below it",
			call: func(ctx context.Context, c *confined) error {
				if err := c.ws.Symlink(ctx, "/", "/workspace/new_root"); err != nil {
					return err
				}
				return c.ws.WriteFile(ctx, "/workspace/new_root/"+hostRootName(c), []byte("pwned"), wo)
			},
			check: func(t *testing.T, c *confined) { inMemfsRoot(t, c, hostRootName(c)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConfined(t)
			before := c.snapshot(t)
			err := tt.call(t.Context(), c)
			switch {
			case tt.code != "":
				wantErr(t, tt.name, err, tt.code, tt.msg(c))
			case err != nil:
				t.Errorf("%s: %v", tt.name, err)
			case tt.check != nil:
				tt.check(t, c)
			}
			c.unchanged(t, tt.name, before)
			if _, err := os.Lstat(filepath.Join("/", hostRootName(c))); err == nil {
				t.Errorf("%s created %s in the host's root directory", tt.name, hostRootName(c))
			}
			if got := readEverything(t, c.ws); strings.Contains(got, secret[:10]) {
				t.Errorf("after %s the workspace reads the secret", tt.name)
			}
		})
	}
}

// hostRootName is a file name unique to the test, to look for in the
// host's "/".
func hostRootName(c *confined) string {
	return "agenttools-confine-" + filepath.Base(filepath.Dir(c.base)) + filepath.Base(c.base)
}

func inMemfsRoot(t *testing.T, c *confined, name string) {
	t.Helper()
	r, err := c.root.Open(t.Context(), name, 0)
	if err != nil {
		t.Errorf("memfs root %q: %v", name, err)
		return
	}
	defer r.Close()
	if b, _ := io.ReadAll(r); string(b) != "pwned" {
		t.Errorf("memfs root %q = %q, want %q", name, b, "pwned")
	}
}

func goneOnHost(t *testing.T, c *confined, name string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(c.inside, name)); !os.IsNotExist(err) {
		t.Errorf("inside/%s still exists on the host (%v)", name, err)
	}
}

// TestHostfsRefusesEscapes calls the Store directly, bypassing the
// Workspace, with names that leave the directory lexically or through a
// host link on the way: os.Root refuses every one.
func TestHostfsRefusesEscapes(t *testing.T) {
	c := newConfined(t)
	before := c.snapshot(t)
	ctx := t.Context()
	names := []string{
		"..",
		"../outside",
		"../outside/secret.txt",
		"sub/../../outside/secret.txt",
		"../../../../../../etc/passwd",
		c.secretPath,
		"/etc/passwd",
		"abs_dir/secret.txt",
		"abs_dir/sub",
		"rel_dir/secret.txt",
		"rel_dir/sub/deep.txt",
		"to_root/etc/passwd",
		"far/x",
	}
	ops := []struct {
		name string
		call func(name string) (string, error)
	}{
		{"Lstat", func(n string) (string, error) {
			info, err := c.host.Lstat(ctx, n)
			return fmt.Sprintf("%+v", info), err
		}},
		{"ReadDir", func(n string) (string, error) {
			entries, err := c.host.ReadDir(ctx, n, 0, -1)
			return fmt.Sprintf("%+v", entries), err
		}},
		{"Open", func(n string) (string, error) {
			r, err := c.host.Open(ctx, n, 0)
			if err != nil {
				return "", err
			}
			defer r.Close()
			b, _ := io.ReadAll(r)
			return string(b), nil
		}},
		{"WriteFile", func(n string) (string, error) {
			return "", c.host.WriteFile(ctx, n, bytes.NewReader([]byte("pwned")), 0o644)
		}},
		{"Mkdir", func(n string) (string, error) { return "", c.host.Mkdir(ctx, n, 0o755) }},
		{"Mkdir below", func(n string) (string, error) { return "", c.host.Mkdir(ctx, n+"/new", 0o755) }},
		{"Symlink", func(n string) (string, error) { return "", c.host.Symlink(ctx, "x", n) }},
		{"Symlink below", func(n string) (string, error) { return "", c.host.Symlink(ctx, "x", n+"/link") }},
		{"WriteFile below", func(n string) (string, error) {
			return "", c.host.WriteFile(ctx, n+"/new.txt", bytes.NewReader([]byte("pwned")), 0o644)
		}},
		{"Chmod", func(n string) (string, error) { return "", c.host.Chmod(ctx, n, 0o777) }},
		{"Remove", func(n string) (string, error) { return "", c.host.Remove(ctx, n) }},
		{"RemoveAll", func(n string) (string, error) { return "", c.host.RemoveAll(ctx, n) }},
	}
	for _, op := range ops {
		for _, n := range names {
			got, err := op.call(n)
			if err == nil {
				t.Errorf("hostfs %s(%q) succeeded (%s), want it refused", op.name, n, got)
			}
			if strings.Contains(got, secret[:10]) {
				t.Errorf("hostfs %s(%q) returned the secret", op.name, n)
			}
		}
	}
	c.unchanged(t, "direct store calls", before)
}

// TestHostfsLinksAreNotFollowed calls the Store directly on the links
// themselves: it acts on the link (Lstat, Remove) or refuses (Open,
// ReadDir, Chmod), and never reaches the target.
func TestHostfsLinksAreNotFollowed(t *testing.T) {
	c := newConfined(t)
	ctx := t.Context()
	before := c.snapshot(t)
	for name, target := range c.links() {
		info, err := c.host.Lstat(ctx, name)
		if err != nil || info.Type != vfs.TypeSymlink || info.Target != target {
			t.Errorf("Lstat(%q) = %+v, %v; want a link to %q", name, info, err, target)
		}
		if r, err := c.host.Open(ctx, name, 0); err == nil {
			b, _ := io.ReadAll(r)
			r.Close()
			t.Errorf("Open(%q) read %q, want it refused", name, b)
		}
		if entries, err := c.host.ReadDir(ctx, name, 0, -1); err == nil {
			t.Errorf("ReadDir(%q) listed %+v, want it refused", name, entries)
		}
		if err := c.host.Chmod(ctx, name, 0o700); err == nil {
			t.Errorf("Chmod(%q) succeeded, want it refused", name)
		}
	}
	c.unchanged(t, "reads of links", before)
	// Writing over a link (which may replace the link or fail: the
	// Workspace never asks it) and removing it change the link only.
	for name := range c.links() {
		_ = c.host.WriteFile(ctx, name, bytes.NewReader([]byte("pwned")), 0o644)
		if err := c.host.Remove(ctx, name); err != nil {
			t.Errorf("Remove(%q): %v", name, err)
		}
	}
	c.unchanged(t, "replacing and removing links", before)
	if b, err := os.ReadFile(c.secretPath); err != nil || string(b) != secret {
		t.Errorf("the secret is now %q, %v", b, err)
	}
}
