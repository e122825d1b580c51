// Changes that must not lose a concurrent one: Update (read, transform,
// write, retried on conflict) and the revision-checked WriteFromIf and
// RemoveIf.

package vfs

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// TooLargeError is Update's error for a file longer than its limit.
type TooLargeError struct {
	Size int64 // the file's size in bytes, as far as it was read
}

func (e *TooLargeError) Error() string {
	return "file too large: " + strconv.FormatInt(e.Size, 10) + " bytes"
}

// fnError carries the error of Update's fn through a store unchanged.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }
func (e fnError) Unwrap() error { return e.err }

// UpdateAttempts is how many times Update reads, transforms and tries to
// write a file that another writer keeps changing before it gives up.
const UpdateAttempts = 8

// Update replaces the content of the file at path (links followed) with
// what fn makes of it, and never loses a change made meanwhile. On a
// store that can (a vfs.Updater: memfs, hostfs, sqlitefs), fn's result
// is written only if the file is still the version fn was given, even
// against other processes; when it is not, fn runs again on the new
// content, up to UpdateAttempts times, then Update fails with EAGAIN
// (toolspec.MsgUpdateConflict) and nothing is written. fn may therefore run
// more than once and must depend on its arguments only. On other stores
// the read and the write are two steps, which callers serialize with
// Lock. The file keeps its mode. A file longer than limit bytes is not
// handed to fn: Update returns a *TooLargeError. fn's error is returned
// as is, and then nothing is written.
//
// Errors: ENOENT "no such path"; EINVAL "not a regular file" when path is
// not a file; EROFS; EAGAIN; a store's failure as a host I/O error.
func (w *Workspace) Update(ctx context.Context, path string, limit int64, fn func(old []byte, info Info) ([]byte, error)) error {
	return w.UpdatePieces(ctx, path, limit, func(old []byte, info Info) (Pieces, error) {
		out, err := fn(old, info)
		return Pieces{out}, err
	})
}

// UpdatePieces is Update whose fn gives the new content as Pieces: a
// PieceUpdater (hostfs) writes them one after another, any other store
// gets them put together. fn's pieces may be parts of old.
func (w *Workspace) UpdatePieces(ctx context.Context, path string, limit int64, fn func(old []byte, info Info) (Pieces, error)) error {
	loc, err := w.Resolve(ctx, path)
	if err != nil {
		return err
	}
	if loc.Info.Type != TypeFile {
		return errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(loc.Path), loc.Path)
	}
	if loc.Info.Size > limit {
		return &TooLargeError{Size: loc.Info.Size}
	}
	if err := w.checkWritable(loc.Real, false); err != nil {
		return err
	}
	m, name := w.locate(loc.Real)
	wrapped := func(old []byte, info Info) (Pieces, error) {
		out, err := fn(old, info)
		if err != nil {
			return nil, fnError{err}
		}
		return out, nil
	}
	var try func() error
	switch u := m.store.(type) {
	case PieceUpdater:
		try = func() error { return u.UpdatePieces(ctx, name, limit, wrapped) }
	case Updater:
		joined := func(old []byte, info Info) ([]byte, error) {
			out, err := wrapped(old, info)
			return out.Join(), err
		}
		try = func() error { return u.Update(ctx, name, limit, joined) }
	default:
		return w.updateInSteps(ctx, m, name, loc, limit, fn)
	}
	for attempt := 1; ; attempt++ {
		err := try()
		var fe fnError
		var tooLarge *TooLargeError
		switch {
		case errors.As(err, &fe):
			return fe.err
		case errors.As(err, &tooLarge):
			return tooLarge
		case err == nil:
			return nil
		case errno.CodeOf(err) != errno.EAGAIN:
			return hostError(toolspec.MsgOpUpdate, loc.Real, err)
		case attempt == UpdateAttempts:
			return &errno.Error{Code: errno.EAGAIN, Message: toolspec.MsgUpdateConflict(UpdateAttempts, loc.Path), Path: loc.Path, Err: err}
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// backoff waits before attempt+1 of a change that lost a race: a random
// time up to 2^attempt ms (at most 256 ms), so that writers racing for
// one file spread out. It returns the context's error if it ends first.
func backoff(ctx context.Context, attempt int) error {
	return Wait(ctx, time.Duration(rand.Int64N(int64(time.Millisecond)<<min(attempt, 8)))+time.Millisecond)
}

// Wait waits for d, or until ctx ends: then it returns ctx's error. It is
// how the stores wait before trying again for a lock another process
// holds.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// updateInSteps is Update on a store that is no Updater: a read, then an
// atomic write, serialized by the caller's Lock.
func (w *Workspace) updateInSteps(ctx context.Context, m *mount, name string, loc Location, limit int64, fn func(old []byte, info Info) (Pieces, error)) error {
	r, err := m.store.Open(ctx, name, 0)
	if err != nil {
		return hostError(toolspec.MsgOpOpen, loc.Real, err)
	}
	old, err := io.ReadAll(io.LimitReader(r, limit+1))
	r.Close()
	if err != nil {
		return hostError(toolspec.MsgOpRead, loc.Real, err)
	}
	if int64(len(old)) > limit {
		return &TooLargeError{Size: int64(len(old))}
	}
	out, err := fn(old, loc.Info)
	if err != nil {
		return err
	}
	if err := m.store.WriteFile(ctx, name, out.Reader(), loc.Info.Mode); err != nil {
		return hostError(toolspec.MsgOpWrite, loc.Real, err)
	}
	return nil
}

// WriteFromIf creates or replaces the regular file at path with what r
// holds and permission bits mode, only while the node at path is still
// at revision rev (Info.Rev; 0 means nothing may be there): a copy of
// what was seen at rev never overwrites a newer change. A link in the
// last component is not followed; links on the way are. On a store that
// is a RevWriter (sqlitefs, memfs) the check and the write are one
// atomic step; on others they are two.
//
// Errors: EAGAIN when the node moved on (nothing is written); those of
// WriteFrom otherwise.
func (w *Workspace) WriteFromIf(ctx context.Context, path string, rev int64, r io.Reader, mode uint32) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	m, name := w.locate(p)
	if rw, ok := m.store.(RevWriter); ok {
		err = rw.WriteFileIf(ctx, name, rev, r, mode&0o7777)
	} else if err = w.checkRev(ctx, p, rev); err == nil {
		err = m.store.WriteFile(ctx, name, r, mode&0o7777)
	}
	return revError(toolspec.MsgOpWrite, canon, p, err)
}

// RemoveIf removes the file, symbolic link or empty directory at path (a
// link in the last component is not followed) only while it is still at
// revision rev, as WriteFromIf writes. Errors: EAGAIN when it moved on
// (nothing is removed); ENOENT, ENOTEMPTY, EROFS as for Remove.
func (w *Workspace) RemoveIf(ctx context.Context, path string, rev int64) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	if root := w.mountWithin(p); root != "" {
		return errno.New(errno.EBUSY, toolspec.MsgMountPoint(root), root)
	}
	m, name := w.locate(p)
	if rw, ok := m.store.(RevWriter); ok {
		err = rw.RemoveIf(ctx, name, rev)
	} else if err = w.checkRev(ctx, p, rev); err == nil {
		err = m.store.Remove(ctx, name)
	}
	return revError(toolspec.MsgOpRemove, canon, p, err)
}

// checkRev fails with EAGAIN unless the node at the link-free path p is
// at revision rev (0: nothing is there).
func (w *Workspace) checkRev(ctx context.Context, p string, rev int64) error {
	info, err := w.lstatReal(ctx, p)
	switch {
	case isNotExist(err) && rev == 0:
		return nil
	case err == nil && rev != 0 && info.Rev == rev:
		return nil
	case err != nil && !isNotExist(err):
		return err
	}
	return errno.EAGAIN
}

// revError words a failure of a conditional change.
func revError(op, canon, p string, err error) error {
	switch {
	case err == nil:
		return nil
	case errno.CodeOf(err) == errno.EAGAIN:
		return &errno.Error{Code: errno.EAGAIN, Message: toolspec.MsgUpdateConflict(1, canon), Path: canon, Err: err}
	}
	return hostError(op, p, err)
}
