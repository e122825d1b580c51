//go:build unix

package hostfs_test

import (
	"syscall"
	"testing"
)

// strictUmask sets a umask that would strip group and other bits from
// every mode the suite asks for, so modes that come out exact were set
// explicitly. The umask is process-wide: no test in this package runs in
// parallel.
func strictUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })
}
