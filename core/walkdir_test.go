package core_test

import (
	"context"
	"io"

	"github.com/agenttools/agenttools/core/vfs"
)

// The countingStore is a vfs.DirOpener, as memfs is: the steps of a walk
// through its directory handles are counted too.

func (s *countingStore) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	s.count(name, 0)
	h, err := s.FS.OpenDir(ctx, name)
	if err != nil {
		return nil, err
	}
	s.opened(1)
	return countingDir{h, s}, nil
}

type countingDir struct {
	vfs.DirHandle
	s *countingStore
}

func (d countingDir) Entries(ctx context.Context, after string, n int) ([]vfs.DirEntry, error) {
	out, err := d.DirHandle.Entries(ctx, after, n)
	d.s.count("", len(out))
	return out, err
}

func (d countingDir) OpenDir(ctx context.Context, name string) (vfs.DirHandle, error) {
	d.s.count(name, 0)
	h, err := d.DirHandle.OpenDir(ctx, name)
	if err != nil {
		return nil, err
	}
	d.s.opened(1)
	return countingDir{h, d.s}, nil
}

func (d countingDir) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	d.s.count(name, 0)
	return d.DirHandle.Open(ctx, name, offset)
}

func (d countingDir) Close() error {
	d.s.opened(-1)
	return d.DirHandle.Close()
}
