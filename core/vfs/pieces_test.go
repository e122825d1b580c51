package vfs_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// TestPieces: Len, Join and Reader give the pieces one after another
// (empty ones too), and reading leaves the pieces as they were.
func TestPieces(t *testing.T) {
	p := vfs.Pieces{[]byte("one "), nil, []byte(""), []byte("two"), []byte(" three\n")}
	const want = "one two three\n"
	if p.Len() != len(want) || string(p.Join()) != want {
		t.Fatalf("Len %d, Join %q; want %d, %q", p.Len(), p.Join(), len(want), want)
	}
	if err := iotest.TestReader(p.Reader(), []byte(want)); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if n, err := io.Copy(&w, p.Reader()); err != nil || n != int64(len(want)) || w.String() != want {
		t.Fatalf("io.Copy: %d %v %q", n, err, w.String())
	}
	if string(p.Join()) != want {
		t.Fatalf("reading changed the pieces: %q", p.Join())
	}
	only := []byte("x")
	if got := (vfs.Pieces{only}).Join(); &got[0] != &only[0] {
		t.Error("Join of one piece copied it")
	}
	if (vfs.Pieces{nil}).Join() != nil {
		t.Error("Join of one nil piece is not nil")
	}
}

// plainStore is a store that is no Updater: Update reads and writes in
// two steps.
type plainStore struct{ vfs.Store }

// TestUpdatePieces: on a PieceUpdater (hostfs), an Updater (memfs) and a
// store that is neither, UpdatePieces writes the pieces (parts of the
// old content among them) one after another; when fn fails, the file is
// left as it was.
func TestUpdatePieces(t *testing.T) {
	host, err := hostfs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	for name, store := range map[string]vfs.Store{"hostfs": host, "memfs": memfs.New(), "plain": plainStore{memfs.New()}} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ws := vfs.New(store)
			if err := ws.WriteFile(ctx, "/f.txt", []byte("alpha beta gamma\n"), vfs.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			err := ws.UpdatePieces(ctx, "/f.txt", 1<<20, func(old []byte, _ vfs.Info) (vfs.Pieces, error) {
				return vfs.Pieces{old[:6], []byte("BETA"), nil, old[10:]}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, ws, "/f.txt"); got != "alpha BETA gamma\n" {
				t.Fatalf("after UpdatePieces: %q", got)
			}
			refused := errors.New("refused")
			err = ws.UpdatePieces(ctx, "/f.txt", 1<<20, func(old []byte, _ vfs.Info) (vfs.Pieces, error) {
				return vfs.Pieces{old[:1]}, refused
			})
			if err != refused {
				t.Fatalf("UpdatePieces whose fn fails: %v, want fn's error", err)
			}
			if got := readAll(t, ws, "/f.txt"); got != "alpha BETA gamma\n" {
				t.Fatalf("a failed UpdatePieces left %q", got)
			}
		})
	}
}
