//go:build !linux

package hostfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/agenttools/agenttools/core/vfs"
)

// readBatch is how many names a listing reads from the host at a time.
const readBatch = 1024

// eachName calls fn with the name and kind of each entry of the
// directory open as file, read in batches through the os package
// (which, for a directory opened through an os.Root, stats each entry
// to tell its kind); without kinds, the names alone are read and every
// kind is given as TypeFile. An entry that vanishes before its stat is
// left out.
func eachName(ctx context.Context, file *os.File, kinds bool, fn func(name string, typ vfs.FileType)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if kinds {
			var batch []fs.DirEntry
			batch, err = file.ReadDir(readBatch)
			for _, e := range batch {
				fn(e.Name(), kindOf(e.Type()))
			}
		} else {
			var batch []string
			batch, err = file.Readdirnames(readBatch)
			for _, name := range batch {
				fn(name, vfs.TypeFile)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// kindOf is the kind of a node of type bits t.
func kindOf(t fs.FileMode) vfs.FileType {
	switch {
	case t&fs.ModeSymlink != 0:
		return vfs.TypeSymlink
	case t.IsDir():
		return vfs.TypeDir
	case t.IsRegular():
		return vfs.TypeFile
	}
	return vfs.TypeOther
}
