package pgfs_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/toolspec"
)

// TestExisting: Existing and ReadOnly open a workspace that exists, and
// on a database without workspace tables, or without that workspace,
// fail with ErrNoWorkspace making nothing: no schema, no workspace.
func TestExisting(t *testing.T) {
	db := pgtest.Database(t)
	c := sqlConn(t, db)
	schemas := func() int64 {
		return count(t, c, `SELECT count(*) FROM pg_namespace WHERE nspname = 'agenttools'`)
	}
	options := map[string]pgfs.Option{"Existing": pgfs.Existing(), "ReadOnly": pgfs.ReadOnly()}
	for name, opt := range options {
		if f, err := pgfs.Open(t.Context(), withWorkspace(t, db, "w"), opt); !errors.Is(err, pgfs.ErrNoWorkspace) {
			if err == nil {
				f.Close()
			}
			t.Errorf("%s on a database without tables: %v, want ErrNoWorkspace", name, err)
		}
		if n := schemas(); n != 0 {
			t.Fatalf("%s on a database without tables made the schema agenttools", name)
		}
	}
	f := open(t, db, "w")
	storetest.WriteFile(t, f, "workspace/f", []byte("content"), 0o644)
	before := catalog(t, c)
	for name, opt := range options {
		if f, err := pgfs.Open(t.Context(), withWorkspace(t, db, "other"), opt); !errors.Is(err, pgfs.ErrNoWorkspace) {
			if err == nil {
				f.Close()
			}
			t.Errorf("%s of a missing workspace: %v, want ErrNoWorkspace", name, err)
		}
		if got := catalog(t, c); got != before {
			t.Errorf("%s of a missing workspace changed the database:\n%s\nwas\n%s", name, got, before)
		}
		g := open(t, db, "w", opt)
		if got := storetest.ReadFile(t, g, "workspace/f", 0); string(got) != "content" {
			t.Errorf("%s of an existing workspace read %q", name, got)
		}
	}
}

// TestReadOnly: a workspace opened ReadOnly reads (nodes, listings,
// content, a walk), and refuses every change with EROFS saying that it
// was opened read-only, changing nothing; its connections refuse writes
// too.
func TestReadOnly(t *testing.T) {
	db := pgtest.Database(t)
	ctx := t.Context()
	w := open(t, db, "w")
	big := bytes.Repeat([]byte("a line of the big file\n"), 3<<20/23)
	storetest.WriteFile(t, w, "workspace/f", []byte("small"), 0o644)
	storetest.WriteFile(t, w, "workspace/big", big, 0o644)
	if err := w.Mkdir(ctx, "workspace/d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.Symlink(ctx, "f", "workspace/link"); err != nil {
		t.Fatal(err)
	}
	info, err := w.Lstat(ctx, "workspace/f")
	if err != nil {
		t.Fatal(err)
	}
	u := withWorkspace(t, db, "w")
	f := open(t, db, "w", pgfs.ReadOnly())

	if got := storetest.ReadFile(t, f, "workspace/big", 0); !bytes.Equal(got, big) {
		t.Errorf("read %d bytes of big, want %d", len(got), len(big))
	}
	if entries, err := f.ReadDir(ctx, "workspace", 0, -1); err != nil || len(entries) != 4 {
		t.Errorf("ReadDir: %d entries, %v; want 4", len(entries), err)
	}
	if got := walk(t, vfs.New(f), "/workspace"); got["/workspace/f"] != "small" || len(got) != 4 {
		t.Errorf("a walk read %v", got)
	}

	msg := toolspec.MsgDatabaseReadOnly(u, toolspec.MsgDatabaseReadOnlyRequested)
	write := func(data []byte) func() error {
		return func() error { return f.WriteFile(ctx, "workspace/f", bytes.NewReader(data), 0o644) }
	}
	update := func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, '!'), nil }
	changes := map[string]func() error{
		"Create":             func() error { return f.Create(ctx, "workspace/new", 0o644) },
		"Mkdir":              func() error { return f.Mkdir(ctx, "workspace/new", 0o755) },
		"Symlink":            func() error { return f.Symlink(ctx, "f", "workspace/new") },
		"Remove":             func() error { return f.Remove(ctx, "workspace/f") },
		"RemoveAll":          func() error { return f.RemoveAll(ctx, "workspace") },
		"RemoveIf":           func() error { return f.RemoveIf(ctx, "workspace/f", info.Rev) },
		"Chmod":              func() error { return f.Chmod(ctx, "workspace/f", 0o600) },
		"WriteFile":          write([]byte("other")),
		"WriteFile of 3 MiB": write(big),
		"WriteFileIf":        func() error { return f.WriteFileIf(ctx, "workspace/f", info.Rev, strings.NewReader("other"), 0o644) },
		"Update":             func() error { return f.Update(ctx, "workspace/f", 1<<20, update) },
		"UpdatePieces": func() error {
			return f.UpdatePieces(ctx, "workspace/f", 1<<20, func(old []byte, _ vfs.Info) (vfs.Pieces, error) { return vfs.Pieces{old, []byte("!")}, nil })
		},
	}
	before, err := pgfs.Workspaces(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range changes {
		err := change()
		var e *errno.Error
		if !errors.As(err, &e) || e.Code != errno.EROFS || e.Message != msg {
			t.Errorf("%s: %v, want EROFS %q", name, err, msg)
		}
	}
	if strings.Contains(msg, "xxxxx") || !strings.Contains(msg, "workspace=w") {
		t.Errorf("the message names %q", msg)
	}
	after, err := pgfs.Workspaces(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 1 || after[0] != before[0] {
		t.Errorf("the refused changes changed the workspace: %+v, was %+v", after, before)
	}
	if got := storetest.ReadFile(t, w, "workspace/f", 0); string(got) != "small" {
		t.Errorf("f holds %q", got)
	}
	// A statement that got past the store's refusal changes nothing
	// either: the server refuses it.
	var pe *pgconn.PgError
	if err := pgfs.Exec(ctx, f, `UPDATE agenttools.workspace SET rev = rev + 1`); !errors.As(err, &pe) || pe.Code != "25006" {
		t.Errorf("a write through the read-only pool: %v, want SQLSTATE 25006 (read_only_sql_transaction)", err)
	}
}
