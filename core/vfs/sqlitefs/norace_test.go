//go:build !race

package sqlitefs_test

// raceEnabled: see race_test.go.
const raceEnabled = false
