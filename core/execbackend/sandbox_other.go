//go:build !linux

package execbackend

import (
	"os"
	"runtime"
)

// sandboxer: the sandbox runs on Linux only.
type sandboxer struct{ bwrap, path string }

func sandboxSupported() error {
	return sandboxUnavailable("the sandbox backend runs on Linux only (it uses bubblewrap's namespaces); this system is %s", runtime.GOOS)
}

func newSandboxer(*Sandbox, string, string, *hostProcs) (*sandboxer, error) {
	return nil, sandboxSupported()
}

func (s *sandboxer) command(string, string, int, string, []string, []string) ([]string, []*os.File, error) {
	return nil, nil, sandboxSupported()
}

func (s *sandboxer) checkWritable(string) error { return sandboxSupported() }

func (s *sandboxer) giveTree(string, func(string)) error { return sandboxSupported() }
