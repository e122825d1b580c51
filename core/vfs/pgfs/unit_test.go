package pgfs_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// sqlConn is a connection of its own to the database db, for looking
// at the tables behind the store's back.
func sqlConn(t testing.TB, db string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// count is the single number query q gives.
func count(t testing.TB, c *pgx.Conn, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// catalog describes what the database holds: every relation, function
// and meta row of schemas other than the system's, and the workspaces.
func catalog(t testing.TB, c *pgx.Conn) string {
	t.Helper()
	var out string
	err := c.QueryRow(t.Context(), `SELECT concat_ws(E'\n',
		(SELECT string_agg(n.nspname || '.' || r.relname || ':' || r.relkind::text, ',' ORDER BY 1) FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace
			WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')),
		(SELECT string_agg(n.nspname || '.' || p.proname, ',' ORDER BY 1) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
			WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')),
		(SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM agenttools.meta),
		(SELECT string_agg(name, ',' ORDER BY name) FROM agenttools.workspace))`).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRefuse: a newer layout and tables of another program under the
// store's names are refused by Open and Workspaces, which change
// nothing.
func TestRefuse(t *testing.T) {
	tests := []struct {
		name  string
		setup string // run on a database where Open made the tables when it starts with "+"
		want  error
	}{
		{"newer layout", "+UPDATE agenttools.meta SET value = '2' WHERE key = 'layout'", pgfs.ErrNewerSchema},
		{"other application", "+UPDATE agenttools.meta SET value = 'something else' WHERE key = 'application'", pgfs.ErrForeign},
		{"no application row", "+DELETE FROM agenttools.meta WHERE key = 'application'", pgfs.ErrForeign},
		{"layout not a number", "+UPDATE agenttools.meta SET value = 'one' WHERE key = 'layout'", pgfs.ErrForeign},
		{"schema without meta", "CREATE SCHEMA agenttools; CREATE TABLE agenttools.node (id int)", pgfs.ErrForeign},
		{"meta of other columns", "CREATE SCHEMA agenttools; CREATE TABLE agenttools.meta (k int, v int)", pgfs.ErrForeign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := pgtest.Database(t)
			setup := tt.setup
			if s, ok := strings.CutPrefix(setup, "+"); ok {
				open(t, db, "first").Close()
				setup = s
			}
			c := sqlConn(t, db)
			if _, err := c.Exec(t.Context(), setup); err != nil {
				t.Fatal(err)
			}
			before := ""
			if _, err := c.Exec(t.Context(), "SELECT 1 FROM agenttools.meta, agenttools.workspace LIMIT 1"); err == nil {
				before = catalog(t, c)
			}
			snapshot := func() string {
				if before == "" {
					return fmt.Sprint(count(t, c, `SELECT count(*) FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = 'agenttools'`),
						count(t, c, `SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'agenttools'`))
				}
				return catalog(t, c)
			}
			want := snapshot()
			_, err := pgfs.Open(t.Context(), withWorkspace(t, db, "second"))
			if !errors.Is(err, tt.want) {
				t.Errorf("Open: %v, want %v", err, tt.want)
			}
			if _, err := pgfs.Workspaces(t.Context(), db); !errors.Is(err, tt.want) {
				t.Errorf("Workspaces: %v, want %v", err, tt.want)
			}
			if got := snapshot(); got != want {
				t.Errorf("a refused Open changed the database:\n%s\nwas\n%s", got, want)
			}
		})
	}
}

// TestWorkspacesIsolated: two workspaces of one database hold the same
// names with their own content, modes, listings and revisions; removing
// or changing in one leaves the other alone.
func TestWorkspacesIsolated(t *testing.T) {
	db := pgtest.Database(t)
	ctx := t.Context()
	a, b := open(t, db, "a"), open(t, db, "b")
	storetest.WriteFile(t, a, "workspace/f", []byte("in a"), 0o644)
	storetest.WriteFile(t, b, "workspace/f", []byte("in b, longer"), 0o600)
	if err := a.Mkdir(ctx, "workspace/only-a", 0o755); err != nil {
		t.Fatal(err)
	}
	if got := string(storetest.ReadFile(t, a, "workspace/f", 0)); got != "in a" {
		t.Errorf("a's f = %q", got)
	}
	if got := string(storetest.ReadFile(t, b, "workspace/f", 0)); got != "in b, longer" {
		t.Errorf("b's f = %q", got)
	}
	if info := storetest.Lstat(t, b, "workspace/f"); info.Mode != 0o600 || info.Size != 12 {
		t.Errorf("b's f: %+v", info)
	}
	if _, err := b.Lstat(ctx, "workspace/only-a"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("b sees a's directory: %v", err)
	}
	if err := b.Mkdir(ctx, "workspace/only-a", 0o700); err != nil {
		t.Errorf("b cannot make a name a holds: %v", err)
	}
	if err := a.RemoveAll(ctx, "workspace"); err != nil {
		t.Fatal(err)
	}
	entries, err := b.ReadDir(ctx, "workspace", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Name != "f" || entries[1].Name != "only-a" {
		t.Errorf("b after a's RemoveAll lists %+v", entries)
	}
	if got := string(storetest.ReadFile(t, b, "workspace/f", 0)); got != "in b, longer" {
		t.Errorf("b's f after a's RemoveAll = %q", got)
	}
	ws, err := pgfs.Workspaces(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	// a: the root; b: the root, workspace, f, only-a.
	want := []pgfs.WorkspaceInfo{{Name: "a", Nodes: 1}, {Name: "b", Nodes: 4, Bytes: 12}}
	for i := range ws {
		ws[i].Rev = 0
	}
	if !slices.Equal(ws, want) {
		t.Errorf("Workspaces = %+v, want %+v", ws, want)
	}
}

func TestSplitURL(t *testing.T) {
	long := strings.Repeat("é", 100)
	tests := []struct {
		in, conn, ws string
		err          bool
	}{
		{in: "postgres://u:p@h:5432/db", conn: "postgres://u:p@h:5432/db", ws: "default"},
		{in: "postgresql://h/db?sslmode=disable&workspace=team%2Fone", conn: "postgresql://h/db?sslmode=disable", ws: "team/one"},
		{in: "postgres://u@/db?host=%2Ftmp%2Fsock&workspace=w", conn: "postgres://u@/db?host=%2Ftmp%2Fsock", ws: "w"},
		// An empty authority (everything from the parameters or PG*
		// variables, as libpq allows) keeps its "//", which pgx needs.
		{in: "postgres://?host=%2Ftmp%2Fsock&dbname=db&workspace=w", conn: "postgres://?dbname=db&host=%2Ftmp%2Fsock", ws: "w"},
		{in: "postgres://", conn: "postgres://", ws: "default"},
		{in: "postgresql://?workspace=w", conn: "postgresql://", ws: "w"},
		{in: "POSTGRES://h/db?workspace=" + long, conn: "postgres://h/db", ws: long},
		{in: "postgres://h/db?workspace=" + long + "x", err: true},
		{in: "postgres://h/db?workspace=", err: true},
		{in: "postgres://h/db?workspace=a&workspace=b", err: true},
		{in: "postgres://h/db?workspace=a%00b", err: true},
		{in: "postgres://h/db?workspace=%ff", err: true},
		{in: "mysql://h/db", err: true},
		{in: "agent.db", err: true},
	}
	for _, tt := range tests {
		conn, ws, err := pgfs.SplitURL(tt.in)
		if (err != nil) != tt.err || conn != tt.conn || ws != tt.ws {
			t.Errorf("SplitURL(%q) = %q, %q, %v; want %q, %q, error %v", tt.in, conn, ws, err, tt.conn, tt.ws, tt.err)
		}
	}
	for s, want := range map[string]bool{
		"postgres://h/db": true, "postgresql://h": true, "PostgreSQL://h": true,
		"postgres:/h": false, "agent.db": false, "": false, "postgres": false, "file:///x": false,
	} {
		if got := pgfs.IsURL(s); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestOpenParamsOnly: a URL with an empty authority, naming the server,
// the user and the database in its parameters (as libpq allows, e.g.
// postgres://?host=/run/postgresql&dbname=agents), opens its workspace.
func TestOpenParamsOnly(t *testing.T) {
	q := pgtest.Params(t, pgtest.Database(t))
	q.Set("workspace", "w")
	fs, err := pgfs.Open(t.Context(), "postgres://?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if info, err := fs.Lstat(t.Context(), "workspace"); err != nil || !info.IsDir() {
		t.Fatalf("Lstat(workspace) = %+v, %v; want a directory", info, err)
	}
}

// TestErrorsHidePassword: a password, in the user part of the URL or as
// its password parameter, appears in no error of SplitURL or Open.
func TestErrorsHidePassword(t *testing.T) {
	const pw = "hunter2-secret"
	for _, u := range []string{
		"postgres://u:" + pw + "@/nodb?host=%2Fnonexistent-pgfs-test&connect_timeout=5",
		"postgres://u@/nodb?host=%2Fnonexistent-pgfs-test&connect_timeout=5&password=" + pw,
		"postgres://u@/nodb?password=" + pw + "&workspace=a&workspace=b",
		"postgres://u@/nodb?password=" + pw + "&workspace=",
		"postgres://u:" + pw + "@h/nodb%zz",
		"postgres://u@h/nodb?password=" + pw + "&x=%zz",
	} {
		fs, err := pgfs.Open(t.Context(), u)
		if err == nil {
			fs.Close()
			t.Fatalf("Open(%q) succeeded", u)
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("Open(%q): the error shows the password: %v", u, err)
		}
	}
}

// TestConcurrentFirstOpen: Opens of an empty database racing from many
// goroutines (each with a pool of its own, as processes would) make one
// schema and one workspace of each name, without an error.
func TestConcurrentFirstOpen(t *testing.T) {
	db := pgtest.Database(t)
	const n = 8
	var wg sync.WaitGroup
	fss := make([]*pgfs.FS, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { fss[i], errs[i] = pgfs.Open(t.Context(), withWorkspace(t, db, fmt.Sprint("w", i%3))) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		} else {
			defer fss[i].Close()
		}
	}
	c := sqlConn(t, db)
	if got := count(t, c, `SELECT count(*) FROM pg_namespace WHERE nspname = 'agenttools'`); got != 1 {
		t.Errorf("%d schemas", got)
	}
	if got := count(t, c, `SELECT count(*) FROM agenttools.meta`); got != 2 {
		t.Errorf("%d meta rows, want 2", got)
	}
	if got := count(t, c, `SELECT count(*) FROM agenttools.workspace`); got != 3 {
		t.Errorf("%d workspaces, want 3", got)
	}
	if got := count(t, c, `SELECT count(*) FROM agenttools.node`); got != 6 {
		t.Errorf("%d nodes, want 6 (a root and /workspace in each)", got)
	}
	// The pools opened before the tables existed work.
	for i, f := range fss {
		if f != nil {
			storetest.WriteFile(t, f, fmt.Sprintf("workspace/f%d", i), []byte("x"), 0o644)
		}
	}
}

// TestReaderOfReplacedFile: a reader that opened a file, replaced before
// the reader fetched its second window, fails with EAGAIN instead of
// reading the new content's bytes.
func TestReaderOfReplacedFile(t *testing.T) {
	f := open(t, pgtest.Database(t), "w")
	ctx := t.Context()
	const size = 3 << 20
	old, replacement := bytes.Repeat([]byte("o"), size), bytes.Repeat([]byte("n"), size)
	storetest.WriteFile(t, f, "workspace/f", old, 0o644)
	r, err := f.Open(ctx, "workspace/f", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head := make([]byte, 1<<20) // the first window, fetched by Open
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	storetest.WriteFile(t, f, "workspace/f", replacement, 0o644)
	rest, err := io.ReadAll(r)
	if errno.CodeOf(err) != errno.EAGAIN {
		t.Errorf("reading on after the file was replaced: %v, want EAGAIN", err)
	}
	if bytes.Contains(rest, []byte("n")) || !bytes.Equal(head, old[:len(head)]) {
		t.Errorf("the reader saw bytes of the replacement")
	}
	// And after a Remove, too.
	r2, err := f.Open(ctx, "workspace/f", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := io.ReadFull(r2, head); err != nil {
		t.Fatal(err)
	}
	if err := f.Remove(ctx, "workspace/f"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(r2); errno.CodeOf(err) != errno.EAGAIN {
		t.Errorf("reading on after the file was removed: %v, want EAGAIN", err)
	}
}

// TestLargeWrite: files around the inline and chunk sizes round-trip,
// read from offsets on and off chunk boundaries; a write whose reader
// fails midway (inline or copied) returns the reader's error and leaves
// the old content and no chunk of the new one.
func TestLargeWrite(t *testing.T) {
	db := pgtest.Database(t)
	f := open(t, db, "w")
	c := sqlConn(t, db)
	ctx := t.Context()
	for _, size := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 1 << 20, 1<<20 + 1, 3<<20 + 12345} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>16)
		}
		storetest.WriteFile(t, f, "workspace/big", data, 0o640)
		for _, off := range []int64{0, 1, 64 << 10, 1 << 20, 1<<20 + 3, int64(size) - 1, int64(size)} {
			if off < 0 || off > int64(size) {
				continue
			}
			if got := storetest.ReadFile(t, f, "workspace/big", off); !bytes.Equal(got, data[off:]) {
				t.Errorf("size %d from %d: read %d bytes, not the ones written", size, off, len(got))
			}
		}
		if want := (size + 64<<10 - 1) / (64 << 10); count(t, c, `SELECT count(*) FROM agenttools.chunk`) != int64(want) {
			t.Errorf("size %d: %d chunks stored, want %d", size, count(t, c, `SELECT count(*) FROM agenttools.chunk`), want)
		}
	}
	storetest.WriteFile(t, f, "workspace/big", []byte("old"), 0o644)
	boom := errors.New("boom")
	for _, at := range []int{100, 2 << 20} {
		r := io.MultiReader(bytes.NewReader(make([]byte, at)), iotest.ErrReader(boom))
		if err := f.WriteFile(ctx, "workspace/big", r, 0o644); !errors.Is(err, boom) {
			t.Errorf("a write whose reader fails after %d bytes: %v, want its error", at, err)
		}
		if got := string(storetest.ReadFile(t, f, "workspace/big", 0)); got != "old" {
			t.Errorf("after a failed write of %d bytes the file holds %d bytes", at, len(got))
		}
		if got := count(t, c, `SELECT count(*) FROM agenttools.chunk`); got != 1 {
			t.Errorf("after a failed write of %d bytes, %d chunks are stored, want 1", at, got)
		}
	}
}

// TestLargeUpdate: an Update whose result is copied in (over 1 MiB)
// writes it, or, when the file moved meanwhile, fails with EAGAIN and
// leaves the other writer's content and no chunk of its own.
func TestLargeUpdate(t *testing.T) {
	db := pgtest.Database(t)
	f := open(t, db, "w")
	c := sqlConn(t, db)
	ctx := t.Context()
	storetest.WriteFile(t, f, "workspace/f", []byte("start\n"), 0o640)
	grow := func(old []byte, _ vfs.Info) ([]byte, error) {
		return append(old, bytes.Repeat([]byte("x"), 2<<20)...), nil
	}
	if err := f.Update(ctx, "workspace/f", 4<<20, grow); err != nil {
		t.Fatal(err)
	}
	if info := storetest.Lstat(t, f, "workspace/f"); info.Size != 6+2<<20 || info.Mode != 0o640 {
		t.Errorf("after a large Update: %+v", info)
	}
	err := f.Update(ctx, "workspace/f", 4<<20, func(old []byte, info vfs.Info) ([]byte, error) {
		storetest.WriteFile(t, f, "workspace/f", []byte("theirs"), 0o644)
		return grow(old, info)
	})
	if errno.CodeOf(err) != errno.EAGAIN {
		t.Errorf("a large Update of a file changed meanwhile: %v, want EAGAIN", err)
	}
	if got := string(storetest.ReadFile(t, f, "workspace/f", 0)); got != "theirs" {
		t.Errorf("after the Update lost: %.20q", got)
	}
	if got := count(t, c, `SELECT count(*) FROM agenttools.chunk`); got != 1 {
		t.Errorf("%d chunks stored, want 1", got)
	}
}

// TestRemoveWorkspace: RemoveWorkspace takes the workspace, its nodes
// and its content's chunks, and nothing of the others; ENOENT for a
// workspace that is not there. The FS of a removed workspace changes
// nothing.
func TestRemoveWorkspace(t *testing.T) {
	db := pgtest.Database(t)
	ctx := t.Context()
	if ws, err := pgfs.Workspaces(ctx, db); err != nil || len(ws) != 0 {
		t.Errorf("Workspaces of an empty database = %v, %v", ws, err)
	}
	if err := pgfs.RemoveWorkspace(ctx, db, "x"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("RemoveWorkspace of an empty database: %v, want ENOENT", err)
	}
	gone, kept := open(t, db, "gone"), open(t, db, "kept")
	storetest.WriteFile(t, gone, "workspace/f", make([]byte, 200<<10), 0o644)
	storetest.WriteFile(t, kept, "workspace/f", []byte("kept"), 0o644)
	if err := pgfs.RemoveWorkspace(ctx, db, "gone"); err != nil {
		t.Fatal(err)
	}
	if err := pgfs.RemoveWorkspace(ctx, db, "gone"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("RemoveWorkspace twice: %v, want ENOENT", err)
	}
	c := sqlConn(t, db)
	if got := count(t, c, `SELECT count(*) FROM agenttools.chunk`); got != 1 {
		t.Errorf("%d chunks left, want kept's 1", got)
	}
	ws, err := pgfs.Workspaces(ctx, db)
	if err != nil || len(ws) != 1 || ws[0].Name != "kept" {
		t.Errorf("Workspaces = %+v, %v; want kept only", ws, err)
	}
	if got := string(storetest.ReadFile(t, kept, "workspace/f", 0)); got != "kept" {
		t.Errorf("kept's f = %q", got)
	}
	if err := gone.Mkdir(ctx, "workspace/d", 0o755); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("Mkdir in a removed workspace: %v, want ENOENT", err)
	}
	if got := count(t, c, `SELECT count(*) FROM agenttools.node`); got != 3 {
		t.Errorf("%d nodes, want kept's 3", got)
	}
}

// TestRoundTrips counts the round trips of each operation on a warm
// pool: one statement for every lookup, listing, small read and change,
// two for an Update (its read and its write), and for 3 MiB one per
// MiB read, or, written, a connection of its own (whose COPY first
// asks for the table's columns) and a transaction of the COPY and the
// switch.
func TestRoundTrips(t *testing.T) {
	f := open(t, pgtest.Database(t), "w")
	ctx := t.Context()
	big := bytes.Repeat([]byte("b"), 3<<20)
	storetest.WriteFile(t, f, "workspace/warm", []byte("x"), 0o644)
	storetest.WriteFile(t, f, "workspace/big", big, 0o644)
	read := func(name string) error {
		r, err := f.Open(ctx, name, 0)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
			r.Close()
		}
		return err
	}
	tests := []struct {
		name string
		want int64
		op   func() error
	}{
		{"Lstat", 1, func() error { _, err := f.Lstat(ctx, "workspace/warm"); return err }},
		{"Lstat missing", 1, func() error { _, err := f.Lstat(ctx, "workspace/warm/x"); return ignore(err, errno.ENOTDIR) }},
		{"LstatPath", 1, func() error { _, err := f.LstatPath(ctx, "", []string{"workspace", "warm"}); return err }},
		{"ReadDir", 1, func() error { _, err := f.ReadDir(ctx, "workspace", 0, -1); return err }},
		{"Create", 1, func() error { return f.Create(ctx, "workspace/c", 0o644) }},
		{"Create taken", 1, func() error { return ignore(f.Create(ctx, "workspace/c", 0o644), errno.EEXIST) }},
		{"Mkdir", 1, func() error { return f.Mkdir(ctx, "workspace/d", 0o755) }},
		{"Symlink", 1, func() error { return f.Symlink(ctx, "c", "workspace/l") }},
		{"Chmod", 1, func() error { return f.Chmod(ctx, "workspace/c", 0o600) }},
		{"WriteFile 1 MiB", 1, func() error { return f.WriteFile(ctx, "workspace/w", bytes.NewReader(big[:1<<20]), 0o644) }},
		{"WriteFile 3 MiB", 7, func() error { return f.WriteFile(ctx, "workspace/w", bytes.NewReader(big), 0o644) }},
		{"read 1 byte", 1, func() error { return read("workspace/warm") }},
		// 128 KiB with the node, then 256 KiB, 512 KiB and a MiB at a time.
		{"read 3 MiB", 6, func() error { return read("workspace/big") }},
		{"Update", 2, func() error {
			return f.Update(ctx, "workspace/warm", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, 'y'), nil })
		}},
		{"Remove", 1, func() error { return f.Remove(ctx, "workspace/c") }},
		{"RemoveAll", 1, func() error { return f.RemoveAll(ctx, "workspace/d") }},
	}
	for _, tt := range tests {
		before := f.RoundTrips()
		if err := tt.op(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := f.RoundTrips() - before
		t.Logf("%s: %d round trips", tt.name, got)
		if got != tt.want {
			t.Errorf("%s: %d round trips, want %d", tt.name, got, tt.want)
		}
	}
}

// ignore is err, nil when it has the code expected.
func ignore(err error, code errno.Code) error {
	if errno.CodeOf(err) == code {
		return nil
	}
	if err == nil {
		return fmt.Errorf("no error, want %s", code)
	}
	return err
}

// TestRoleWithoutPrivileges: a role that may not create the tables is
// refused by the first Open, saying what it needs; a role that did not
// make the tables is refused, while it lacks privileges on them, with an error that names
// the database (without the password), is no ErrForeign (the tables are
// this program's) and says what the role needs; with those privileges
// (as the README lists them) it opens a workspace of its own, writes
// small and large files and lists the workspaces.
func TestRoleWithoutPrivileges(t *testing.T) {
	db := pgtest.Database(t)
	open(t, db, "first").Close()
	admin := sqlConn(t, db)
	var b [6]byte
	rand.Read(b[:])
	role := "r_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(t.Context(), "CREATE ROLE "+role+" LOGIN PASSWORD 'hunter2-secret'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if _, err := admin.Exec(ctx, "DROP OWNED BY "+role); err != nil {
			t.Error(err)
		}
		if _, err := admin.Exec(ctx, "DROP ROLE "+role); err != nil {
			t.Error(err)
		}
	})
	p, err := url.Parse(withWorkspace(t, db, "theirs"))
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.UserPassword(role, "hunter2-secret")
	u := p.String()
	p.User = url.UserPassword(role, "xxxxx")
	q := p.Query()
	q.Del("workspace")
	p.RawQuery = q.Encode()
	shown := p.String()

	// In a database without the tables, which the role may not create.
	empty, err := url.Parse(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	empty.User = url.UserPassword(role, "hunter2-secret")
	if _, err := pgfs.Open(t.Context(), empty.String()); err == nil || !strings.Contains(err.Error(), "creating the tables") || !strings.Contains(err.Error(), "needs a role with CREATE on the database") {
		t.Errorf("Open of an empty database: %v; want a refusal that says what the first Open needs", err)
	}

	for _, grant := range []string{"", "GRANT USAGE ON SCHEMA agenttools TO " + role} {
		if grant != "" {
			if _, err := admin.Exec(t.Context(), grant); err != nil {
				t.Fatal(err)
			}
		}
		_, err := pgfs.Open(t.Context(), u)
		if err == nil || errors.Is(err, pgfs.ErrForeign) || !strings.HasPrefix(err.Error(), "pgfs: "+shown+": ") ||
			!strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "needs USAGE on schema agenttools") {
			t.Errorf("after %q, Open: %v; want a refusal naming %s that says what the role needs", grant, err, shown)
		}
		if strings.Contains(fmt.Sprint(err), "hunter2") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	for _, grant := range []string{
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA agenttools TO " + role,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA agenttools TO " + role,
	} {
		if _, err := admin.Exec(t.Context(), grant); err != nil {
			t.Fatal(err)
		}
	}
	f, err := pgfs.Open(t.Context(), u)
	if err != nil {
		t.Fatalf("Open with the privileges: %v", err)
	}
	defer f.Close()
	large := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB: COPY
	for name, data := range map[string][]byte{"workspace/small": []byte("small\n"), "workspace/large": large} {
		if err := f.WriteFile(t.Context(), name, bytes.NewReader(data), 0o644); err != nil {
			t.Fatalf("WriteFile %s: %v", name, err)
		}
	}
	if err := f.Update(t.Context(), "workspace/small", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, "more\n"...), nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := f.Remove(t.Context(), "workspace/large"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	list, err := pgfs.Workspaces(t.Context(), u)
	if err != nil || len(list) != 2 {
		t.Errorf("Workspaces: %+v, %v; want first and theirs", list, err)
	}
}

// TestDatabaseDefaultIsolation: a database whose transactions default
// to REPEATABLE READ changes nothing: concurrent Updates of one file
// take turns on the workspace's row without serialization failures and
// lose no increment.
func TestDatabaseDefaultIsolation(t *testing.T) {
	db := pgtest.Database(t)
	c := sqlConn(t, db)
	if _, err := c.Exec(t.Context(), `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = ''repeatable read''', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	f := open(t, db, "w")
	storetest.WriteFile(t, f, "workspace/n", []byte("0"), 0o644)
	storetest.UpdateConcurrent(t, f, "workspace/n", 6, 15)
}

// TestVanishedWriter: a client that vanished between a large write's
// switch and its COMMIT, holding the workspace's row, holds up the
// other writers of the workspace only until the server ends its idle
// transaction; its write never lands and its chunks are gone.
func TestVanishedWriter(t *testing.T) {
	db := pgtest.Database(t)
	defer pgfs.SetIdleInTransaction("1s")()
	stalled, other := open(t, db, "w"), open(t, db, "w")
	storetest.WriteFile(t, stalled, "workspace/f", []byte("old"), 0o644)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	release, err := pgfs.StallLargeWrite(ctx, stalled, "workspace/f", bytes.Repeat([]byte("n"), 2<<20))
	if release != nil {
		defer release()
	}
	if err != nil {
		t.Fatal(err)
	}
	// Waits for the row until the server ends the stalled session.
	if err := other.Mkdir(ctx, "workspace/d", 0o755); err != nil {
		t.Fatalf("a change after a writer vanished holding the workspace: %v", err)
	}
	if got := string(storetest.ReadFile(t, other, "workspace/f", 0)); got != "old" {
		t.Errorf("the vanished writer's file holds %.20q, want the old content", got)
	}
	if got := count(t, sqlConn(t, db), `SELECT count(*) FROM agenttools.chunk`); got != 1 {
		t.Errorf("%d chunks stored, want 1", got)
	}
}
