//go:build windows

package hostfs_test

import "testing"

// strictUmask: Windows has no umask.
func strictUmask(*testing.T) {}
