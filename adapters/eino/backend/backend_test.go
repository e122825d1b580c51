package backend_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/eino/backend"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// The fixture: Eino's own middleware test files, under /workspace (a
// host directory in the hostfs workspace), and a few more.
var fixture = []struct{ path, content string }{
	{"/workspace/file1.txt", "line1\nline2\nline3\nline4\nline5"},
	{"/workspace/file2.go", "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}"},
	{"/workspace/dir1/file3.txt", "hello world\nfoo bar\nhello again"},
	{"/workspace/dir1/file4.py", "print('hello')\nprint('world')"},
	{"/workspace/dir2/file5.go", "package test\n\nfunc test() {}"},
	{"/workspace/crlf.txt", "a\r\nb\r\n"},
	{"/workspace/empty.txt", ""},
	{"/workspace/data/fa.csv", "a"},
	{"/workspace/data/fb.csv", "b"},
	{"/workspace/data/fc.csv", "c"},
	{"/workspace/data/fd.csv", "d"},
	{"/workspace/long.txt", longText(250)},
}

func longText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	return b.String()
}

// stores are the workspaces every case runs on.
var stores = []testws.Store{testws.Memory, testws.HostDir, testws.SQLite}

// newBackend is our Backend on a fresh workspace of the store, with the
// fixture written through it.
func newBackend(t *testing.T, s testws.Store, opts agenttools.Options) (filesystem.Backend, *vfs.Workspace) {
	t.Helper()
	ws := s.New(t)
	b := mustNew(t, ws, opts)
	write(t, b)
	return b, ws
}

func mustNew(t *testing.T, ws *vfs.Workspace, opts agenttools.Options) filesystem.Backend {
	t.Helper()
	b, err := backend.New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, b filesystem.Backend) {
	t.Helper()
	for _, f := range fixture {
		if err := b.Write(t.Context(), &filesystem.WriteRequest{FilePath: f.path, Content: f.content}); err != nil {
			t.Fatalf("write %s: %v", f.path, err)
		}
	}
}

// einoBackend is Eino's InMemoryBackend with the fixture.
func einoBackend(t *testing.T) filesystem.Backend {
	b := filesystem.NewInMemoryBackend()
	write(t, b)
	return b
}

// op is one call of a case; its result is rendered as text: paths one a
// line, grep matches as "path:line:content" (the middleware's content
// mode), read's text, "ok" for a write or an edit, then for those the
// file's content afterwards; an error is "error".
type op func(ctx context.Context, b filesystem.Backend) (string, error)

func ls(p string) op {
	return func(ctx context.Context, b filesystem.Backend) (string, error) {
		infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: p})
		return paths(infos), err
	}
}

func glob(pattern, p string) op {
	return func(ctx context.Context, b filesystem.Backend) (string, error) {
		infos, err := b.GlobInfo(ctx, &filesystem.GlobInfoRequest{Pattern: pattern, Path: p})
		return paths(infos), err
	}
}

func paths(infos []filesystem.FileInfo) string {
	var out []string
	for _, fi := range infos {
		out = append(out, fi.Path)
	}
	return strings.Join(out, "\n")
}

func grep(pattern, p, glob string) op {
	return func(ctx context.Context, b filesystem.Backend) (string, error) {
		matches, err := b.GrepRaw(ctx, &filesystem.GrepRequest{Pattern: pattern, Path: p, Glob: glob})
		var out []string
		for _, m := range matches {
			out = append(out, m.Path+":"+strconv.Itoa(m.Line)+":"+m.Content)
		}
		return strings.Join(out, "\n"), err
	}
}

func read(p string, offset, limit int) op {
	return func(ctx context.Context, b filesystem.Backend) (string, error) {
		return b.Read(ctx, &filesystem.ReadRequest{FilePath: p, Offset: offset, Limit: limit})
	}
}

// content is the whole file as Read shows it ("" when it is missing).
func content(ctx context.Context, b filesystem.Backend, p string) string {
	s, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: p, Limit: 1 << 20})
	if err != nil {
		return "<missing>"
	}
	return s
}

func writeFile(p, text string) op {
	return func(ctx context.Context, b filesystem.Backend) (string, error) {
		err := b.Write(ctx, &filesystem.WriteRequest{FilePath: p, Content: text})
		return "ok\n" + content(ctx, b, p), err
	}
}

func edit(p, old, new string, all bool) op {
	return func(ctx context.Context, b filesystem.Backend) (string, error) {
		err := b.Edit(ctx, &filesystem.EditRequest{FilePath: p, OldString: old, NewString: new, ReplaceAll: all})
		return "ok\n" + content(ctx, b, p), err
	}
}

// render is a call's result as a case states it: an error is "error"
// and, after a failed write or edit, the file as it is then.
func render(ctx context.Context, b filesystem.Backend, o op) string {
	out, err := o(ctx, b)
	if err != nil {
		if rest, ok := strings.CutPrefix(out, "ok\n"); ok {
			return "error\n" + rest
		}
		return "error"
	}
	return out
}

// unordered is a result with its lines sorted: Eino's InMemoryBackend
// lists in map order.
func unordered(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

const (
	file1Numbered = "     1\tline1\n     2\tline2\n     3\tline3\n     4\tline4\n     5\tline5"
	dataAll       = "/workspace/data/fa.csv\n/workspace/data/fb.csv\n/workspace/data/fc.csv\n/workspace/data/fd.csv"
)

func numbered(from, to int) string {
	var lines []string
	for i := from; i <= to; i++ {
		lines = append(lines, fmt.Sprintf("%6d\trow %d", i, i))
	}
	return strings.Join(lines, "\n")
}

// cases are the conformance cases. want is our result, exactly (in walk
// order), and code the error's code where it matters; eino is what Eino's
// InMemoryBackend gives for the same call (lines in any order) where it
// differs, with why; otherwise it must give want.
var cases = []struct {
	name string
	op   op
	want string
	code errno.Code
	eino string // "" when the InMemoryBackend gives want
	why  string
}{
	{name: "ls dir", op: ls("/workspace/dir1"), want: "/workspace/dir1/file3.txt\n/workspace/dir1/file4.py"},
	{name: "ls trailing slash", op: ls("/workspace/dir1/"), want: "/workspace/dir1/file3.txt\n/workspace/dir1/file4.py"},
	{name: "ls relative", op: ls("workspace/dir1"), want: "/workspace/dir1/file3.txt\n/workspace/dir1/file4.py"},
	{name: "ls empty is root", op: ls(""), want: "/workspace"},
	{name: "ls workspace", op: ls("/workspace"), want: "/workspace/crlf.txt\n/workspace/data\n/workspace/dir1\n/workspace/dir2\n/workspace/empty.txt\n/workspace/file1.txt\n/workspace/file2.go\n/workspace/long.txt"},
	{name: "ls file lists itself", op: ls("/workspace/file1.txt"), want: "/workspace/file1.txt"},
	{name: "ls missing lists nothing", op: ls("/workspace/nope"), want: ""},
	{name: "ls dotdot inside", op: ls("/workspace/dir1/../dir2"), want: "/workspace/dir2/file5.go"},

	{name: "read full", op: read("/workspace/file1.txt", 0, 100), want: file1Numbered},
	{name: "read offset", op: read("/workspace/file1.txt", 2, 2), want: "     3\tline3\n     4\tline4"},
	{name: "read default limit", op: read("/workspace/file1.txt", 0, 0), want: file1Numbered},
	{name: "read negative offset", op: read("/workspace/file1.txt", -1, 2), want: "     1\tline1\n     2\tline2"},
	{name: "read past end", op: read("/workspace/file1.txt", 5, 10), want: ""},
	{name: "read last line", op: read("/workspace/file1.txt", 4, 10), want: "     5\tline5"},
	{name: "read default limit is 200", op: read("/workspace/long.txt", 0, 0), want: numbered(1, 200)},
	{name: "read trailing newline is an empty line", op: read("/workspace/long.txt", 248, 10), want: numbered(249, 250) + "\n   251\t"},
	{name: "read keeps CR", op: read("/workspace/crlf.txt", 0, 0), want: "     1\ta\r\n     2\tb\r\n     3\t"},
	{name: "read empty file", op: read("/workspace/empty.txt", 0, 0), want: "     1\t"},
	{name: "read relative", op: read("workspace/file1.txt", 0, 1), want: "     1\tline1"},
	{name: "read missing", op: read("/workspace/nope.txt", 0, 10), want: "error"},
	{name: "read directory", op: read("/workspace/dir1", 0, 10), want: "error"},

	{name: "write new with parents", op: writeFile("/workspace/new/deep/n.txt", "x\ny"), want: "ok\n     1\tx\n     2\ty"},
	{name: "write existing fails", op: writeFile("/workspace/file1.txt", "overwritten"), want: "error\n" + file1Numbered},
	{name: "write empty file", op: writeFile("/workspace/e2.txt", ""), want: "ok\n     1\t"},
	{name: "write over a directory fails", op: writeFile("/workspace/dir1", "x"), want: "error\n<missing>", eino: "ok\n     1\tx",
		why: "the InMemoryBackend has no directories: a file may take a directory's path"},

	{name: "edit unique", op: edit("/workspace/dir1/file3.txt", "hello again", "hi", false), want: "ok\n     1\thello world\n     2\tfoo bar\n     3\thi"},
	{name: "edit replace all", op: edit("/workspace/dir1/file3.txt", "hello", "hi", true), want: "ok\n     1\thi world\n     2\tfoo bar\n     3\thi again"},
	{name: "edit not unique fails", op: edit("/workspace/dir1/file3.txt", "hello", "hi", false), want: "error\n     1\thello world\n     2\tfoo bar\n     3\thello again"},
	{name: "edit not found fails", op: edit("/workspace/file1.txt", "line9", "x", false), want: "error\n" + file1Numbered},
	{name: "edit empty old fails", op: edit("/workspace/file1.txt", "", "x", false), want: "error\n" + file1Numbered},
	{name: "edit missing file fails", op: edit("/workspace/nope.txt", "a", "b", false), want: "error\n<missing>"},
	{name: "edit same text", op: edit("/workspace/file1.txt", "line2", "line2", false), want: "ok\n" + file1Numbered},
	{name: "edit across lines", op: edit("/workspace/crlf.txt", "a\r\nb", "c", false), want: "ok\n     1\tc\r\n     2\t"},

	{name: "glob in dir", op: glob("*.py", "/workspace/dir1"), want: "/workspace/dir1/file4.py"},
	{name: "glob class", op: glob("f[ab].csv", "/workspace/data"), want: "/workspace/data/fa.csv\n/workspace/data/fb.csv"},
	{name: "glob negated class", op: glob("f[^ab].csv", "/workspace/data"), want: "/workspace/data/fc.csv\n/workspace/data/fd.csv"},
	{name: "glob question mark", op: glob("f?.csv", "/workspace/data"), want: dataAll},
	{name: "glob missing path", op: glob("*", "/workspace/nope"), want: ""},
	{name: "glob invalid", op: glob("f[", "/workspace/data"), want: "error"},
	{name: "glob star is one level", op: glob("*.txt", "/workspace/dir1"), want: "/workspace/dir1/file3.txt"},
	{name: "glob top level", op: glob("*.txt", "/workspace"), want: "/workspace/crlf.txt\n/workspace/empty.txt\n/workspace/file1.txt\n/workspace/long.txt",
		eino: "/workspace/crlf.txt\n/workspace/dir1/file3.txt\n/workspace/empty.txt\n/workspace/file1.txt\n/workspace/long.txt",
		why:  "the InMemoryBackend matches base names at every depth; the glob tool's description says '*.txt' finds the text files in root"},
	{name: "glob double star", op: glob("**/*.go", "/workspace"), want: "/workspace/dir2/file5.go\n/workspace/file2.go", eino: "",
		why: "the InMemoryBackend matches base names with filepath.Match, where '**/' never matches; the description's example '**/*.py' finds all Python files"},
	{name: "glob absolute", op: glob("/workspace/dir*/*.txt", "/"), want: "/workspace/dir1/file3.txt", eino: "",
		why: "the InMemoryBackend matches base names only; the description says patterns can be absolute"},
	{name: "glob braces", op: glob("{fa,fc}.csv", "/workspace/data"), want: "/workspace/data/fa.csv\n/workspace/data/fc.csv", eino: "",
		why: "filepath.Match has no braces; doublestar's dialect does"},

	{name: "grep all", op: grep("hello", "/workspace", ""), want: "/workspace/dir1/file3.txt:1:hello world\n/workspace/dir1/file3.txt:3:hello again\n/workspace/dir1/file4.py:1:print('hello')\n/workspace/file2.go:4:\tprintln(\"hello\")"},
	{name: "grep empty path is root", op: grep("hello", "", "*.py"), want: "/workspace/dir1/file4.py:1:print('hello')"},
	{name: "grep glob base name", op: grep("hello", "/workspace", "*.txt"), want: "/workspace/dir1/file3.txt:1:hello world\n/workspace/dir1/file3.txt:3:hello again"},
	{name: "grep path", op: grep("package", "/workspace/dir2", ""), want: "/workspace/dir2/file5.go:1:package test"},
	{name: "grep file", op: grep("line", "/workspace/file1.txt", ""), want: "/workspace/file1.txt:1:line1\n/workspace/file1.txt:2:line2\n/workspace/file1.txt:3:line3\n/workspace/file1.txt:4:line4\n/workspace/file1.txt:5:line5"},
	{name: "grep literal", op: grep("('", "/workspace", ""), want: "/workspace/dir1/file4.py:1:print('hello')\n/workspace/dir1/file4.py:2:print('world')"},
	{name: "grep empty pattern", op: grep("", "/workspace/crlf.txt", ""), want: "/workspace/crlf.txt:1:a\r\n/workspace/crlf.txt:2:b\r\n/workspace/crlf.txt:3:"},
	{name: "grep missing path", op: grep("x", "/workspace/nope", ""), want: ""},
	{name: "grep invalid glob", op: grep("x", "/workspace", "["), want: "error"},
	{name: "grep glob with a slash", op: grep("hello", "/workspace", "dir1/*.txt"), want: "/workspace/dir1/file3.txt:1:hello world\n/workspace/dir1/file3.txt:3:hello again", eino: "",
		why: "the InMemoryBackend matches base names only; a glob with a '/' names a path"},

	// Paths that climb out of the workspace fail on every store and
	// change nothing. Eino's InMemoryBackend cleans "/../x" to "/x": it
	// has no outside to reach.
	{name: "read above root", op: read("/../workspace/file1.txt", 0, 1), want: "error", code: errno.EINVAL, eino: "     1\tline1", why: climbs},
	{name: "read relative above root", op: read("../../workspace/file1.txt", 0, 1), want: "error", code: errno.EINVAL, eino: "     1\tline1", why: climbs},
	{name: "read deep above root", op: read("/workspace/../../../etc/passwd", 0, 0), want: "error", code: errno.EINVAL},
	{name: "read NUL", op: read("/workspace/file1.txt\x00", 0, 0), want: "error", code: errno.EINVAL},
	{name: "ls above root", op: ls("/../workspace/dir2"), want: "error", code: errno.EINVAL, eino: "/workspace/dir2/file5.go", why: climbs},
	{name: "write above root", op: writeFile("/../escaped.txt", "x"), want: "error\n<missing>", code: errno.EINVAL, eino: "ok\n     1\tx", why: climbs},
	{name: "edit above root", op: edit("/../workspace/file1.txt", "line1", "x", false), want: "error\n<missing>", code: errno.EINVAL,
		eino: "ok\n     1\tx\n     2\tline2\n     3\tline3\n     4\tline4\n     5\tline5", why: climbs},
	{name: "glob above root", op: glob("*.go", "/workspace/../../workspace/dir2"), want: "error", code: errno.EINVAL, eino: "/workspace/dir2/file5.go", why: climbs},
	{name: "grep above root", op: grep("package", "/../workspace/dir2", ""), want: "error", code: errno.EINVAL, eino: "/workspace/dir2/file5.go:1:package test", why: climbs},
}

const climbs = "the InMemoryBackend cleans a path that climbs above / (filepath.Clean)"

// TestConformance runs each case on each store and on Eino's
// InMemoryBackend: ours must give want on every store, Eino's what the
// case says it gives.
func TestConformance(t *testing.T) {
	for _, s := range stores {
		t.Run(s.Name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					b, _ := newBackend(t, s, agenttools.Options{})
					if got := render(t.Context(), b, c.op); got != c.want {
						t.Errorf("ours (-want +got):\n%s", cmp.Diff(c.want, got))
					}
					if _, err := c.op(t.Context(), b); c.code != "" && errno.CodeOf(err) != c.code {
						t.Errorf("ours failed with %v, want %s", err, c.code)
					}
				})
			}
		})
	}
	t.Run("eino", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				want := c.want
				if c.why != "" {
					want = c.eino
				}
				if got := render(t.Context(), einoBackend(t), c.op); unordered(got) != unordered(want) {
					t.Errorf("Eino's InMemoryBackend (-want +got):\n%s", cmp.Diff(unordered(want), unordered(got)))
				}
			})
		}
	})
}

// TestErrorCodes checks the codes programs branch on.
func TestErrorCodes(t *testing.T) {
	for _, s := range stores {
		t.Run(s.Name, func(t *testing.T) {
			ctx := t.Context()
			b, _ := newBackend(t, s, agenttools.Options{})
			err := b.Write(ctx, &filesystem.WriteRequest{FilePath: "/workspace/file1.txt", Content: "x"})
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("write of an existing file: %v, want fs.ErrExist", err)
			}
			_, err = b.Read(ctx, &filesystem.ReadRequest{FilePath: "/workspace/nope"})
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("read of a missing file: %v, want fs.ErrNotExist", err)
			}
			err = b.Edit(ctx, &filesystem.EditRequest{FilePath: "/workspace/nope", OldString: "a"})
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("edit of a missing file: %v, want fs.ErrNotExist", err)
			}
			// Edit's own failures are *errno.Error too (EINVAL), so that a
			// ToolCallMiddleware finds our message under Eino's wrapping.
			err = b.Edit(ctx, &filesystem.EditRequest{FilePath: "/workspace/file1.txt", OldString: "line", NewString: "x"})
			if want := "old_string occurs 5 times in /workspace/file1.txt; give more surrounding context to make it unique, or set replace_all to replace every occurrence"; errno.CodeOf(err) != errno.EINVAL || err.Error() != want {
				t.Errorf("edit of a repeated string: %v (%s), want EINVAL %q", err, errno.CodeOf(err), want)
			}
			err = b.Edit(ctx, &filesystem.EditRequest{FilePath: "/workspace/file1.txt", OldString: "absent", NewString: "x"})
			if want := toolspec.MsgEditNotFound("/workspace/file1.txt"); errno.CodeOf(err) != errno.EINVAL || err.Error() != want {
				t.Errorf("edit of an absent string: %v (%s), want EINVAL %q", err, errno.CodeOf(err), want)
			}
		})
	}
}

// TestEditCap: a file longer than the edit cap is not edited, the cap
// being Edit.MaxBytes or, without it, the default of the options' surface
// (an overlay's edit.maxBytes).
func TestEditCap(t *testing.T) {
	ctx := t.Context()
	surface, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"edit": {Limits: map[string]int64{"maxBytes": 10}}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]agenttools.Options{
		"option":  {Edit: agenttools.EditOptions{MaxBytes: 10}},
		"overlay": {Surface: surface},
	} {
		b, _ := newBackend(t, testws.Memory, opts)
		err := b.Edit(ctx, &filesystem.EditRequest{FilePath: "/workspace/file1.txt", OldString: "line1", NewString: "x"})
		if errno.CodeOf(err) != errno.EFBIG || err.Error() != "File too large to edit: 29 bytes exceeds the 10-byte cap" {
			t.Errorf("%s: edit past the cap: %v", name, err)
		}
		if got := content(ctx, b, "/workspace/file1.txt"); got != file1Numbered {
			t.Errorf("%s: the file changed: %q", name, got)
		}
	}
}

// TestReadonly: with Options.Readonly, Write and Edit change nothing.
func TestReadonly(t *testing.T) {
	ctx := t.Context()
	ws := testws.Memory.New(t)
	if err := ws.WriteFile(ctx, "/workspace/a.txt", []byte("a"), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	b := mustNew(t, ws, agenttools.Options{Readonly: true})
	if err := b.Write(ctx, &filesystem.WriteRequest{FilePath: "/workspace/b.txt", Content: "b"}); errno.CodeOf(err) != errno.EROFS || err.Error() != toolspec.MsgEinoReadOnly("/workspace/b.txt") {
		t.Errorf("write: %v, want EROFS with %q", err, toolspec.MsgEinoReadOnly("/workspace/b.txt"))
	}
	if err := b.Edit(ctx, &filesystem.EditRequest{FilePath: "/workspace/a.txt", OldString: "a", NewString: "b"}); errno.CodeOf(err) != errno.EROFS {
		t.Errorf("edit: %v, want EROFS", err)
	}
	if got := content(ctx, b, "/workspace/a.txt") + content(ctx, b, "/workspace/b.txt"); got != "     1\ta<missing>" {
		t.Errorf("the workspace changed: %q", got)
	}
	if _, ok := b.(filesystem.ShellBackend); ok {
		t.Error("a read-only backend runs commands")
	}
}
