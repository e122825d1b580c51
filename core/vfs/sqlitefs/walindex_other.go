//go:build !linux

package sqlitefs

// walIndex is not mapped on this system (where no /proc/self/fd finds
// SQLite's descriptor of it): the change counter is read with a
// statement every time, and the writer makes SQLite's checkpoints.
type walIndex struct{}

func mapWALIndex(string) *walIndex { return nil }

func (w *walIndex) header() (h walHdr, ok bool) { return h, false }

func (w *walIndex) unchecked() uint32 { return 0 }
