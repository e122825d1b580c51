package hostio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/hostio"
)

// A tree imported from the host and exported again comes back the same:
// contents, directories, permission bits, links (an absolute link into
// the tree is remapped both ways).
func TestHostCopyRoundTrip(t *testing.T) {
	src := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "bin"), 0o755))
	must(os.WriteFile(filepath.Join(src, "bin", "run"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	must(os.WriteFile(filepath.Join(src, "notes.txt"), []byte("notes\n"), 0o600))
	must(os.Mkdir(filepath.Join(src, "private"), 0o700))
	must(os.Symlink("notes.txt", filepath.Join(src, "rel-link")))
	must(os.Symlink(filepath.Join(src, "bin", "run"), filepath.Join(src, "abs-link")))
	must(os.Symlink("/etc/hostname", filepath.Join(src, "outside-link")))

	ws := vfs.New(memfs.New())
	in := hostio.Copy{WS: ws, Root: "/workspace/project", Dir: src}
	n, err := in.Import(t.Context())
	if err != nil || n != 7 {
		t.Fatalf("import: %d nodes, %v", n, err)
	}
	for p, want := range map[string]vfs.Info{
		"/workspace/project/bin/run":      {Type: vfs.TypeFile, Mode: 0o755},
		"/workspace/project/notes.txt":    {Type: vfs.TypeFile, Mode: 0o600},
		"/workspace/project/private":      {Type: vfs.TypeDir, Mode: 0o700},
		"/workspace/project/rel-link":     {Type: vfs.TypeSymlink, Mode: 0o777, Target: "notes.txt"},
		"/workspace/project/abs-link":     {Type: vfs.TypeSymlink, Mode: 0o777, Target: "/workspace/project/bin/run"},
		"/workspace/project/outside-link": {Type: vfs.TypeSymlink, Mode: 0o777, Target: "/etc/hostname"},
	} {
		got, err := ws.Lstat(t.Context(), p)
		if err != nil || got.Type != want.Type || got.Mode != want.Mode || got.Target != want.Target {
			t.Errorf("%s: %+v %v, want %+v", p, got, err, want)
		}
	}

	dst := filepath.Join(t.TempDir(), "out")
	out := hostio.Copy{WS: ws, Root: "/workspace/project", Dir: dst}
	if n, err := out.Export(t.Context()); err != nil || n != 7 {
		t.Fatalf("export: %d nodes, %v", n, err)
	}
	for _, rel := range []string{"bin", "bin/run", "notes.txt", "private", "rel-link", "abs-link", "outside-link"} {
		a, errA := os.Lstat(filepath.Join(src, rel))
		b, errB := os.Lstat(filepath.Join(dst, rel))
		if errA != nil || errB != nil || a.Mode() != b.Mode() || (a.Mode().IsRegular() && a.Size() != b.Size()) {
			t.Errorf("%s: %v %v / %v %v", rel, a.Mode(), errA, b.Mode(), errB)
		}
	}
	if target, _ := os.Readlink(filepath.Join(dst, "abs-link")); target != filepath.Join(dst, "bin", "run") {
		t.Errorf("abs-link exported as %q", target)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "bin", "run")); string(data) != "#!/bin/sh\necho hi\n" {
		t.Errorf("content %q", data)
	}
}
