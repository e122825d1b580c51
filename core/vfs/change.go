// Changes to the tree other than a file's content: Mkdir, Remove,
// Symlink, Create, Chmod.

package vfs

import (
	"context"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// MkdirOptions configure Mkdir.
type MkdirOptions struct {
	// Recursive creates missing parents and accepts an existing directory.
	Recursive bool
	// Mode sets the new directory's permission bits; nil means 0o755.
	// Parents made by Recursive are always 0o755.
	Mode *uint32
}

// Mkdir creates a directory. Errors as the reference's mkdir: EEXIST
// "path exists" (also for "/", and for an existing directory unless
// Recursive), ENOENT "parent directory missing", ENOTDIR "parent path
// segment is not a directory", ELOOP, EROFS. Symbolic links on the way are
// followed, the last one too when Recursive.
func (w *Workspace) Mkdir(ctx context.Context, path string, opts MkdirOptions) error {
	canon, parts, err := Canonical(path)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	}
	if err := w.checkWritable(canon, false); err != nil {
		return err
	}
	dir, create, err := w.planDir(ctx, parts[:len(parts)-1], opts.Recursive, canon)
	if err != nil {
		return err
	}
	leaf := parts[len(parts)-1]
	if len(create) == 0 {
		p := Join(dir, leaf)
		info, err := w.lstatReal(ctx, p)
		switch {
		case err == nil && info.Type == TypeDir && opts.Recursive:
			return nil
		case err == nil && info.Type == TypeSymlink && opts.Recursive:
			if n, ok, err := w.walk(ctx, strings.Split(strings.TrimPrefix(p, "/"), "/"), true); err == nil && ok && n.info.Type == TypeDir {
				return nil
			}
			return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
		case err == nil:
			return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
		case !isNotExist(err):
			return hostError(toolspec.MsgOpStat, p, err)
		}
	}
	mode := uint32(0o755)
	if opts.Mode != nil {
		mode = *opts.Mode & 0o7777
	}
	undo, err := w.createDirs(ctx, dir, create, 0o755)
	if err != nil {
		return err
	}
	p := Join(dir, leaf)
	if len(create) > 0 {
		p = Join(Join(dir, strings.Join(create, "/")), leaf)
	}
	if err := w.checkWritable(p, false); err != nil {
		undo()
		return err
	}
	m, name := w.locate(p)
	if err := m.store.Mkdir(ctx, name, mode); err != nil {
		// Another process may have made it meanwhile: a recursive Mkdir
		// is content with a directory there.
		if info, statErr := w.lstatReal(ctx, p); opts.Recursive && errno.CodeOf(err) == errno.EEXIST && statErr == nil && info.Type == TypeDir {
			return nil
		}
		undo()
		return hostError(toolspec.MsgOpMkdir, p, err)
	}
	return nil
}

// RemoveOptions configure Remove.
type RemoveOptions struct {
	// Recursive removes a directory with everything below it.
	Recursive bool
	// Force makes a missing path a success.
	Force bool
}

// Remove removes the file, symbolic link (not its target) or directory at
// path; links in the parent path are followed. Errors as the reference's
// rm: EPERM "cannot remove the root directory", ENOENT "no such path"
// (unless Force), ENOTEMPTY "directory not empty" (unless Recursive),
// EROFS; and ours: EBUSY when a mount point would be removed.
func (w *Workspace) Remove(ctx context.Context, path string, opts RemoveOptions) error {
	canon, parts, err := Canonical(path)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errno.New(errno.EPERM, toolspec.MsgRemoveRoot(canon), canon)
	}
	if err := w.checkWritable(canon, true); err != nil {
		return err
	}
	n, ok, err := w.walk(ctx, parts, false)
	if err != nil {
		return err
	}
	if !ok {
		if opts.Force {
			return nil
		}
		return errno.New(errno.ENOENT, toolspec.MsgNoSuchPath(canon), canon)
	}
	isDir := n.info.Type == TypeDir
	if isDir && !opts.Recursive {
		entries, err := w.ReadDirResolved(ctx, n.path, 0, 1)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return errno.New(errno.ENOTEMPTY, toolspec.MsgNotEmpty(canon), canon)
		}
	}
	if err := w.checkWritable(n.path, true); err != nil {
		return err
	}
	if root := w.mountWithin(n.path); root != "" {
		return errno.New(errno.EBUSY, toolspec.MsgMountPoint(root), root)
	}
	m, name := w.locate(n.path)
	if isDir && opts.Recursive {
		err = m.store.RemoveAll(ctx, name)
	} else {
		err = m.store.Remove(ctx, name)
	}
	if err != nil {
		return hostError(toolspec.MsgOpRemove, n.path, err)
	}
	return nil
}

// Symlink creates a symbolic link at path holding target verbatim (it may
// dangle). Links in the parent path are followed; the parent must exist.
// Errors: EEXIST "path exists", ENOENT "parent directory missing",
// ENOTDIR, EROFS.
func (w *Workspace) Symlink(ctx context.Context, target, path string) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.lstatReal(ctx, p); err == nil {
		return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	} else if !isNotExist(err) {
		return hostError(toolspec.MsgOpStat, p, err)
	}
	if err := w.checkWritable(p, false); err != nil {
		return err
	}
	m, name := w.locate(p)
	if err := m.store.Symlink(ctx, target, name); err != nil {
		return hostError(toolspec.MsgOpSymlink, p, err)
	}
	return nil
}

// newEntry resolves where a new entry at path goes: its canonical
// spelling and the link-free path in the existing parent directory
// (the last element is not followed). "/" exists already (EEXIST).
func (w *Workspace) newEntry(ctx context.Context, path string) (canon, real string, err error) {
	canon, parts, err := Canonical(path)
	if err != nil {
		return "", "", err
	}
	if len(parts) == 0 {
		return "", "", errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	}
	if err := w.checkWritable(canon, false); err != nil {
		return "", "", err
	}
	dir, _, err := w.planDir(ctx, parts[:len(parts)-1], false, canon)
	if err != nil {
		return "", "", err
	}
	return canon, Join(dir, parts[len(parts)-1]), nil
}

// Create creates an empty file at path (0644, whatever the umask), only
// if nothing is there: a link at path is not followed. Of concurrent
// creates of one path, exactly one succeeds (across processes, for a
// store they share), so a caller can claim a name before it writes.
//
// Errors: EEXIST "path exists" when something is at path; ENOENT when the
// parent is missing; ENOTDIR, ELOOP, EROFS as for WriteFile.
func (w *Workspace) Create(ctx context.Context, path string) error {
	canon, p, err := w.newEntry(ctx, path)
	if err != nil {
		return err
	}
	if err := w.checkWritable(p, false); err != nil {
		return err
	}
	m, name := w.locate(p)
	if name == "" {
		// A mount point: the mounted store's root directory is there.
		return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
	}
	if err := m.store.Create(ctx, name, 0o644); err != nil {
		if errno.CodeOf(err) == errno.EEXIST {
			return errno.New(errno.EEXIST, toolspec.MsgPathExists(canon), canon)
		}
		return hostError(toolspec.MsgOpCreate, p, err)
	}
	return nil
}

// Chmod sets the permission bits (mode & 0o7777) of the file or directory
// at path, following links. Errors: ENOENT "no such path", EROFS.
func (w *Workspace) Chmod(ctx context.Context, path string, mode uint32) error {
	loc, err := w.Resolve(ctx, path)
	if err != nil {
		return err
	}
	if err := w.checkWritable(loc.Real, false); err != nil {
		return err
	}
	m, name := w.locate(loc.Real)
	if err := m.store.Chmod(ctx, name, mode&0o7777); err != nil {
		return hostError(toolspec.MsgOpChmod, loc.Real, err)
	}
	return nil
}
