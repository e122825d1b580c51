//go:build !linux

package exec

import "io/fs"

// changeTime is unknown here: changes are seen by time, size and mode.
func changeTime(fs.FileInfo) int64 { return 0 }
