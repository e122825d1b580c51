//go:build linux

package testws

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Watch takes hold of the running process pid (a pidfd, so that the
// pid cannot be reused under the test) and returns a function that
// waits until that process has exited, without polling, and reports
// whether it did within the given time (a generous guard against a
// hang: a process killed exits soon, but when depends on the
// scheduler). Call it while the process is known to run.
func Watch(tb testing.TB, pid int) func(within time.Duration) bool {
	tb.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		tb.Fatalf("watching process %d: %v", pid, err)
	}
	tb.Cleanup(func() { unix.Close(fd) })
	return func(within time.Duration) bool {
		deadline := time.Now().Add(within)
		for {
			// A pidfd is readable once its process has exited.
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(max(time.Until(deadline), 0).Milliseconds()))
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case err != nil:
				tb.Fatalf("waiting for process %d: %v", pid, err)
			}
			return n > 0
		}
	}
}
