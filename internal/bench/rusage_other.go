//go:build !unix

package bench

// peakRSSMB is 0: the system gives no getrusage.
func peakRSSMB() int64 { return 0 }
