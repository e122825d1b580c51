//go:build !linux

package exec

import "syscall"

// killSession: without /proc, the process group is all that is found.
func killSession(int) {}

// sessionAlive reports whether the process group sid has a member left.
func sessionAlive(sid int) bool {
	return syscall.Kill(-sid, 0) == nil
}
