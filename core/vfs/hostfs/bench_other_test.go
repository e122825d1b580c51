//go:build !linux

package hostfs_test

import "testing"

func syscallsPage(b *testing.B, dir string, buf []byte, n int) {
	b.Skip("bare system calls: Linux only")
}
