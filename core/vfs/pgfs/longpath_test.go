package pgfs_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/pgtest"
	"github.com/agenttools/agenttools/toolspec"
)

// randomName is n bytes that PostgreSQL cannot compress: random bytes
// but NUL and '/' (letters only when letters is set).
func randomName(rng *rand.Rand, n int, letters bool) string {
	b := make([]byte, n)
	for i := range b {
		if letters {
			b[i] = byte('a' + rng.IntN(26))
			continue
		}
		for b[i] == 0 || b[i] == '/' {
			b[i] = byte(rng.IntN(256))
		}
	}
	return string(b)
}

// pgfsMaxPath is the longest path at the root of a workspace over pgfs.
const pgfsMaxPath = 2600

// TestLongPaths: through vfs.Workspace over pgfs, paths of 2600 bytes
// that do not compress (below directories of every alignment, and at
// the root) are written, read, listed and removed; a longer one (one
// byte more, 4000 bytes of random letters, a name of 3000 bytes under a
// short directory, one under a directory the write would make) is
// refused as the Workspace refuses a path over its own limit, naming
// the limit, EINVAL, for a file, a directory and a link, and nothing
// is written: not the node, not a parent, not a chunk. (Lookups of such
// a path find nothing.)
func TestLongPaths(t *testing.T) {
	db := pgtest.Database(t)
	f := open(t, db, "w")
	w := vfs.New(f)
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(20, 4))
	content := []byte("abc")
	for _, dir := range []string{"", "/workspace", "/workspace/a", "/workspace/ab", "/workspace/abc", "/workspace/abcd"} {
		if dir != "" && dir != "/workspace" {
			if err := w.Mkdir(ctx, dir, vfs.MkdirOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		p := dir + "/" + randomName(rng, pgfsMaxPath-len(dir)-1, false)
		if err := w.WriteFile(ctx, p, content, vfs.WriteOptions{}); err != nil {
			t.Fatalf("a write of %d bytes below %q: %v", len(p), dir, err)
		}
		r, _, err := w.Open(ctx, p, 0)
		if err != nil {
			t.Fatalf("open of %d bytes below %q: %v", len(p), dir, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != string(content) {
			t.Errorf("read of %d bytes below %q: %q, %v", len(p), dir, got, err)
		}
		list, err := w.ReadDir(ctx, dir+"/", 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list, func(i vfs.Info) bool { return i.Name == p[len(dir)+1:] }) {
			t.Errorf("the listing of %q has no entry of %d bytes", dir+"/", len(p)-len(dir)-1)
		}
		if err := w.Remove(ctx, p, vfs.RemoveOptions{}); err != nil {
			t.Fatalf("remove of %d bytes below %q: %v", len(p), dir, err)
		}
		if _, err := w.Lstat(ctx, p); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("after its removal, Lstat of %d bytes below %q: %v", len(p), dir, err)
		}
	}

	if err := w.Mkdir(ctx, "/workspace/d", vfs.MkdirOptions{}); err != nil {
		t.Fatal(err)
	}
	chunks := count(t, sqlConn(t, db), `SELECT count(*) FROM agenttools.chunk`)
	tooLong := []string{
		"/workspace/" + randomName(rng, pgfsMaxPath-len("/workspace/")+1, false),
		"/workspace/" + randomName(rng, 4000-len("/workspace/"), true),
		"/workspace/d/" + randomName(rng, 3000, true),
		"/workspace/new/" + randomName(rng, 3000, true),
	}
	for _, p := range tooLong {
		want := toolspec.MsgPathTooLong(pgfsMaxPath, toolspec.MsgShortened(strings.ToValidUTF8(p[:100], "")))
		check := func(what string, err error) {
			t.Helper()
			var e *errno.Error
			if !errors.As(err, &e) || e.Code != errno.EINVAL || e.Message != want {
				t.Errorf("%s of %d bytes: %.200q, want EINVAL %.200q", what, len(p), fmt.Sprint(err), want)
			}
		}
		check("write", w.WriteFile(ctx, p, content, vfs.WriteOptions{CreateParents: true}))
		check("a write of 2 MiB", w.WriteFile(ctx, p, make([]byte, 2<<20), vfs.WriteOptions{CreateParents: true}))
		check("mkdir", w.Mkdir(ctx, p, vfs.MkdirOptions{Recursive: true}))
		if !strings.HasPrefix(p, "/workspace/new/") { // else ENOENT: no parent
			check("symlink", w.Symlink(ctx, "x", p))
			check("create", w.Create(ctx, p))
		}
		if _, err := w.Lstat(ctx, p); errno.CodeOf(err) != errno.ENOENT {
			t.Errorf("after the refusals, Lstat of %d bytes: %v, want ENOENT", len(p), err)
		}
	}
	if _, err := w.Lstat(ctx, "/workspace/new"); errno.CodeOf(err) != errno.ENOENT {
		t.Errorf("a refused write left its parent /workspace/new: %v", err)
	}
	for _, dir := range []string{"/workspace", "/workspace/d"} {
		list, err := w.ReadDir(ctx, dir, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range list {
			if len(i.Name) > 100 || strings.HasPrefix(i.Name, "new") {
				t.Errorf("a refused path left %s/%.20s… (%d bytes)", dir, i.Name, len(i.Name))
			}
		}
	}
	if got := count(t, sqlConn(t, db), `SELECT count(*) FROM agenttools.chunk`); got != chunks {
		t.Errorf("%d chunks stored after the refusals, %d before", got, chunks)
	}
}
