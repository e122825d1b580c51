package sqlitefs

import (
	"errors"
	"os"
	"slices"
	"sync"
)

// Closing a descriptor of a file releases every POSIX (fcntl) lock this
// process holds on that file, whichever descriptor took it: the locks of
// SQLite's connections of every FS of this process on the file included.
// Without them, another process's connection that closes believes itself
// the last one, checkpoints, and removes the -wal and -shm files these
// connections still use, whose later changes they then never see. So a
// descriptor this package opens on a database file (to read its header,
// or for a lock of its own) is closed by closeFile, which keeps it open
// while an FS of this process has the file open, until the last one has
// closed its connections (SQLite keeps its own descriptors the same way).

// inProcess is the database files FSs of this process have open.
var inProcess struct {
	mu    sync.Mutex
	files []*openFile
}

// openFile is a database file FSs of this process have open: how many do,
// and the descriptors of it closeFile kept open meanwhile.
type openFile struct {
	id    os.FileInfo
	users int
	kept  []*os.File
}

// useFile records that an FS of this process has the database file at
// abs open until the openFile is released; nil when the file cannot be
// stat'ed (nothing is then kept for it).
func useFile(abs string) *openFile {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil
	}
	inProcess.mu.Lock()
	defer inProcess.mu.Unlock()
	if d := findFile(fi); d != nil {
		d.users++
		return d
	}
	d := &openFile{id: fi, users: 1}
	inProcess.files = append(inProcess.files, d)
	return d
}

// findFile is the entry of the file fi describes, nil for none; the
// caller holds inProcess.mu.
func findFile(fi os.FileInfo) *openFile {
	for _, d := range inProcess.files {
		if os.SameFile(d.id, fi) {
			return d
		}
	}
	return nil
}

// release records that the FS useFile gave d to has closed its SQLite
// connections: the last FS of the file closes the descriptors kept. Nil d
// does nothing.
func (d *openFile) release() error {
	if d == nil {
		return nil
	}
	inProcess.mu.Lock()
	defer inProcess.mu.Unlock()
	if d.users--; d.users > 0 {
		return nil
	}
	inProcess.files = slices.DeleteFunc(inProcess.files, func(e *openFile) bool { return e == d })
	var errs []error
	for _, f := range d.kept {
		errs = append(errs, f.Close())
	}
	d.kept = nil
	return errors.Join(errs...)
}

// closeFile closes f, a descriptor of a database file that holds no lock
// of its own any more, or keeps it open while an FS of this process has
// that file open (see above). Under inProcess.mu: no FS starts using the
// file between the check and the close.
func closeFile(f *os.File) error {
	fi, err := f.Stat()
	inProcess.mu.Lock()
	defer inProcess.mu.Unlock()
	if err == nil {
		if d := findFile(fi); d != nil {
			d.kept = append(d.kept, f)
			return nil
		}
	}
	return f.Close()
}
