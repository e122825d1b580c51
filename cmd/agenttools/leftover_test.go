package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree lists every path below dir (relative, with its mode's type and
// permission bits), to see what a command left behind.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+info.Mode().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFailureLeavesNothing: a command that fails leaves no new file or
// directory behind: no database it made (nor the directories made for
// it), no directory export made.
func TestFailureLeavesNothing(t *testing.T) {
	long := strings.Repeat("x", 300) // a name longer than a host allows
	tests := []struct {
		name string
		args func(dir string) []string
		long bool // the workspace holds /workspace/long after /workspace/a.txt
	}{
		{"import of a missing directory", func(dir string) []string {
			return []string{"import", "--db", filepath.Join(dir, "new.db"), filepath.Join(dir, "nope")}
		}, false},
		{"import of a missing directory, the database in a new directory", func(dir string) []string {
			return []string{"import", "--db", filepath.Join(dir, "a", "b", "new.db"), filepath.Join(dir, "nope")}
		}, false},
		{"import that fails midway into a new database", func(dir string) []string {
			// A file's workspace path is over 4096 bytes.
			return []string{"import", "--db", filepath.Join(dir, "a", "new.db"), "--to", "/" + strings.Repeat("d/", 2040), filepath.Join(dir, "src")}
		}, false},
		{"import of the database itself", func(dir string) []string {
			return []string{"import", "--db", filepath.Join(dir, "ws.db"), filepath.Join(dir, "ws.db")}
		}, false},
		{"export from a missing path", func(dir string) []string {
			return []string{"export", "--db", filepath.Join(dir, "ws.db"), "--from", "/workspace/nope", filepath.Join(dir, "out")}
		}, false},
		{"export from a missing path into new directories", func(dir string) []string {
			return []string{"export", "--db", filepath.Join(dir, "ws.db"), "--from", "/workspace/nope", filepath.Join(dir, "x", "y", "out")}
		}, false},
		{"export from a missing database", func(dir string) []string {
			return []string{"export", "--db", filepath.Join(dir, "typo.db"), filepath.Join(dir, "out")}
		}, false},
		{"export that fails midway into a new directory", func(dir string) []string {
			// out/a.txt is made, then out/long cannot be.
			return []string{"export", "--db", filepath.Join(dir, "ws.db"), filepath.Join(dir, "x", "out")}
		}, true},
		{"call with a missing --dir", func(dir string) []string {
			return []string{"call", "--db", filepath.Join(dir, "new.db"), "--dir", filepath.Join(dir, "nope"), "ls", "{}"}
		}, false},
		{"call with a missing --output", func(dir string) []string {
			return []string{"call", "--db", filepath.Join(dir, "a", "new.db"), "--output", filepath.Join(dir, "nope"), "ls", "{}"}
		}, false},
		{"call of an unknown tool", func(dir string) []string {
			return []string{"call", "--db", filepath.Join(dir, "a", "new.db"), "nope"}
		}, false},
		{"call of a tool the flags leave out", func(dir string) []string {
			return []string{"call", "--db", filepath.Join(dir, "new.db"), "--exec", "none", "exec", `{"command":"true"}`}
		}, false},
		{"mcp with a missing --dir", func(dir string) []string {
			return []string{"mcp", "--db", filepath.Join(dir, "a", "new.db"), "--dir", filepath.Join(dir, "nope")}
		}, false},
		{"check of a missing database", func(dir string) []string {
			return []string{"check", "--db", filepath.Join(dir, "nope.db")}
		}, false},
		{"replay of a missing file", func(dir string) []string {
			return []string{"replay", filepath.Join(dir, "nope.json")}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "src", "a-file-with-a-long-name.txt"), []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files := []string{"a.txt"}
			if tt.long {
				files = append(files, long)
			}
			db := filepath.Join(dir, "ws.db")
			for _, f := range files {
				if got := runCLI(t, "", "call", "--db", db, "write", `{"path":"/workspace/`+f+`","content":"x"}`); got.code != 0 {
					t.Fatalf("write: %+v", got)
				}
			}
			before := tree(t, dir)
			args := tt.args(dir)
			got := runCLI(t, "", args...)
			if got.code == 0 {
				t.Errorf("agenttools %q: exit 0, want a failure", args)
			}
			if after := tree(t, dir); !slices.Equal(after, before) {
				t.Errorf("agenttools %q failed (%s) and left\n%q\nwhere there was\n%q", args, strings.TrimSpace(got.stderr), after, before)
			}
		})
	}
}

// TestImportFile: import of a file (or a link to one) copies it into
// --to under its name, export of a file into DIR under its name.
func TestImportFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ws.db")
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, c := range []struct {
		args []string
		want result
	}{
		{[]string{"import", "--db", db, src}, result{0, "imported 1 node\n", ""}},
		{[]string{"import", "--db", db, "--to", "/workspace/sub", filepath.Join(dir, "link.go")}, result{0, "imported 1 node\n", ""}},
		{[]string{"call", "--db", db, "read", `{"path":"/workspace/main.go"}`}, result{0, "package main\n", ""}},
		{[]string{"call", "--db", db, "read", `{"path":"/workspace/sub/link.go"}`}, result{0, "package main\n", ""}},
		{[]string{"export", "--db", db, "--from", "/workspace/sub/link.go", filepath.Join(dir, "out")}, result{0, "exported 1 node\n", ""}},
	} {
		if got := runCLI(t, "", c.args...); got != c.want {
			t.Errorf("agenttools %q: %+v, want %+v", c.args, got, c.want)
		}
	}
	for _, p := range []string{"out/link.go"} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v %v, want a file 0o755", p, fi, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "out", "link.go")); string(data) != "package main\n" {
		t.Errorf("out/link.go holds %q (%v)", data, err)
	}
}
