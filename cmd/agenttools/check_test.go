package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/agenttools/agenttools/toolspec"
)

// fiftyFiles makes a database holding /workspace/d/f1.txt to f50.txt, of
// 4000 bytes each, through the command, and returns the contents.
func fiftyFiles(t *testing.T, db string) map[string]string {
	t.Helper()
	files := map[string]string{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 1; i <= 50; i++ {
		var b strings.Builder
		for b.Len() < 4000 {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		p := fmt.Sprintf("/workspace/d/f%d.txt", i)
		files[p] = b.String()
		args := marshal(t, map[string]string{"path": p, "content": files[p]})
		if got := runCLI(t, "", "call", "--db", db, "write", args); got.code != 0 {
			t.Fatalf("write %s: %+v", p, got)
		}
	}
	return files
}

// damagePages overwrites 200 bytes at offset 100 of every other page
// of the file at path, from page 1 (the header stays intact), with bytes
// of a fixed seed.
func damagePages(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The page size is in the file's header (offset 16, big-endian; 1
	// stands for 65536): new databases use 16 KiB pages, older ones 4 KiB.
	size := int(b[16])<<8 | int(b[17])
	if size == 1 {
		size = 65536
	}
	r := rand.New(rand.NewPCG(5, 11))
	for p := 1; (p+1)*size <= len(b); p += 2 {
		for i := range 200 {
			b[p*size+100+i] = byte(r.Uint32())
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func unmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// damagedText reports whether s is the model's message for an operation
// op on path that met damage in the database db.
func damagedText(s, op, path, db string) bool {
	prefix := toolspec.MsgHostIO(op, path, toolspec.MsgDatabaseDamaged(db, ""))
	prefix = prefix[:strings.Index(prefix, "()")+1]
	return strings.HasPrefix(s, prefix) && strings.HasSuffix(s, "); nothing was changed; check it with: agenttools check --db "+db)
}

// TestDamagedDatabaseCall: on a database with 200 bytes of every other
// page overwritten, ls answered a shorter listing with no error, read
// answered garbage or "file changed", and a write could be accepted.
// Now each call answers what was written or the damaged message naming
// the database, and nothing is written.
func TestDamagedDatabaseCall(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ws.db")
	files := fiftyFiles(t, db)
	damagePages(t, db)
	before, _ := os.ReadFile(db)

	got := runCLI(t, "", "call", "--db", db, "ls", `{"path":"/workspace/d","limit":100}`)
	var ls struct {
		Count int64  `json:"count"`
		Error string `json:"error"`
	}
	if err := unmarshal(got.stdout, &ls); err != nil {
		t.Fatalf("ls: %+v", got)
	}
	switch {
	case ls.Error != "":
		if got.code != 1 || !damagedText(ls.Error, toolspec.MsgOpList, "/workspace/d", db) {
			t.Errorf("ls: %+v, want the damaged message", got)
		}
	case ls.Count != int64(len(files)):
		t.Errorf("ls answered %d entries of %d, and no error", ls.Count, len(files))
	}
	damaged := 0
	for p, want := range files {
		got := runCLI(t, "", "call", "--db", db, "read", marshal(t, map[string]string{"path": p}))
		switch {
		case got.code == 0 && got.stdout != want+"\n":
			t.Errorf("read %s: exit 0 with content that is not what was written", p)
		case got.code != 0 && !damagedText(strings.TrimSuffix(got.stdout, "\n"), toolspec.MsgOpRead, p, db):
			t.Errorf("read %s: %+v, want the damaged message", p, got)
		case got.code != 0:
			damaged++
		}
	}
	t.Logf("%d of %d reads met the damage", damaged, len(files))
	for _, p := range []string{"/workspace/d/new.txt", "/new.txt"} {
		got := runCLI(t, "", "call", "--db", db, "write", marshal(t, map[string]string{"path": p, "content": "new"}))
		var res struct {
			Error string `json:"error"`
		}
		if err := unmarshal(got.stdout, &res); err != nil || got.code != 1 || !damagedText(res.Error, toolspec.MsgOpWrite, p, db) {
			t.Errorf("write %s: %+v, want the damaged message", p, got)
		}
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(after, before) {
		t.Error("the damaged database was written")
	}
}

// TestCheck: agenttools check exits 0 on a sound database, 1 on a
// damaged one (pages overwritten, or file content or a node's record
// changed behind SQLite's back, which only the checksums show), 2 on a
// file that is no workspace database; it changes nothing.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	sound := filepath.Join(dir, "sound.db")
	if got := runCLI(t, "", "call", "--db", sound, "write", `{"path":"/workspace/a.txt","content":"hello"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	pages := filepath.Join(dir, "pages.db")
	fiftyFiles(t, pages)
	damagePages(t, pages)
	content := filepath.Join(dir, "content.db")
	if got := runCLI(t, "", "call", "--db", content, "write", `{"path":"/workspace/a.txt","content":"hello"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	raw, err := sql.Open("sqlite", content)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE chunk SET data = CAST('jello' AS BLOB)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	node := filepath.Join(dir, "node.db")
	if got := runCLI(t, "", "call", "--db", node, "write", `{"path":"/workspace/a.txt","content":"hello"}`); got.code != 0 {
		t.Fatalf("write: %+v", got)
	}
	raw, err = sql.Open("sqlite", node)
	if err != nil {
		t.Fatal(err)
	}
	// A byte of a node's record changed on disk (the table is node in a
	// database of layout 2).
	table := "tree"
	if err := raw.QueryRow(`SELECT name FROM sqlite_schema WHERE name IN ('tree', 'node')`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE ` + table + ` SET size = -1 WHERE path = 'workspace/a.txt'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		code int
		want []string // lines of stdout, or parts of stderr for exit 2
	}{
		{"sound", []string{"--db", sound}, 0, []string{"integrity_check: ok", "nodes: 3 read", "content: 1 files, 1 chunks read (0 without a checksum)", sound + ": ok"}},
		{"damaged node", []string{"--db", node}, 1, []string{"integrity_check: ok", "/workspace/a.txt: its record does not match its checksum", node + ": damaged"}},
		{"damaged pages", []string{"--db", pages}, 1, []string{"integrity_check:", pages + ": damaged"}},
		{"damaged content", []string{"--db", content}, 1, []string{"integrity_check: ok", "/workspace/a.txt: chunk 0 does not match its checksum", content + ": damaged"}},
		{"not a database", []string{"--db", text}, 2, []string{"--db:", "not an SQLite database"}},
		{"missing", []string{"--db", filepath.Join(dir, "missing.db")}, 2, []string{"--db:", "no such file"}},
		{"an argument", []string{"--db", sound, "extra"}, 2, []string{"takes no arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before []byte
			if len(tt.args) > 1 {
				before, _ = os.ReadFile(tt.args[1])
			}
			got := runCLI(t, "", append([]string{"check"}, tt.args...)...)
			if got.code != tt.code {
				t.Errorf("exit %d, want %d: %+v", got.code, tt.code, got)
			}
			out := got.stdout
			if tt.code == 2 {
				out = got.stderr
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			if tt.code != 2 {
				lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
				if lines[len(lines)-1] != tt.want[len(tt.want)-1] {
					t.Errorf("last line %q, want %q", lines[len(lines)-1], tt.want[len(tt.want)-1])
				}
			}
			if len(tt.args) > 1 {
				if after, _ := os.ReadFile(tt.args[1]); !bytes.Equal(after, before) {
					t.Error("check changed the file")
				}
				for _, suffix := range []string{"-wal", "-shm"} {
					if _, err := os.Lstat(tt.args[1] + suffix); err == nil {
						t.Errorf("check left %s", filepath.Base(tt.args[1]+suffix))
					}
				}
			}
		})
	}
}

// export stops, as cp does, where it would have to replace a node of
// another kind (a file where the workspace has a directory, a directory
// where it has a file), and a workspace file it cannot read (damaged)
// leaves the host file it would have rewritten as it was (it was cut
// short).
func TestExportLeavesTheHostAsItWas(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ws.db")
	for path, content := range map[string]string{"/workspace/d/x.txt": "x", "/workspace/f": "workspace f"} {
		if got := runCLI(t, "", "call", "--db", db, "write", marshal(t, map[string]string{"path": path, "content": content})); got.code != 0 {
			t.Fatalf("write: %+v", got)
		}
	}
	for _, tt := range []struct {
		name  string
		setup map[string]string // host path (under out) to content; a trailing / makes a directory
	}{
		{"file where a directory is", map[string]string{"d": "host file"}},
		{"directory where a file is", map[string]string{"f/": "", "f/keep.txt": "keep"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			for _, p := range slices.Sorted(maps.Keys(tt.setup)) {
				content, hp := tt.setup[p], filepath.Join(out, p)
				if strings.HasSuffix(p, "/") {
					if err := os.MkdirAll(hp, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(hp, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := runCLI(t, "", "export", "--db", db, out); got.code != 2 || !strings.Contains(got.stderr, "the workspace has a") {
				t.Errorf("export: %+v, want exit 2 saying what is in the way", got)
			}
			for p, content := range tt.setup {
				if strings.HasSuffix(p, "/") {
					continue
				}
				if b, err := os.ReadFile(filepath.Join(out, p)); err != nil || string(b) != content {
					t.Errorf("host %s is now %q, %v; want %q", p, b, err, content)
				}
			}
		})
	}
	t.Run("damaged content", func(t *testing.T) {
		raw, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`UPDATE chunk SET data = CAST('WORKSPACE F' AS BLOB) WHERE data = CAST('workspace f' AS BLOB)`); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		out := t.TempDir()
		hostF := filepath.Join(out, "f")
		if err := os.WriteFile(hostF, []byte("host f, longer than the workspace's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := runCLI(t, "", "export", "--db", db, out); got.code != 2 || !strings.Contains(got.stderr, "is damaged") {
			t.Errorf("export of damaged content: %+v, want exit 2 naming the damage", got)
		}
		if b, _ := os.ReadFile(hostF); string(b) != "host f, longer than the workspace's\n" {
			t.Errorf("host f is now %q", b)
		}
	})
}
