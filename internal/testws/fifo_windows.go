//go:build windows

package testws

import (
	"fmt"
	"runtime"
)

// Mkfifo fails: Windows has no FIFOs in its file system.
func Mkfifo(path string, perm uint32) error {
	return fmt.Errorf("testws: no FIFOs on %s", runtime.GOOS)
}
