//go:build unix

package testws

import "syscall"

// Mkfifo makes a FIFO at path with the permission bits perm (less the
// umask): syscall.Mkfifo. On Windows, which has no FIFOs, it fails.
func Mkfifo(path string, perm uint32) error { return syscall.Mkfifo(path, perm) }
