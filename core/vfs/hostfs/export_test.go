//go:build unix

package hostfs

import (
	"time"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// SetBeforeCopy sets the hook copyInto calls as it starts, and returns
// what puts the old one back.
func SetBeforeCopy(fn func(tempName string)) func() {
	old := beforeCopy
	beforeCopy = fn
	return func() { beforeCopy = old }
}

// SetLockWait sets how long a lock is waited for, and returns what puts
// the old value back.
func SetLockWait(d time.Duration) func() {
	old := lockWait
	lockWait = d
	return func() { lockWait = old }
}
