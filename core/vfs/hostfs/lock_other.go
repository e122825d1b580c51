//go:build !unix

package hostfs

import (
	"context"
	"os"
)

// Without flock(2), writers of different processes do not lock files:
// a replace is checked against what was read, as against other programs.
func lockFile(context.Context, *os.File) error { return nil }

func tryLock(*os.File) bool { return true }

func owner(*os.File) (uid, gid int, own bool) { return 0, 0, true }

func textBusy(error) bool { return false }

func fileFlags(*os.File) (int, error) { return os.O_RDWR, nil }
