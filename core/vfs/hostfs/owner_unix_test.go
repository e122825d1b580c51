//go:build unix

package hostfs_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/internal/testws"
)

// WithOwner gives what the store creates (a written file, a created
// one, a directory, a link) to the user and group it names, and leaves
// a rewritten file the owner it had. Without it they are this
// process's: the control.
func TestWithOwnerGivesWhatItCreates(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give files to another user")
	}
	const uid, gid = testws.Nobody, testws.Nobody
	for _, give := range []bool{false, true} {
		dir := t.TempDir()
		other := filepath.Join(dir, "theirs.txt")
		if err := os.WriteFile(other, []byte("old\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 1234, 1234); err != nil {
			t.Fatal(err)
		}
		var opts []hostfs.Option
		if give {
			opts = append(opts, hostfs.WithOwner(uid, gid))
		}
		fsys, err := hostfs.Open(dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		ws := vfs.New(fsys)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(ws.Mkdir(ctx, "/sub", vfs.MkdirOptions{}))
		must(ws.WriteFile(ctx, "/sub/new.txt", []byte("new\n"), vfs.WriteOptions{}))
		must(fsys.Create(ctx, "made.txt", 0o644))
		must(fsys.Symlink(ctx, "sub/new.txt", "link"))
		must(ws.WriteFile(ctx, "/theirs.txt", []byte("rewritten\n"), vfs.WriteOptions{}))
		want := uint32(0)
		if give {
			want = uid
		}
		for _, name := range []string{"sub", "sub/new.txt", "made.txt", "link"} {
			fi, err := os.Lstat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); st.Uid != want || st.Gid != want {
				t.Errorf("WithOwner %v: %s is %d:%d, want %d:%d", give, name, st.Uid, st.Gid, want, want)
			}
		}
		if fi, err := os.Stat(other); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 1234 {
			t.Errorf("WithOwner %v: the rewritten file is no longer its owner's: %v", give, err)
		}
		fsys.Close()
	}
}
