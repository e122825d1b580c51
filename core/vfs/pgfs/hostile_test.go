package pgfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// TestPasswordNeverShown: the errors of Open, Workspaces and
// RemoveWorkspace for URLs that are wrong in many ways never show the
// password, whether in the user part (net/url able to read the URL or
// not: a stray '%', '/' or '[') or in a password parameter, nor the
// password of the client's TLS key (sslpassword).
func TestPasswordNeverShown(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"postgres://bob:cr3t%x@h/db",
		"postgres://bob:cr3t/x@h/db",
		"postgres://bob:cr3t@[::1/db",
		"postgres://bob:cr3t@h:99999/db",
		"postgres://bob:cr3t@h/db?workspace=a&workspace=b",
		"postgres://bob:cr3t@h/db?workspace=%ff",
		"postgres://bob@h/db?password=cr3t&workspace=a&workspace=b",
		"postgres://bob@h/db?sslmode=bogus&password=cr3t",
		"postgres://bob@h:99999/db?password=cr3t",
		"postgres://bob:cr3t@127.0.0.1:1/db?password=cr3t",
		"postgres://bob@h:99999/db?sslpassword=cr3t",
		"postgres://bob@h/db?sslmode=bogus&sslpassword=cr3t",
		"postgres://bob@h/db?sslpassword=cr3t&workspace=",
	} {
		_, err := pgfs.Open(ctx, u)
		_, err2 := pgfs.Workspaces(ctx, u)
		err3 := pgfs.RemoveWorkspace(ctx, u, "w")
		_, _, err4 := pgfs.SplitURL(u)
		for _, err := range []error{err, err2, err3, err4} {
			if err != nil && strings.Contains(err.Error(), "cr3t") {
				t.Errorf("%s: the error shows the password: %v", u, err)
			}
		}
		if err == nil || err2 == nil || err3 == nil {
			t.Errorf("%s: no error: %v, %v, %v", u, err, err2, err3)
		}
	}
}

// TestConnectBounded: a server that accepts connections and never
// answers (a wrong port, a proxy in front of a dead server) makes Open,
// Workspaces and RemoveWorkspace fail, without a deadline of the
// caller's, once the connection timeout passes, instead of hanging; a
// connect_timeout of the URL still rules.
func TestConnectBounded(t *testing.T) {
	defer pgfs.SetConnectTimeout(200 * time.Millisecond)()
	t.Setenv("PGCONNECT_TIMEOUT", "")
	os.Unsetenv("PGCONNECT_TIMEOUT")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var held []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	u := "postgres://bob@" + l.Addr().String() + "/db?sslmode=disable"
	calls := map[string]func(string) error{
		"Open":            func(u string) error { _, err := pgfs.Open(context.Background(), u); return err },
		"Workspaces":      func(u string) error { _, err := pgfs.Workspaces(context.Background(), u); return err },
		"RemoveWorkspace": func(u string) error { return pgfs.RemoveWorkspace(context.Background(), u, "w") },
	}
	for name, call := range calls {
		for _, u := range []string{u, u + "&connect_timeout=1"} {
			done := make(chan error, 1)
			go func() { done <- call(u) }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s(%s) succeeded against a silent server", name, u)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s(%s) still waits for a silent server after 30 s", name, u)
			}
		}
	}
}

// hijack is what a neighbour who may create in the schema public (any
// role before PostgreSQL 15) plants: functions that fit the arguments of
// the system's functions the store calls by bare name better than
// theirs, and fail when called (they could as well read or change every
// workspace with the store's rights).
const hijack = `
CREATE FUNCTION public.cardinality(bytea[]) RETURNS integer LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'hijacked cardinality'; END$$;
CREATE FUNCTION public.unnest(bytea[]) RETURNS SETOF bytea LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'hijacked unnest'; END$$;
CREATE FUNCTION public.nextval(text) RETURNS bigint LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'hijacked nextval'; END$$;
CREATE FUNCTION public.hijacked(bytea[], bytea) RETURNS bytea[] LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'hijacked array_agg'; END$$;
CREATE AGGREGATE public.array_agg(bytea) (SFUNC = public.hijacked, STYPE = bytea[]);
CREATE FUNCTION public.sum(bigint) RETURNS numeric LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'hijacked sum'; END$$;`

// TestSearchPathHijack: functions planted in the schema public that
// would shadow the system's, for the default search path, are never
// called by the store: writes small and large, an update, reads, a walk,
// a new workspace, Workspaces and RemoveWorkspace all work as before.
func TestSearchPathHijack(t *testing.T) {
	db := pgtest.Database(t)
	open(t, db, "w").Close()
	c := sqlConn(t, db)
	if _, err := c.Exec(t.Context(), hijack); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, name := range []string{"w", "new"} {
		f := open(t, db, name)
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
		for _, data := range [][]byte{[]byte("hello\n"), big} {
			if err := f.WriteFile(ctx, "workspace/f", bytes.NewReader(data), 0o644); err != nil {
				t.Fatalf("%s: a write of %d bytes: %v", name, len(data), err)
			}
			if got := storetest.ReadFile(t, f, "workspace/f", 0); !bytes.Equal(got, data) {
				t.Errorf("%s: read %d bytes, wrote %d", name, len(got), len(data))
			}
		}
		storetest.WriteFile(t, f, "workspace/g", []byte("a"), 0o644)
		if err := f.Update(ctx, "workspace/g", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, 'b'), nil }); err != nil {
			t.Errorf("%s: Update: %v", name, err)
		}
		// A walk through directory handles: the subtree's listing and its
		// small files' content, each in one statement.
		d, err := f.OpenDir(ctx, "workspace")
		if err != nil {
			t.Fatalf("%s: OpenDir: %v", name, err)
		}
		entries, err := d.Entries(ctx, "", -1)
		var seen []string
		for _, e := range entries {
			r, err := d.Open(ctx, e.Name, 0)
			if err != nil {
				t.Fatalf("%s: Open %s: %v", name, e.Name, err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			seen = append(seen, e.Name+"="+string(b[:min(len(b), 5)]), fmt.Sprint(err))
		}
		if want := []string{"f=01234", "<nil>", "g=ab", "<nil>"}; err != nil || !slices.Equal(seen, want) {
			t.Errorf("%s: a walk saw %q, %v; want %q", name, seen, err, want)
		}
		if list, err := f.ReadDir(ctx, "workspace", 0, -1); err != nil || len(list) != 2 {
			t.Errorf("%s: ReadDir: %v, %v", name, list, err)
		}
	}
	if list, err := pgfs.Workspaces(ctx, db); err != nil || len(list) != 2 {
		t.Errorf("Workspaces: %v, %v", list, err)
	}
	if err := pgfs.RemoveWorkspace(ctx, db, "new"); err != nil {
		t.Errorf("RemoveWorkspace: %v", err)
	}
}

// stallingSource is a reader of n zero bytes that, halfway, waits until
// wait returns true (or fails with its error).
type stallingSource struct {
	n, half int
	wait    func() (bool, error)
}

func (s *stallingSource) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	if s.n == s.half {
		for {
			ok, err := s.wait()
			if err != nil {
				return 0, err
			}
			if ok {
				break
			}
		}
		s.half = -1
	}
	k := min(len(p), s.n)
	if s.half > 0 && s.n > s.half {
		k = min(k, s.n-s.half)
	}
	clear(p[:k])
	s.n -= k
	return k, nil
}

// TestSlowWriteOutlivesStatementTimeout: a large write whose content
// comes slowly (a command's output saved as it prints it) is not cut by
// a statement_timeout the database sets for its roles, which is meant
// for queries, not for a COPY waiting on its client: the write, whose
// COPY runs past the timeout, succeeds.
func TestSlowWriteOutlivesStatementTimeout(t *testing.T) {
	db := pgtest.Database(t)
	open(t, db, "w").Close() // the tables made without the timeout
	c := sqlConn(t, db)
	if _, err := c.Exec(t.Context(), `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 1000', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	f := open(t, db, "w")
	ctx := t.Context()
	// The source stalls halfway until the COPY has run for 3 seconds,
	// past the timeout.
	src := &stallingSource{n: 3 << 20, half: 3 << 19, wait: func() (bool, error) {
		var n int64
		err := c.QueryRow(ctx, `SELECT count(*) FROM pg_sleep(0.01), pg_stat_activity WHERE datname = current_database()
			AND query LIKE 'copy %' AND now() - query_start > interval '3 seconds'`).Scan(&n)
		return n > 0, err
	}}
	if err := f.WriteFile(ctx, "workspace/slow", src, 0o644); err != nil {
		t.Fatalf("a slow write of 3 MiB: %v", err)
	}
	if got := storetest.ReadFile(t, f, "workspace/slow", 0); len(got) != 3<<20 {
		t.Errorf("the slow write left %d bytes, want %d", len(got), 3<<20)
	}
}
