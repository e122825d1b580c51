package testws

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
)

// Backend is one of the backends that run commands as real processes:
// the host backend, or the same in the sandbox. A test of what both must
// do runs on each (ForEachBackend); where the sandbox legitimately
// differs, the test asserts each one's behaviour.
type Backend struct {
	// Name is the backend's id ("host", "sandbox") and its subtest's name.
	Name string
	// Sandbox: commands run in the sandbox (HostOptions.Sandbox).
	Sandbox bool
}

// The backends.
var (
	HostBackend    = Backend{Name: "host"}
	SandboxBackend = Backend{Name: "sandbox", Sandbox: true}
	Backends       = []Backend{HostBackend, SandboxBackend}
)

// ForEachBackend runs test as a subtest on each of Backends, named after
// it; the sandbox's skips (or fails) as NeedSandbox says.
func ForEachBackend(t *testing.T, test func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			if b.Sandbox {
				NeedSandbox(t)
			}
			test(t, b)
		})
	}
}

// Workspace is a workspace whose /workspace is a fresh host directory
// the backend's commands may write (Host, or SandboxHost), and that
// directory with symbolic links resolved.
func (b Backend) Workspace(tb testing.TB) (*vfs.Workspace, string) {
	tb.Helper()
	if b.Sandbox {
		return SandboxHost(tb)
	}
	return Host(tb, "")
}

// Options is opts for this backend: with a Sandbox (a new one, unless
// opts has one) for the sandbox.
func (b Backend) Options(opts execbackend.HostOptions) execbackend.HostOptions {
	if b.Sandbox && opts.Sandbox == nil {
		opts.Sandbox = &execbackend.Sandbox{}
	}
	return opts
}

// NewHost is execbackend.NewHost of ws with b.Options(opts).
func (b Backend) NewHost(tb testing.TB, ws *vfs.Workspace, opts execbackend.HostOptions) *execbackend.Host {
	tb.Helper()
	h, err := execbackend.NewHost(ws, b.Options(opts))
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// Path is where a command sees the host path p that lies in dir, the
// host directory bound at the workspace directory ws (/workspace): p
// itself on the host, its place below ws in the sandbox.
func (b Backend) Path(dir, ws, p string) string {
	if !b.Sandbox {
		return p
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(filepath.Join(ws, rel))
}

// Give gives the files at paths, and what is below them, to the
// sandbox's user (execbackend.DefaultSandboxUser) when b is the sandbox
// and the test runs as root, so that its commands may write them as
// they may on the host backend; elsewhere it does nothing.
func (b Backend) Give(tb testing.TB, paths ...string) {
	tb.Helper()
	if !b.Sandbox || os.Geteuid() != 0 {
		return
	}
	for _, p := range paths {
		err := filepath.WalkDir(p, func(q string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(q, execbackend.DefaultSandboxUser, execbackend.DefaultSandboxUser)
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}
