// Writing a file's content: WriteFile and WriteFrom, planned in full
// (parents, link target, mode) before anything changes.

package vfs

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// WriteOptions configure WriteFile.
type WriteOptions struct {
	// Mode sets the file's permission bits. When nil, an existing file
	// keeps its bits and a new file gets 0o644, whatever the umask.
	Mode *uint32
	// CreateParents creates missing parent directories (0o755), as the
	// write tool does.
	CreateParents bool
}

// WriteFile creates or replaces the file at path with data. A symbolic
// link at path is followed, a dangling one creates its target. The
// replacement is atomic, and a write that fails changes nothing (no
// directory it would have created is left behind).
//
// Errors, worded as the reference words them: EISDIR for "/" or a
// directory; EEXIST when a parent is a file; ENOTDIR when a parent's
// parent is a file; ENOENT when a parent is missing and CreateParents is
// off, or a link on the way dangles; ELOOP; EROFS.
func (w *Workspace) WriteFile(ctx context.Context, path string, data []byte, opts WriteOptions) error {
	return w.WriteFrom(ctx, path, bytes.NewReader(data), opts)
}

// OwnedReader reads bytes its maker hands over with it: a store that
// keeps contents in memory may keep the slice as the file's content
// rather than copy it. Neither the maker nor the store changes the bytes
// afterwards. Any other store reads it as the bytes.Reader it is.
type OwnedReader struct {
	*bytes.Reader
	data []byte
}

// NewOwnedReader reads data, which the caller will not change again.
func NewOwnedReader(data []byte) *OwnedReader {
	return &OwnedReader{Reader: bytes.NewReader(data), data: data}
}

// Owned is the whole content and true while nothing has been read from
// r, or nil and false.
func (r *OwnedReader) Owned() ([]byte, bool) {
	if r.Len() != len(r.data) {
		return nil, false
	}
	return r.data, true
}

// ChunkReader is a reader whose maker hands its bytes over in chunks
// (exec's saved output, as the command prints it): a store that keeps
// contents in memory may keep the chunks' bytes, joined once at the end,
// rather than read them through buffers of its own. Nobody changes a
// chunk's bytes once NextChunk has returned it. Any other store reads it
// as the io.Reader it is; a store uses one of the two ways, not both.
type ChunkReader interface {
	io.Reader
	// NextChunk returns the next chunk (never empty); at the end, nil
	// and io.EOF; when the stream broke, nil and its error.
	NextChunk() ([]byte, error)
}

// WriteFrom is WriteFile with the content read from r, so a large file
// never has to be held in memory (by a store that does not keep it there).
// When r fails, nothing changes and its error is returned.
func (w *Workspace) WriteFrom(ctx context.Context, path string, r io.Reader, opts WriteOptions) error {
	plan, err := w.planWrite(ctx, path, opts)
	if err != nil {
		return err
	}
	undo, err := w.createDirs(ctx, plan.dir, plan.create, 0o755)
	if err != nil {
		return err
	}
	m, name := w.locate(plan.target)
	if err := m.store.WriteFile(ctx, name, r, plan.mode); err != nil {
		undo()
		return hostError(toolspec.MsgOpWrite, plan.target, err)
	}
	return nil
}

// CheckWrite returns the error WriteFile of path with opts would fail
// with before writing anything (the path, its parents, its target), or
// nil; it changes nothing.
func (w *Workspace) CheckWrite(ctx context.Context, path string, opts WriteOptions) error {
	_, err := w.planWrite(ctx, path, opts)
	return err
}

// writePlan is where a write lands: the directories to create (create,
// each in the one before, under dir), the link-free target and its mode.
type writePlan struct {
	dir    string
	create []string
	target string
	mode   uint32
}

func (w *Workspace) planWrite(ctx context.Context, path string, opts WriteOptions) (writePlan, error) {
	canon, parts, err := Canonical(path)
	if err != nil {
		return writePlan{}, err
	}
	if len(parts) == 0 {
		return writePlan{}, errno.New(errno.EISDIR, toolspec.MsgWriteRoot(canon), canon)
	}
	if NamesDirectory(path) {
		if opts.CreateParents {
			// As the reference, the parent made first is the path up to
			// its last "/", spelled as given: "f.txt/" asks for a
			// directory f.txt, which fails when f.txt is a file.
			if err := w.checkMkdirAll(ctx, path[:strings.LastIndexByte(path, '/')]); err != nil {
				return writePlan{}, err
			}
		}
		return writePlan{}, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(canon), canon)
	}
	if err := w.checkWritable(canon, false); err != nil {
		return writePlan{}, err
	}
	parent := "/" + strings.Join(parts[:len(parts)-1], "/")
	errPath := parent
	if !opts.CreateParents {
		errPath = canon
	}
	dir, create, err := w.planDir(ctx, parts[:len(parts)-1], opts.CreateParents, errPath)
	if err != nil {
		return writePlan{}, err
	}
	plan := writePlan{dir: dir, create: create, mode: 0o644}
	if len(create) > 0 {
		plan.target = Join(Join(dir, strings.Join(create, "/")), parts[len(parts)-1])
	} else {
		t, existing, err := w.writeTarget(ctx, dir, parts[len(parts)-1], canon)
		if err != nil {
			return writePlan{}, err
		}
		plan.target = t
		if existing != nil {
			plan.mode = existing.Mode
		}
	}
	if opts.Mode != nil {
		plan.mode = *opts.Mode & 0o7777
	}
	if err := w.checkWritable(plan.target, false); err != nil {
		return writePlan{}, err
	}
	return plan, nil
}

// checkMkdirAll returns the error a recursive Mkdir of dir would fail
// with, without creating anything.
func (w *Workspace) checkMkdirAll(ctx context.Context, dir string) error {
	canon, parts, err := Canonical(cmp.Or(dir, "/"))
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return nil
	}
	_, _, err = w.planDir(ctx, parts, true, canon)
	return err
}

// NamesDirectory reports whether a path's spelling names a directory:
// it ends in "/", "/." or "/..".
func NamesDirectory(p string) bool {
	last := p[strings.LastIndexByte(p, '/')+1:]
	return last == "" || last == "." || last == ".."
}

// writeTarget finds where a write of name in the existing directory dir
// lands: following a symbolic link there (a dangling one names the file
// to create). It returns the link-free path and the existing file, if any.
func (w *Workspace) writeTarget(ctx context.Context, dir, name, canon string) (string, *Info, error) {
	targetCanon := canon
	for follows := 0; ; {
		p := Join(dir, name)
		info, err := w.lstatReal(ctx, p)
		switch {
		case isNotExist(err):
			return p, nil, nil
		case err != nil:
			return "", nil, hostError(toolspec.MsgOpStat, p, err)
		case info.Type == TypeDir:
			return "", nil, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(targetCanon), targetCanon)
		case info.Type == TypeFile:
			return p, &info, nil
		case info.Type == TypeOther:
			return "", nil, errno.New(errno.EINVAL, toolspec.MsgNotRegularFile(targetCanon), targetCanon)
		}
		follows++
		if follows > MaxSymlinkFollows {
			return "", nil, errno.New(errno.ELOOP, toolspec.MsgTooManySymlinksAt(canon), canon)
		}
		next := w.linkTarget(info.Target)
		if !strings.HasPrefix(next, "/") {
			next = Join(dir, next)
		}
		targetCanon = Clean(next)
		if err := w.checkWritable(targetCanon, false); err != nil {
			return "", nil, err
		}
		if NamesDirectory(next) {
			return "", nil, errno.New(errno.EISDIR, toolspec.MsgIsDirectory(targetCanon), targetCanon)
		}
		_, tparts, _ := Canonical(targetCanon)
		d, create, err := w.planDir(ctx, tparts[:len(tparts)-1], false, targetCanon)
		if err != nil {
			return "", nil, err
		}
		_ = create // planDir without creation never asks for directories
		dir, name = d, tparts[len(tparts)-1]
	}
}

// createDirs makes the directories names (each inside the one before)
// under dir, and returns a function that removes what it made.
func (w *Workspace) createDirs(ctx context.Context, dir string, names []string, mode uint32) (undo func(), err error) {
	var made []string
	undo = func() {
		for i := len(made) - 1; i >= 0; i-- {
			m, name := w.locate(made[i])
			_ = m.store.Remove(context.WithoutCancel(ctx), name)
		}
	}
	p := dir
	for _, n := range names {
		p = Join(p, n)
		if err := w.checkWritable(p, false); err != nil {
			undo()
			return nil, err
		}
		m, name := w.locate(p)
		if err := m.store.Mkdir(ctx, name, mode); err != nil {
			// Another change may have made it meanwhile; that is as good.
			if info, statErr := w.lstatReal(ctx, p); errno.CodeOf(err) == errno.EEXIST && statErr == nil && info.Type == TypeDir {
				continue
			}
			undo()
			return nil, hostError(toolspec.MsgOpMkdir, p, err)
		}
		made = append(made, p)
	}
	return undo, nil
}
