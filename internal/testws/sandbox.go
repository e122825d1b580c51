package testws

import (
	"os"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// SandboxRequired is the variable that makes NeedSandbox fail a test
// instead of skipping it where the sandbox cannot run (.ci/run sets it,
// after installing bubblewrap).
const SandboxRequired = "AGENTTOOLS_SANDBOX_REQUIRED"

var sandboxCheck = sync.OnceValue(func() error {
	_, err := execbackend.NewHost(vfs.New(memfs.New()), execbackend.HostOptions{Sandbox: &execbackend.Sandbox{}})
	return err
})

// NeedSandbox skips the test, saying why, where the sandbox backend
// cannot run (not Linux, bwrap not installed, user namespaces refused),
// or fails it there when SandboxRequired is set.
func NeedSandbox(tb testing.TB) {
	tb.Helper()
	if err := sandboxCheck(); err != nil {
		if os.Getenv(SandboxRequired) != "" {
			tb.Fatalf("the sandbox cannot run, and %s is set: %v", SandboxRequired, err)
		}
		tb.Skipf("the sandbox cannot run here: %v", err)
	}
}

// SandboxHost is Host on a fresh directory that the sandbox's commands
// may write: when the test runs as root (the commands then run as
// execbackend.DefaultSandboxUser), the directory is given to that user.
// It skips the test as NeedSandbox does.
func SandboxHost(tb testing.TB) (*vfs.Workspace, string) {
	tb.Helper()
	NeedSandbox(tb)
	dir := tb.TempDir()
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, execbackend.DefaultSandboxUser, execbackend.DefaultSandboxUser); err != nil {
			tb.Fatal(err)
		}
	}
	return Host(tb, dir)
}
