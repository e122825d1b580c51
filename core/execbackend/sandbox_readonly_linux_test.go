package execbackend_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

// A Sandbox.ReadOnly path below /tmp is there in the sandbox, read-only,
// over its private /tmp (the test's own FIFOs and a module cache in a
// temporary directory are such paths); without it, it is not there.
func TestSandboxReadOnlyBelowTmp(t *testing.T) {
	ws, _ := testws.SandboxHost(t)
	// Right below /tmp, which the sandbox's user (nobody, when the test
	// runs as root) may enter, and readable to it.
	t.Setenv("TMPDIR", "/tmp")
	dir := testws.PublicDir(t)
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := execbackend.Request{Command: "cat " + file + " && ! touch " + dir + "/new 2>/dev/null && echo read-only"}
	bound := testws.SandboxBackend.NewHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{ReadOnly: []string{dir}}})
	if got := runToEnd(t, bound, probe); got.stdout != "shared\nread-only\n" || got.exit.Code != 0 {
		t.Errorf("bound read-only: stdout %q stderr %q exit %d", got.stdout, got.stderr, got.exit.Code)
	}
	plain := testws.SandboxBackend.NewHost(t, ws, execbackend.HostOptions{})
	if got := runToEnd(t, plain, probe); got.stdout != "" || got.exit.Code == 0 {
		t.Errorf("not bound: stdout %q exit %d", got.stdout, got.exit.Code)
	}
}

// A Sandbox.ReadOnly path below a directory the command's user may not
// enter on the host (a module cache below a 0700 home) is still there:
// the directories above it in the sandbox are open to all. As root only
// (the command then runs as another user than the directories' owner).
func TestSandboxReadOnlyBelowAClosedDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only: elsewhere the command runs as the directories' owner")
	}
	ws, _ := testws.SandboxHost(t)
	closed := t.TempDir() // 0700, root's
	dir := filepath.Join(closed, "home", "cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(closed, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("cached\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb := testws.SandboxBackend.NewHost(t, ws, execbackend.HostOptions{Sandbox: &execbackend.Sandbox{ReadOnly: []string{dir}}})
	if got := runToEnd(t, sb, execbackend.Request{Command: "cat " + filepath.Join(dir, "f") + " && ls " + closed}); got.stdout != "cached\nhome\n" || got.exit.Code != 0 {
		t.Errorf("stdout %q stderr %q exit %d", got.stdout, got.stderr, got.exit.Code)
	}
}
