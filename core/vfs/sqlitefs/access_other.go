//go:build !unix

package sqlitefs

// notWritable cannot tell here: SQLite finds out.
func notWritable(string) string { return "" }
