//go:build !unix

package sqlitefs

// walIndex is not mapped on this system: the change counter is read with
// a statement every time.
type walIndex struct{}

func mapWALIndex(string) *walIndex { return nil }

func (w *walIndex) header() (h walHdr, ok bool) { return h, false }
