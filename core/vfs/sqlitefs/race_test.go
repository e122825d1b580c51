//go:build race

package sqlitefs_test

// raceEnabled: the race detector is on, under which sync.Pool drops
// buffers at random, so allocation counts say nothing.
const raceEnabled = true
