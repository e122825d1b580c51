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
