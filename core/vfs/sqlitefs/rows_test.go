package sqlitefs_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// nodeTable is the name of the table holding the nodes in the database
// db: tree, or node in a database of layout 2 or older.
func nodeTable(t *testing.T, db *sql.DB) string {
	t.Helper()
	if queryInt(t, db, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'tree'`) == 1 {
		return "tree"
	}
	return "node"
}

// damageRow runs stmt, with {table} the nodes' table, on the closed
// database at path, behind the store's back: a plain UPDATE that sets a
// column but not the row's checksum, as a byte changed on disk would.
func damageRow(t *testing.T, path, stmt string, args ...any) {
	t.Helper()
	db := rawDB(t, path)
	stmt = strings.ReplaceAll(stmt, "{table}", nodeTable(t, db))
	res, err := db.Exec(stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s: %d rows changed, want 1", stmt, n)
	}
	db.Close()
}

// damageIndexEntry changes the last byte of the parent in the entry of
// the node at name in the index of (parent, name) to c, in the file at
// path (closed): the table still says where the node is, the index no
// longer does. (An entry whose parent sorts before its directory's is
// still listed with it: a listing reads forward from the directory's
// first entry until an entry sorts after the directory.)
func damageIndexEntry(t *testing.T, path, name string, c byte) {
	t.Helper()
	b := readFile(t, path)
	dir, _ := splitName(name)
	for _, rec := range records(t, b) {
		if len(rec) == 3 && rec[0].text == dir && rec[2].text == name {
			b[rec[0].off+rec[0].n-1] = c
			writeFile(t, path, b)
			return
		}
	}
	t.Fatalf("no index entry for %s in %s", name, path)
}

func splitName(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// treeDB makes a closed workspace database holding d/f1.txt to f6.txt,
// e/g.txt, a.txt (mode 0741) and b.txt, and a link l to a.txt.
func treeDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	s, err := sqlitefs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, d := range []string{"d", "e"} {
		if err := s.Mkdir(ctx, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, s, "e/g.txt", []byte("g\n"))
	for i := 1; i <= 6; i++ {
		write(t, s, fmt.Sprintf("d/f%d.txt", i), fmt.Appendf(nil, "file %d\n", i))
	}
	write(t, s, "a.txt", []byte("secret-AAAA\n"))
	write(t, s, "b.txt", []byte("public-BBBB\n"))
	if err := s.Chmod(ctx, "a.txt", 0o741); err != nil {
		t.Fatal(err)
	}
	if err := s.Symlink(ctx, "a.txt", "l"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll reads the file at name through s.
func readAll(ctx context.Context, s vfs.Store, name string) ([]byte, error) {
	r, err := s.Open(ctx, name, 0)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// TestNodeDamage: damage to a node's record or to the index that lists
// it, and counters behind the numbers they handed out, which a hostile
// tester found served silently (issue 11, fault 5): a listing short of
// an entry whose index entry names another directory, a file of
// negative size read as empty, a file read as another's content, a
// link's target, a mode, an mtime changed, a write failing with SQLite's
// raw UNIQUE message, revisions handed out twice. Now the call that
// meets it fails with the damaged error naming the database, the FS
// refuses every later change, and check finds it.
func TestNodeDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		call   func(ctx context.Context, s *sqlitefs.FS) error
		reason string // the damaged error's
		found  string // a part of a problem check lists ("" when integrity_check finds it)
	}{
		{"an index entry names another directory: its own",
			func(t *testing.T, path string) { damageIndexEntry(t, path, "d/f2.txt", 'e') },
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.ReadDir(ctx, "d", 0, -1)
				return err
			}, toolspec.MsgDatabaseEntryCount, ""},
		{"an index entry names another directory: a page of its own ends short",
			func(t *testing.T, path string) { damageIndexEntry(t, path, "d/f2.txt", 'e') },
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.ReadDir(ctx, "d", 1, 10)
				return err
			}, toolspec.MsgDatabaseEntryCount, ""},
		{"an index entry names another directory: the other",
			// d/f6.txt's entry stays in order, first of e's.
			func(t *testing.T, path string) { damageIndexEntry(t, path, "d/f6.txt", 'e') },
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.ReadDir(ctx, "e", 0, -1)
				return err
			}, toolspec.MsgDatabaseNodeChecksum, ""},
		{"an index entry names another directory: in the way of a new node",
			func(t *testing.T, path string) { damageIndexEntry(t, path, "d/f6.txt", 'e') },
			func(ctx context.Context, s *sqlitefs.FS) error {
				return s.Create(ctx, "e/f6.txt", 0o644)
			}, toolspec.MsgDatabaseEntryCount, ""},
		{"an index entry names a directory that is not there",
			func(t *testing.T, path string) { damageIndexEntry(t, path, "d/f2.txt", 'z') },
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.ReadDir(ctx, "d", 0, -1)
				return err
			}, toolspec.MsgDatabaseEntryCount, ""},
		{"a negative size",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE {table} SET size = -1 WHERE path = 'd/f3.txt'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := readAll(ctx, s, "d/f3.txt")
				return err
			}, toolspec.MsgDatabaseNodeChecksum, "/d/f3.txt: its record does not match its checksum"},
		{"another file's content id",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE {table} SET cid = (SELECT cid FROM {table} WHERE path = 'a.txt') WHERE path = 'b.txt'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				got, err := readAll(ctx, s, "b.txt")
				if err == nil {
					return fmt.Errorf("read %q", got)
				}
				return err
			}, toolspec.MsgDatabaseNodeChecksum, "/b.txt: its record does not match its checksum"},
		{"a link's target",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE {table} SET target = 'b.txt' WHERE path = 'l'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.Lstat(ctx, "l")
				return err
			}, toolspec.MsgDatabaseNodeChecksum, "/l: its record does not match its checksum"},
		{"a mode",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE {table} SET mode = 4095 WHERE path = 'a.txt'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.Lstat(ctx, "a.txt")
				return err
			}, toolspec.MsgDatabaseNodeChecksum, "/a.txt: its record does not match its checksum"},
		{"an mtime, in a listing",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE {table} SET mtime = mtime + 1000 WHERE path = 'd/f4.txt'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				_, err := s.ReadDir(ctx, "d", 0, -1)
				return err
			}, toolspec.MsgDatabaseNodeChecksum, "/d/f4.txt: its record does not match its checksum"},
		{"a directory's record, on the way to a file",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE {table} SET type = 1 WHERE path = 'd'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				return s.WriteFile(ctx, "d/new.txt", strings.NewReader("new"), 0o644)
			}, toolspec.MsgDatabaseNodeChecksum, "/d: its record does not match its checksum"},
		{"the content counter behind",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE meta SET value = 1 WHERE key = 'content'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				return s.WriteFile(ctx, "new.txt", strings.NewReader("new"), 0o644)
			}, toolspec.MsgDatabaseCounter, "the content counter is 1, below the content id"},
		{"the change counter behind, a file changed",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE meta SET value = 1 WHERE key = 'rev'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				return s.WriteFile(ctx, "d/f1.txt", strings.NewReader("new"), 0o644)
			}, toolspec.MsgDatabaseCounter, "the change counter is 1, below the revision"},
		{"the change counter behind, a node made",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE meta SET value = 1 WHERE key = 'rev'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				return s.Mkdir(ctx, "d/new", 0o755)
			}, toolspec.MsgDatabaseCounter, "the change counter is 1, below the revision"},
		{"the change counter behind, an edit",
			func(t *testing.T, path string) {
				damageRow(t, path, `UPDATE meta SET value = 1 WHERE key = 'rev'`)
			},
			func(ctx context.Context, s *sqlitefs.FS) error {
				return s.Update(ctx, "a.txt", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, '!'), nil })
			}, toolspec.MsgDatabaseCounter, "the change counter is 1, below the revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := treeDB(t)
			tt.damage(t, path)
			s := reopen(t, path)
			err := tt.call(t.Context(), s)
			checkDamaged(t, "the call", err, path)
			if want := toolspec.MsgDatabaseDamaged(path, tt.reason); err != nil && err.Error() != want {
				t.Errorf("the call: %q, want %q", err, want)
			}
			checkRefusesChanges(t, s, path)

			rep, err := sqlitefs.Check(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Errorf("Check found the database sound: %+v", rep)
			}
			if tt.found != "" && !slices.ContainsFunc(rep.Problems, func(p string) bool { return strings.Contains(p, tt.found) }) {
				t.Errorf("Check's problems %q lack %q", rep.Problems, tt.found)
			}
		})
	}
}

// TestNodeDamageRefusesWrites: a change that reads a damaged record
// fails and writes nothing: a removal of a tree whose files' records do
// not match (one names another file's content, which removing it would
// delete) removes nothing; an update of a node whose record was damaged
// does not seal the damage under a new checksum.
func TestNodeDamageRefusesWrites(t *testing.T) {
	path := treeDB(t)
	damageRow(t, path, `UPDATE {table} SET cid = (SELECT cid FROM {table} WHERE path = 'a.txt') WHERE path = 'd/f5.txt'`)
	s := reopen(t, path)
	checkDamaged(t, "RemoveAll", s.RemoveAll(t.Context(), "d"), path)
	s.Close()
	s = reopen(t, path)
	if got := read(t, s, "a.txt", 0); string(got) != "secret-AAAA\n" {
		t.Errorf("a.txt holds %q", got)
	}
	if got := read(t, s, "d/f1.txt", 0); string(got) != "file 1\n" {
		t.Errorf("d/f1.txt holds %q", got)
	}

	// The parent's record is damaged; a node made in it would move the
	// parent's revision, mtime and count.
	path = treeDB(t)
	damageRow(t, path, `UPDATE {table} SET mode = 511 WHERE path = 'd'`)
	s = reopen(t, path)
	checkDamaged(t, "Remove", s.Remove(t.Context(), "d/f6.txt"), path)
	s.Close()
	db := rawDB(t, path)
	if n := queryInt(t, db, `SELECT count(*) FROM `+nodeTable(t, db)+` WHERE parent = 'd'`); n != 6 {
		t.Errorf("%d nodes in d, want 6", n)
	}
	db.Close()
	rep, err := sqlitefs.Check(t.Context(), path)
	if err != nil || !slices.Contains(rep.Problems, "/d: its record does not match its checksum") {
		t.Errorf("Check: %v %q, want the damage still found", err, rep.Problems)
	}
}

// TestEntryCount: a directory whose count of entries is off (its record
// rewritten with its checksum, as a bug would leave it) fails every
// listing that reaches its end and a Remove that takes it for empty;
// check lists it.
func TestEntryCount(t *testing.T) {
	for _, count := range []int{5, 7, 0} {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			path := treeDB(t)
			damageRow(t, path, `UPDATE tree SET entries = ?1, sum = agenttools_node_sum(path, parent, name, type, mode, mtime, size, target, rev, cid, ?1) WHERE path = 'd'`, count)
			s := reopen(t, path)
			// A page that ends before the end of the count is no finding.
			if count > 0 {
				if got, err := s.ReadDir(t.Context(), "d", 0, min(count, 6)-1); err != nil || len(got) != min(count, 6)-1 {
					t.Errorf("the first page: %d entries, %v", len(got), err)
				}
			}
			var err error
			if count == 0 {
				err = s.RemoveAll(t.Context(), "d/f1.txt")
				if err == nil {
					err = s.Remove(t.Context(), "d")
				}
			} else {
				_, err = s.ReadDir(t.Context(), "d", 2, -1)
			}
			checkDamaged(t, "the call", err, path)
			if !errors.Is(err, sqlitefs.ErrCorrupt) || !strings.Contains(err.Error(), toolspec.MsgDatabaseEntryCount) {
				t.Errorf("%v, want %q", err, toolspec.MsgDatabaseEntryCount)
			}
			s.Close()
			rep, err := sqlitefs.Check(t.Context(), path)
			want := fmt.Sprintf("/d: 6 nodes are in it, and it counts %d", count)
			if err != nil || !slices.Contains(rep.Problems, want) {
				t.Errorf("Check: %v %q, want %q", err, rep.Problems, want)
			}
		})
	}
}

// schema2 is the schema of layouts 1 and 2 (layout 1: chunk without sum).
const schema2 = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE node (
	path   TEXT PRIMARY KEY,
	parent TEXT,
	name   TEXT NOT NULL,
	type   INTEGER NOT NULL,
	mode   INTEGER NOT NULL,
	mtime  INTEGER NOT NULL,
	size   INTEGER NOT NULL DEFAULT 0,
	target TEXT NOT NULL DEFAULT '',
	rev    INTEGER NOT NULL,
	cid    INTEGER
) WITHOUT ROWID;
CREATE UNIQUE INDEX node_parent_name ON node (parent, name);
CREATE TABLE content (
	id      INTEGER PRIMARY KEY,
	created INTEGER NOT NULL,
	touched INTEGER
);
CREATE INDEX content_pending ON content (touched) WHERE touched IS NOT NULL;
CREATE TABLE chunk (
	cid  INTEGER NOT NULL,
	idx  INTEGER NOT NULL,
	data BLOB NOT NULL,
	sum  INTEGER,
	PRIMARY KEY (cid, idx)
);
`

// legacyDB makes a workspace database of layout version (1 or 2) with
// the statements of that layout, closed: d/f (2 chunks and 10 bytes,
// content 3), d/e (empty), d/sub (an empty directory), l (a link to
// d/f), and the garbage of a killed write (content 2). It returns d/f's
// content.
func legacyDB(t *testing.T, version int) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	db := rawDB(t, path)
	data := pattern(9, 2*sqlitefs.ChunkSize+10)
	schema := schema2
	if version == 1 {
		schema = strings.Replace(schema, "data BLOB NOT NULL,\n\tsum  INTEGER,", "data BLOB NOT NULL,", 1)
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{schema, nil},
		{`INSERT INTO meta (key, value) VALUES ('rev', 7), ('content', 3)`, nil},
		{`INSERT INTO node (path, parent, name, type, mode, mtime, rev) VALUES ('', NULL, '', 2, 493, 1000, 6)`, nil},
		{`INSERT INTO node (path, parent, name, type, mode, mtime, size, target, rev, cid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{"d", "", "d", 2, 0o755, 1001, 0, "", 5, nil}},
		{`INSERT INTO node (path, parent, name, type, mode, mtime, size, target, rev, cid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{"d/f", "d", "f", 1, 0o600, 1002, len(data), "", 7, 3}},
		{`INSERT INTO node (path, parent, name, type, mode, mtime, size, target, rev, cid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{"d/e", "d", "e", 1, 0o644, 1003, 0, "", 4, nil}},
		{`INSERT INTO node (path, parent, name, type, mode, mtime, size, target, rev, cid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{"d/sub", "d", "sub", 2, 0o700, 1004, 0, "", 3, nil}},
		{`INSERT INTO node (path, parent, name, type, mode, mtime, size, target, rev, cid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{"l", "", "l", 3, 0o777, 1005, 3, "d/f", 6, nil}},
		{`INSERT INTO content (id, created, touched) VALUES (3, 1000, NULL), (2, 1000, 1000)`, nil},
	}
	for i := int64(0); i*sqlitefs.ChunkSize < int64(len(data)); i++ {
		chunk := data[i*sqlitefs.ChunkSize : min(int64(len(data)), (i+1)*sqlitefs.ChunkSize)]
		if version == 1 {
			stmts = append(stmts, struct {
				q    string
				args []any
			}{`INSERT INTO chunk (cid, idx, data) VALUES (3, ?, ?)`, []any{i, chunk}})
		} else {
			stmts = append(stmts, struct {
				q    string
				args []any
			}{`INSERT INTO chunk (cid, idx, data, sum) VALUES (3, ?, ?, ?)`, []any{i, chunk, int64(crc32.Checksum(chunk, crc32.MakeTable(crc32.Castagnoli)))}})
		}
	}
	stmts = append(stmts, struct {
		q    string
		args []any
	}{fmt.Sprintf(`PRAGMA user_version = %d`, version), nil})
	for _, s := range stmts {
		if _, err := db.Exec(s.q, s.args...); err != nil {
			t.Fatalf("making a layout-%d database: %s: %v", version, s.q, err)
		}
	}
	db.Close()
	return path, data
}

// names lists the names of the entries of the directory name in s.
func names(t *testing.T, s vfs.Store, name string) []string {
	t.Helper()
	entries, err := s.ReadDir(t.Context(), name, 0, -1)
	if err != nil {
		t.Fatalf("ReadDir %q: %v", name, err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}

// TestMigrate: a database of layout 1 or 2 is migrated when opened
// writable, in one transaction: the nodes move to table tree, every
// directory gets its count of entries and every row its checksum, so
// the tree reads as before and check finds it sound; chunks written by
// layout 1 keep no checksum. Its nodes are then kept as any others.
func TestMigrate(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprint(version), func(t *testing.T) {
			path, data := legacyDB(t, version)
			s := reopen(t, path)
			if got := read(t, s, "d/f", 0); !bytes.Equal(got, data) {
				t.Error("d/f reads wrong")
			}
			if got := names(t, s, "d"); !slices.Equal(got, []string{"e", "f", "sub"}) {
				t.Errorf("d lists %q", got)
			}
			if got := names(t, s, ""); !slices.Equal(got, []string{"d", "l"}) {
				t.Errorf("/ lists %q", got)
			}
			if got := names(t, s, "d/sub"); len(got) != 0 {
				t.Errorf("d/sub lists %q", got)
			}
			if info := lstat(t, s, "l"); info.Target != "d/f" || info.Size != 3 || info.Rev != 6 || info.MTime != 1005 {
				t.Errorf("l: %+v", info)
			}
			if info := lstat(t, s, "d/f"); info.Mode != 0o600 || info.Rev != 7 || info.MTime != 1002 || info.Size != int64(len(data)) {
				t.Errorf("d/f: %+v", info)
			}
			write(t, s, "d/new", []byte("new content"))
			if err := s.Remove(t.Context(), "d/e"); err != nil {
				t.Fatal(err)
			}
			if err := s.Remove(t.Context(), "d"); errno.CodeOf(err) != errno.ENOTEMPTY {
				t.Errorf("Remove d: %v, want ENOTEMPTY", err)
			}
			if got := names(t, s, "d"); !slices.Equal(got, []string{"f", "new", "sub"}) {
				t.Errorf("d lists %q", got)
			}
			if info := lstat(t, s, "d/new"); info.Rev != 8 {
				t.Errorf("d/new at revision %d, want 8 (the counter went on)", info.Rev)
			}
			s.Close()

			db := rawDB(t, path)
			if v := queryInt(t, db, `PRAGMA user_version`); v != sqlitefs.SchemaVersion {
				t.Errorf("user_version = %d, want %d", v, sqlitefs.SchemaVersion)
			}
			if nodeTable(t, db) != "tree" || queryInt(t, db, `SELECT count(*) FROM sqlite_schema WHERE name = 'node'`) != 0 {
				t.Error("the nodes are not in table tree alone")
			}
			unverified := int64(0)
			if version == 1 {
				unverified = 3
			}
			if n := queryInt(t, db, `SELECT count(*) FROM chunk WHERE sum IS NULL AND cid = (SELECT cid FROM tree WHERE path = 'd/f')`); n != unverified {
				t.Errorf("%d chunks of the old file without a checksum, want %d", n, unverified)
			}
			if n := queryInt(t, db, `SELECT count(*) FROM chunk WHERE sum IS NOT NULL AND cid = (SELECT cid FROM tree WHERE path = 'd/new')`); n != 1 {
				t.Errorf("%d chunks of the new file with a checksum, want 1", n)
			}
			db.Close()
			rep, err := sqlitefs.Check(t.Context(), path)
			if err != nil || !rep.OK() || rep.Nodes != 6 || rep.Layout != sqlitefs.SchemaVersion {
				t.Errorf("Check after the migration: %+v %v", rep, err)
			}
		})
	}
}

// TestMigrateLocksOutOldWriters: a process of layout 2 that still has
// the database open when another migrates it cannot go on writing rows
// without checksums: its statements name table node, which is gone.
func TestMigrateLocksOutOldWriters(t *testing.T) {
	path, _ := legacyDB(t, 2)
	old := rawDB(t, path)
	old.SetMaxOpenConns(1)
	stmt, err := old.Prepare(`UPDATE node SET mode = ?, rev = ? WHERE path = ?`)
	if err != nil {
		t.Fatal(err)
	}
	reopen(t, path)
	if _, err := stmt.Exec(0o600, 9, "d/e"); err == nil || !strings.Contains(err.Error(), "no such table: node") {
		t.Errorf("the old process's update after the migration: %v, want no such table", err)
	}
}

// TestReadOnlyLegacy: a database of layout 1 or 2 opened read-only is
// read as it is, not migrated: its rows have no checksums and its
// directories no counts (read unverified), its layout-1 chunks no
// checksums either (a chunk changed on disk is served); a record with
// an impossible value is still found.
func TestReadOnlyLegacy(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprint(version), func(t *testing.T) {
			path, data := legacyDB(t, version)
			want := data
			if version == 1 {
				db := rawDB(t, path)
				if _, err := db.Exec(`UPDATE chunk SET data = zeroblob(length(data)) WHERE idx = 1`); err != nil {
					t.Fatal(err)
				}
				db.Close()
				want = slices.Clone(data)
				copy(want[sqlitefs.ChunkSize:2*sqlitefs.ChunkSize], make([]byte, sqlitefs.ChunkSize))
			}
			damageRow(t, path, `UPDATE node SET size = -1 WHERE path = 'd/e'`)
			before := readFile(t, path)
			s := reopen(t, path, sqlitefs.ReadOnly())
			if got := read(t, s, "d/f", 0); !bytes.Equal(got, want) {
				t.Error("d/f reads wrong")
			}
			if got := names(t, s, ""); !slices.Equal(got, []string{"d", "l"}) {
				t.Errorf("/ lists %q", got)
			}
			if info := lstat(t, s, "l"); info.Target != "d/f" {
				t.Errorf("l: %+v", info)
			}
			_, err := s.Lstat(t.Context(), "d/e")
			checkDamaged(t, "Lstat of a file of size -1", err, path)
			err = s.Update(t.Context(), "d/f", 1<<30, func(old []byte, _ vfs.Info) ([]byte, error) { return old, nil })
			if errno.CodeOf(err) != errno.EROFS {
				t.Errorf("Update: %v, want EROFS", err)
			}
			s.Close()
			if !bytes.Equal(readFile(t, path), before) {
				t.Errorf("the layout-%d database changed", version)
			}
			rep, err := sqlitefs.Check(t.Context(), path)
			if err != nil || rep.OK() || !slices.Contains(rep.Problems, "/d/e: size -1 is negative") {
				t.Errorf("Check: %+v %v, want the size found", rep, err)
			}
		})
	}
}

// TestFileContentMarkedAsGarbage: a file's content whose row says it is
// a write in progress, long untouched (its touched column damaged), is
// not collected as garbage when the database is opened: the file still
// reads; check lists the mark.
func TestFileContentMarkedAsGarbage(t *testing.T) {
	path := treeDB(t)
	db := rawDB(t, path)
	if _, err := db.Exec(`UPDATE content SET touched = 1 WHERE id = (SELECT cid FROM ` + nodeTable(t, db) + ` WHERE path = 'a.txt')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := reopen(t, path, sqlitefs.WithGCAge(0))
	if got, err := readAll(t.Context(), s, "a.txt"); err != nil || string(got) != "secret-AAAA\n" {
		t.Errorf("a.txt after Open collected garbage: %q %v", got, err)
	}
	s.Close()
	rep, err := sqlitefs.Check(t.Context(), path)
	if err != nil || rep.OK() || !slices.ContainsFunc(rep.Problems, func(p string) bool {
		return strings.HasPrefix(p, "/a.txt: its content") && strings.Contains(p, "marked as a write in progress")
	}) {
		t.Errorf("Check: %q %v, want the mark found", rep.Problems, err)
	}
}
