//go:build !linux

package sqlitefs

// useLock would be an FS's lock that tells Discard whether another FS has
// the database open. There is none here: the open file description locks
// it needs are Linux's (flock locks, elsewhere, meet SQLite's own on some
// systems, and Windows's are mandatory), so Discard never removes a
// database here.
type useLock struct{}

// holdUse takes no lock here.
func holdUse(string, bool) (*useLock, error) { return nil, nil }

func (u *useLock) exclusive() bool { return false }

func (u *useLock) Close() error { return nil }
