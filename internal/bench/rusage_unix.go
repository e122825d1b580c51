//go:build unix

package bench

import (
	"runtime"
	"syscall"
)

// peakRSSMB is the process's peak resident set in MiB (getrusage's
// ru_maxrss: KiB on Linux, bytes on macOS).
func peakRSSMB() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) >> 20
	}
	return int64(ru.Maxrss) >> 10
}
