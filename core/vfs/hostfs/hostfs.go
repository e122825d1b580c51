// Package hostfs is a vfs.Store over a directory of the host, confined
// with os.Root: no name it is given can reach outside the directory,
// through ".." or through a symbolic link.
//
// The workspace resolves symbolic links itself, in workspace path space,
// and hands hostfs link-free names only, so hostfs never asks the
// operating system to follow a link. Writes go through a temporary file
// in the same directory and a rename, so a reader sees the old content or
// the new one, never a mix; the file's permission bits are set explicitly
// (new files 0644, directories 0755, whatever the umask).
package hostfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
)

// FS is a host directory seen as a store.
type FS struct {
	root *os.Root
	dir  string
	dirs []string
}

var _ vfs.HostDirStore = (*FS)(nil)

// Open opens the host directory dir. Close releases it.
func Open(dir string) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	f := &FS{root: root, dir: abs, dirs: []string{filepath.ToSlash(abs)}}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		f.dirs = append(f.dirs, filepath.ToSlash(real))
	}
	return f, nil
}

// HostDirs are the directory's absolute host paths: as opened, and with
// links resolved. A workspace reads an absolute link target inside them as
// a path inside the mount.
func (f *FS) HostDirs() []string { return f.dirs }

// A write's temporary file is named tempPrefix, random hex, tempSuffix.
// Listings leave such files out: they are another write half done.
const (
	tempPrefix = ".agenttools-"
	tempSuffix = ".tmp"
)

func isTemp(name string) bool {
	return strings.HasPrefix(name, tempPrefix) && strings.HasSuffix(name, tempSuffix)
}

// Dir is the host directory the store was opened on.
func (f *FS) Dir() string { return f.dir }

// Close releases the directory.
func (f *FS) Close() error { return f.root.Close() }

func rel(name string) string {
	if name == "" {
		return "."
	}
	return name
}

// codes maps host errors to workspace codes, most specific first.
var codes = []struct {
	err  error
	code errno.Code
}{
	{syscall.ENOENT, errno.ENOENT},
	{syscall.ENOTDIR, errno.ENOTDIR},
	{syscall.EISDIR, errno.EISDIR},
	{syscall.EEXIST, errno.EEXIST},
	{syscall.ENOTEMPTY, errno.ENOTEMPTY},
	{syscall.EACCES, errno.EACCES},
	{syscall.EPERM, errno.EPERM},
	{syscall.ENOSPC, errno.ENOSPC},
	{syscall.EROFS, errno.EROFS},
	{syscall.ELOOP, errno.ELOOP},
	{syscall.EFBIG, errno.EFBIG},
	{syscall.EBUSY, errno.EBUSY},
	{syscall.EINVAL, errno.EINVAL},
	{fs.ErrNotExist, errno.ENOENT},
	{fs.ErrExist, errno.EEXIST},
	{fs.ErrPermission, errno.EACCES},
}

// hostErr turns a host error into an *errno.Error whose message is the
// system's reason ("permission denied"), without the host path.
func hostErr(name string, err error) error {
	if err == nil {
		return nil
	}
	code := errno.EIO
	for _, c := range codes {
		if errors.Is(err, c.err) {
			code = c.code
			break
		}
	}
	reason := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		reason = le.Err.Error()
	}
	return &errno.Error{Code: code, Message: reason, Path: name, Err: err}
}

func (f *FS) info(name string, fi fs.FileInfo) (vfs.Info, error) {
	i := vfs.Info{
		Name:  fi.Name(),
		Mode:  vfs.UnixMode(fi.Mode()),
		Size:  fi.Size(),
		MTime: fi.ModTime().UnixMilli(),
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		i.Type = vfs.TypeSymlink
		target, err := f.root.Readlink(rel(name))
		if err != nil {
			return vfs.Info{}, hostErr(name, err)
		}
		i.Target = target
	case fi.IsDir():
		i.Type = vfs.TypeDir
	case fi.Mode().IsRegular():
		i.Type = vfs.TypeFile
	default:
		// Devices, sockets and pipes: listed, never opened.
		i.Type = vfs.TypeOther
		i.Size = 0
	}
	return i, nil
}

// refuseLink fails with ELOOP when name is a symbolic link: os.Root
// follows a link in the last component (inside the root) even when asked
// not to with O_NOFOLLOW, and a store never follows one.
func (f *FS) refuseLink(name string) error {
	if fi, err := f.root.Lstat(rel(name)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &errno.Error{Code: errno.ELOOP, Message: "is a symbolic link", Path: name}
	}
	return nil
}

// Lstat describes the node at name without following a link.
func (f *FS) Lstat(_ context.Context, name string) (vfs.Info, error) {
	fi, err := f.root.Lstat(rel(name))
	if err != nil {
		return vfs.Info{}, hostErr(name, err)
	}
	return f.info(name, fi)
}

// ReadDir lists a directory in raw byte order of the names.
func (f *FS) ReadDir(_ context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	if err := f.refuseLink(name); err != nil {
		return nil, err
	}
	d, err := f.root.Open(rel(name))
	if err != nil {
		return nil, hostErr(name, err)
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, hostErr(name, err)
	}
	entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return isTemp(e.Name()) })
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	offset = min(max(offset, 0), len(entries))
	entries = entries[offset:]
	if limit >= 0 && limit < len(entries) {
		entries = entries[:limit]
	}
	out := make([]vfs.Info, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, hostErr(name, err)
		}
		i, err := f.info(path.Join(name, e.Name()), fi)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, nil
}

// Open reads a regular file from offset.
func (f *FS) Open(_ context.Context, name string, offset int64) (io.ReadCloser, error) {
	if err := f.refuseLink(name); err != nil {
		return nil, err
	}
	file, err := f.root.OpenFile(rel(name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, hostErr(name, err)
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, hostErr(name, err)
	}
	if !fi.Mode().IsRegular() {
		file.Close()
		code := errno.EINVAL
		if fi.IsDir() {
			code = errno.EISDIR
		}
		return nil, &errno.Error{Code: code, Message: "not a regular file", Path: name}
	}
	if offset > 0 {
		if _, err := file.Seek(offset, io.SeekStart); err != nil {
			file.Close()
			// Beyond what the host's files can hold: there is nothing
			// there to read, as at any other offset past the end.
			if errors.Is(err, syscall.EINVAL) && offset > fi.Size() {
				return io.NopCloser(strings.NewReader("")), nil
			}
			return nil, hostErr(name, err)
		}
	}
	return file, nil
}

// WriteFile replaces name atomically: the data goes to a temporary file
// in the same directory, which is synced, given its mode (and, when the
// process may, the old file's owner) and renamed over name. Like every
// atomic replace, it gives the name a new inode: a hard link to the old
// file keeps the old content.
func (f *FS) WriteFile(_ context.Context, name string, r io.Reader, mode uint32) error {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(path.Dir(name), tempPrefix+hex.EncodeToString(rnd[:])+tempSuffix)
	file, err := f.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return hostErr(name, err)
	}
	fail := func(err error) error {
		file.Close()
		_ = f.root.Remove(tmp)
		return hostErr(name, err)
	}
	if _, err := io.Copy(file, r); err != nil {
		return fail(err)
	}
	// The owner first: changing it clears the setuid and setgid bits,
	// which the mode then sets.
	if old, err := f.root.Lstat(name); err == nil {
		keepOwner(file, old)
	}
	if err := file.Chmod(vfs.GoMode(mode)); err != nil {
		return fail(err)
	}
	if err := file.Sync(); err != nil {
		return fail(err)
	}
	if err := file.Close(); err != nil {
		_ = f.root.Remove(tmp)
		return hostErr(name, err)
	}
	if err := f.root.Rename(tmp, name); err != nil {
		_ = f.root.Remove(tmp)
		return hostErr(name, err)
	}
	return nil
}

// Create creates an empty file with exactly mode, only if nothing is at
// name (O_EXCL: one of concurrent creates wins, across processes).
func (f *FS) Create(_ context.Context, name string, mode uint32) error {
	file, err := f.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return hostErr(name, err)
	}
	if err := file.Chmod(vfs.GoMode(mode)); err != nil {
		file.Close()
		_ = f.root.Remove(name)
		return hostErr(name, err)
	}
	return hostErr(name, file.Close())
}

// Mkdir creates a directory with exactly mode.
func (f *FS) Mkdir(_ context.Context, name string, mode uint32) error {
	if err := f.root.Mkdir(name, 0o700); err != nil {
		return hostErr(name, err)
	}
	if err := f.root.Chmod(name, vfs.GoMode(mode)); err != nil {
		_ = f.root.Remove(name)
		return hostErr(name, err)
	}
	return nil
}

// Symlink creates a symbolic link holding target.
func (f *FS) Symlink(_ context.Context, target, name string) error {
	return hostErr(name, f.root.Symlink(target, name))
}

// Remove removes a file, a link or an empty directory.
func (f *FS) Remove(_ context.Context, name string) error {
	if name == "" {
		return &errno.Error{Code: errno.EBUSY, Message: "cannot remove the mounted directory", Path: name}
	}
	return hostErr(name, f.root.Remove(name))
}

// RemoveAll removes name and everything below it.
func (f *FS) RemoveAll(_ context.Context, name string) error {
	if name == "" {
		return &errno.Error{Code: errno.EBUSY, Message: "cannot remove the mounted directory", Path: name}
	}
	return hostErr(name, f.root.RemoveAll(name))
}

// Chmod sets permission bits.
func (f *FS) Chmod(_ context.Context, name string, mode uint32) error {
	if err := f.refuseLink(name); err != nil {
		return err
	}
	return hostErr(name, f.root.Chmod(rel(name), vfs.GoMode(mode)))
}
