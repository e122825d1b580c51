// Package hostfs is a vfs.Store over a directory of the host, confined
// with os.Root: no name it is given can reach outside the directory,
// through ".." or through a symbolic link.
//
// The workspace resolves symbolic links itself, in workspace path space,
// and hands hostfs link-free names only, so hostfs never asks the
// operating system to follow a link.
//
// Writes go through a temporary file in the same directory and a rename,
// so a reader sees the old content or the new one, never a mix; the
// file's permission bits are set explicitly (new files 0644, directories
// 0755, whatever the umask). Replacing a file honours the file's own
// permissions and owner, as a shell's "echo x > f" does: the file is
// first opened for writing, so a file the process may not write is
// refused with EACCES whatever the directory allows. The replacement is
// given the file's owner, mode and extended attributes (a POSIX ACL
// among them); when it cannot be (a file of another user's that the
// process may write), or the directory does not let the process create
// the temporary file, the file is rewritten in place instead, keeping
// all of them but no longer atomic for readers (and a writer killed
// midway leaves it short, its new content in the temporary file, which
// is then unmarked and kept). A writer waits at most 10 seconds for a
// file's lock (EBUSY after).
//
// Writers in different processes do not lose each other's changes: a
// writer holds an exclusive flock(2) lock on the file it replaces (and
// checks the name still refers to it), and Update reads, transforms and
// replaces under that lock, so two agenttools processes editing one file
// take turns. Against other programs (an editor, sed) it is best effort:
// right before replacing, Update checks that the file is still the one
// it read (inode, size, modification and change times, content) and
// otherwise fails with EAGAIN; a program that writes between that check
// and the rename is not seen.
//
// A temporary file is named .agenttools-<token>.tmp, marked with the
// extended attribute user.agenttools.tmp (holding the token) and locked
// by its writer while it lives. A listing hides a marked temporary file,
// and removes it when its writer is gone (killed): a file is hidden or
// removed only when it is provably a temporary file of this package,
// whatever its name, and a live writer in another process is never
// disturbed. Where the filesystem has no user extended attributes,
// temporary files are unmarked: a killed writer's file stays, visible.
package hostfs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/hostio"
	"github.com/agenttools/agenttools/toolspec"
)

// FS is a host directory seen as a store.
type FS struct {
	root *os.Root
	fd   rootFD // the directory again, for walks (see sysDir)
	dir  string
	dirs []string
	// owner is who gets what the store creates (WithOwner); nil: this
	// process's user, as the system gives it.
	owner *creator
}

// creator is the user and group that new files, directories and links
// get.
type creator struct{ uid, gid int }

// Option configures Open.
type Option func(*FS)

// WithOwner gives every file, directory and symbolic link the store
// creates to user uid and group gid (a file a write replaces keeps the
// owner it had, with or without this option). Where this process may
// not give them (not root, on Unix; Windows), creating fails with the
// system's error, EPERM. A program running as root uses it for a
// directory another user's processes also change: the exec sandbox's
// unprivileged user (execbackend.Sandbox), which could otherwise not
// change the files the tools made.
func WithOwner(uid, gid int) Option {
	return func(f *FS) { f.owner = &creator{uid: uid, gid: gid} }
}

var (
	_ vfs.HostDirStore = (*FS)(nil)
	_ vfs.Updater      = (*FS)(nil)
	_ vfs.PieceUpdater = (*FS)(nil)
)

// Open opens the host directory dir. Close releases it.
func Open(dir string, opts ...Option) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	fd, err := openRootFD(abs)
	if err != nil {
		root.Close()
		return nil, err
	}
	f := &FS{root: root, fd: fd, dir: abs, dirs: []string{filepath.ToSlash(abs)}}
	for _, o := range opts {
		o(f)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		f.dirs = append(f.dirs, filepath.ToSlash(real))
	}
	return f, nil
}

// HostDirs are the directory's absolute host paths: as opened, and with
// links resolved. A workspace reads an absolute link target inside them as
// a path inside the mount.
func (f *FS) HostDirs() []string { return f.dirs }

// A write's temporary file is named tempPrefix, a random token,
// tempSuffix.
const (
	tempPrefix = ".agenttools-"
	tempSuffix = ".tmp"
)

// tempToken returns the token of a temporary file's name, or "" when the
// name is not one.
func tempToken(name string) string {
	if t, ok := strings.CutPrefix(name, tempPrefix); ok {
		if t, ok := strings.CutSuffix(t, tempSuffix); ok {
			return t
		}
	}
	return ""
}

// Dir is the host directory the store was opened on.
func (f *FS) Dir() string { return f.dir }

// Close releases the directory.
func (f *FS) Close() error {
	err := f.fd.close()
	return errors.Join(f.root.Close(), err)
}

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
	var ee *errno.Error
	if errors.As(err, &ee) {
		return ee
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

// info describes the node name, which fi describes and which is rname
// in the directory r (its link target is read there).
func info(r *os.Root, rname, name string, fi fs.FileInfo) (vfs.Info, error) {
	i := vfs.Info{
		Name:  fi.Name(),
		Mode:  vfs.UnixMode(fi.Mode()),
		Size:  fi.Size(),
		MTime: fi.ModTime().UnixMilli(),
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		i.Type = vfs.TypeSymlink
		target, err := r.Readlink(rname)
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

// beforeCopy is called as copyInto starts, with the temporary file's
// name (tests).
var beforeCopy = func(string) {}

// errLocked is the error of a change that waited too long for a file's
// lock (see lockFile).
var errLocked = &errno.Error{Code: errno.EBUSY, Message: toolspec.MsgFileLocked}

// notRegular is the error for opening a node that is no regular file:
// EISDIR for a directory, EINVAL otherwise.
func notRegular(name string, fi fs.FileInfo) error {
	code := errno.EINVAL
	if fi.IsDir() {
		code = errno.EISDIR
	}
	return &errno.Error{Code: code, Message: toolspec.MsgReasonNotRegularFile, Path: name}
}

// refuseLink fails with ELOOP when name is a symbolic link: os.Root
// follows a link in the last component (inside the root) even when asked
// not to with O_NOFOLLOW, and a store never follows one.
func (f *FS) refuseLink(name string) error {
	return refuseLink(f.root, rel(name), name)
}

// refuseLink is FS.refuseLink for the node rname in the directory r.
func refuseLink(r *os.Root, rname, name string) error {
	if fi, err := r.Lstat(rname); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &errno.Error{Code: errno.ELOOP, Message: toolspec.MsgReasonSymlink, Path: name}
	}
	return nil
}

// Lstat describes the node at name without following a link.
func (f *FS) Lstat(_ context.Context, name string) (vfs.Info, error) {
	fi, err := f.root.Lstat(rel(name))
	if err != nil {
		return vfs.Info{}, hostErr(name, err)
	}
	return info(f.root, rel(name), name, fi)
}

// ReadDir lists a directory in raw byte order of the names. It reads
// the directory's names in batches, keeps the offset+limit first (see
// vfs.Smallest) and stats only the page's entries, relative to the
// directory: memory and stat calls grow with the page, not with the
// directory.
func (f *FS) ReadDir(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	d, err := f.openDir(name)
	if errno.CodeOf(err) == errno.ENOTDIR {
		// A link is refused as such (ELOOP), as every call refuses it.
		if err := f.refuseLink(name); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, _, err := d.scan(ctx, "", vfs.PageEnd(offset, limit), false)
	if err != nil {
		return nil, err
	}
	entries = entries[min(max(offset, 0), len(entries)):]
	out := make([]vfs.Info, 0, len(entries))
	for _, e := range entries {
		i, err := d.sys.lstat(e.Name, path.Join(name, e.Name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
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
	if r, ok, err := f.openTop(name, offset); ok {
		return r, err
	}
	return openFile(f.root, rel(name), name, offset)
}

// openFile opens the regular file rname in the directory r (name in the
// store) to read from offset.
func openFile(r *os.Root, rname, name string, offset int64) (io.ReadCloser, error) {
	if err := refuseLink(r, rname, name); err != nil {
		return nil, err
	}
	file, err := r.OpenFile(rname, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
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
		return nil, notRegular(name, fi)
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

// WriteFile replaces name atomically with what r holds and gives it
// mode: the data goes to a temporary file in the same directory, which
// is synced, given the old file's owner and mode, and renamed over name.
// An existing file is first opened for writing and locked (see the
// package doc): a file the process may not write is refused (EACCES) and
// left as it was, and a file whose owner the temporary file cannot be
// given is rewritten in place instead. Like every atomic replace, it
// gives the name a new inode: a hard link to the old file keeps the old
// content.
func (f *FS) WriteFile(ctx context.Context, name string, r io.Reader, mode uint32) error {
	old, _, err := f.lockTarget(ctx, name, os.O_WRONLY)
	if err != nil {
		return err
	}
	if old != nil {
		defer old.Close()
	}
	tmp, err := f.stage(name, r, old != nil)
	if err != nil {
		return err
	}
	defer tmp.discard()
	return f.replace(name, tmp, old, mode, nil)
}

// Update replaces the content of the regular file at name with what fn
// makes of it, holding the file's lock from the read to the replace, so
// writers of this package in any process take turns on it. Right before
// replacing it checks that the file is still the one it read (inode,
// size, times, content), which catches most changes by other programs:
// then nothing is written and Update fails with EAGAIN. The file keeps
// its mode and owner. A file longer than limit bytes is not read
// (*vfs.TooLargeError). Errors as for WriteFile; EACCES when the file is
// not readable and writable.
func (f *FS) Update(ctx context.Context, name string, limit int64, fn func(old []byte, info vfs.Info) ([]byte, error)) error {
	return f.UpdatePieces(ctx, name, limit, func(old []byte, info vfs.Info) (vfs.Pieces, error) {
		out, err := fn(old, info)
		return vfs.Pieces{out}, err
	})
}

// UpdatePieces is Update whose fn gives the new content as pieces, which
// go to the temporary file one after another: the file's new content is
// never held whole (an edit's pieces are mostly parts of old).
func (f *FS) UpdatePieces(ctx context.Context, name string, limit int64, fn func(old []byte, info vfs.Info) (vfs.Pieces, error)) error {
	if err := f.refuseLink(name); err != nil {
		return err
	}
	file, fi, err := f.lockTarget(ctx, name, os.O_RDWR)
	if err != nil {
		return err
	}
	if file == nil {
		if fi, err := f.root.Lstat(name); err == nil {
			return notRegular(name, fi)
		}
		return &errno.Error{Code: errno.ENOENT, Message: toolspec.MsgReasonNoEntry, Path: name}
	}
	defer file.Close()
	if fi.Size() > limit {
		return &vfs.TooLargeError{Size: fi.Size()}
	}
	// Read into a buffer of the size just seen (plus room to see that the
	// file grew), not one grown by doubling: a 50 MB file would be
	// copied a dozen times.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(io.NewSectionReader(file, 0, limit+1), limit+1)); err != nil {
		return hostErr(name, err)
	}
	old := buf.Bytes()
	if int64(len(old)) > limit {
		return &vfs.TooLargeError{Size: int64(len(old))}
	}
	seen := version{fi: fi, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: hostio.ChangeTime(fi), content: old}
	i, err := info(f.root, name, name, fi)
	if err != nil {
		return err
	}
	out, err := fn(old, i)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tmp, err := f.stage(name, out.Reader(), true)
	if err != nil {
		return err
	}
	defer tmp.discard()
	return f.replace(name, tmp, file, vfs.UnixMode(fi.Mode()), &seen)
}

// lockTarget opens the regular file at name with flag (os.O_WRONLY or
// os.O_RDWR: opening for writing is where the host applies the file's
// own permissions), takes its lock, and checks that name still refers to
// it (a writer that replaced it meanwhile gave the name a new file: that
// one is opened in turn). It returns a nil file when no regular file is
// at name: nothing, or a node a write replaces (a symbolic link, never
// followed) or fails on (a directory). A program
// that is running cannot be opened for writing (ETXTBSY); it is locked
// through a read-only descriptor and replaced by rename.
func (f *FS) lockTarget(ctx context.Context, name string, flag int) (*os.File, fs.FileInfo, error) {
	for {
		lfi, err := f.root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) || err == nil && !lfi.Mode().IsRegular() {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, hostErr(name, err)
		}
		file, err := f.root.OpenFile(name, flag|noFollow|syscall.O_NONBLOCK, 0)
		if textBusy(err) {
			file, err = f.root.OpenFile(name, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the Lstat
		}
		if err != nil {
			return nil, nil, hostErr(name, err)
		}
		fi, err := file.Stat()
		if err == nil && !os.SameFile(fi, lfi) {
			file.Close()
			continue // replaced since the Lstat
		}
		if err == nil {
			err = lockFile(ctx, file)
		}
		if err != nil {
			file.Close()
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, hostErr(name, err)
		}
		// The lock is the file's; the name may meanwhile hold another.
		if cur, err := f.root.Lstat(name); err == nil && os.SameFile(cur, fi) {
			if fi, err = file.Stat(); err == nil {
				return file, fi, nil
			}
		}
		file.Close()
	}
}

// version is what Update read: the file's identity and attributes, and
// its content (fn does not change it: see vfs.Updater).
type version struct {
	fi                 fs.FileInfo
	size, mtime, ctime int64
	content            []byte
}

// still reports whether the file at name, open as file, is the version
// seen: the same file, not changed since (attributes and content; the
// content is read again and compared, which also catches a change that
// left the times alone, such as a write through a shared mapping).
func (f *FS) still(name string, file *os.File, seen version) bool {
	cur, err := f.root.Lstat(name)
	if err != nil || !os.SameFile(cur, seen.fi) {
		return false
	}
	fi, err := file.Stat()
	if err != nil || fi.Size() != seen.size || fi.ModTime().UnixNano() != seen.mtime || hostio.ChangeTime(fi) != seen.ctime {
		return false
	}
	return sameContent(io.NewSectionReader(file, 0, seen.size+1), seen.content)
}

// sameContent reports whether r holds exactly want, reading it in
// blocks rather than whole.
func sameContent(r io.Reader, want []byte) bool {
	buf := make([]byte, min(len(want)+1, 256<<10))
	for {
		n, err := io.ReadFull(r, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false
		}
		want = want[n:]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return len(want) == 0
		case err != nil:
			return false
		}
	}
}

// staged is a temporary file holding a write's new content, locked and
// marked as this package's (see the package doc) while it lives.
type staged struct {
	f     *FS
	file  *os.File
	name  string // its name in the store; "" for one outside the store
	moved bool   // renamed over the target, or its content copied there
}

// stage writes what r holds to a new temporary file beside name. When
// the directory does not let the process create it and rewriting an
// existing file in place is possible (inPlace), the file is made outside
// the directory instead (without a name), and the write will be in
// place, as the shell's "echo x > f" writes a file the user may write in
// a directory the user may not.
func (f *FS) stage(name string, r io.Reader, inPlace bool) (*staged, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	token := hex.EncodeToString(rnd[:])
	tmp := path.Join(path.Dir(name), tempPrefix+token+tempSuffix)
	file, err := f.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	s := &staged{f: f, file: file, name: tmp}
	switch {
	case err == nil:
		// Locked before it is marked: a marked file that is not locked
		// is one whose writer is gone.
		if tryLock(file) {
			mark(file, token)
		}
	case inPlace && errors.Is(err, fs.ErrPermission):
		if file, err = os.CreateTemp("", tempPrefix+"*"+tempSuffix); err != nil {
			return nil, hostErr(name, err)
		}
		_ = os.Remove(file.Name())
		s.file, s.name = file, ""
	default:
		return nil, hostErr(name, err)
	}
	if _, err := io.Copy(s.file, r); err != nil {
		s.discard()
		return nil, hostErr(name, err)
	}
	return s, nil
}

// discard removes the temporary file unless it was moved; it always
// closes it (which releases its lock).
func (s *staged) discard() {
	if !s.moved && s.name != "" {
		_ = s.f.root.Remove(s.name)
	}
	s.file.Close()
}

// replace puts the staged content at name with permission bits mode. old
// is the locked file at name (nil when there is none): the replacement
// gets its owner and extended attributes (its ACL among them), or, when
// the process cannot give it those or the temporary file is outside the
// directory, old is rewritten in place. When seen is given, the file at
// name must still be that version (EAGAIN otherwise, nothing written).
func (f *FS) replace(name string, tmp *staged, old *os.File, mode uint32, seen *version) error {
	inPlace := tmp.name == ""
	if old != nil && !inPlace {
		// The owner first: changing it clears the setuid and setgid
		// bits, which the mode then sets.
		if uid, gid, own := owner(old); !own && tmp.file.Chown(uid, gid) != nil {
			inPlace = true
		} else if copyXattrs(old, tmp.file) != nil {
			inPlace = true
		}
	}
	if old == nil && f.owner != nil {
		if err := tmp.file.Chown(f.owner.uid, f.owner.gid); err != nil {
			return hostErr(name, err)
		}
	}
	if inPlace && f.busy(old) {
		return &errno.Error{Code: errno.EBUSY, Message: syscall.ETXTBSY.Error(), Path: name}
	}
	if !inPlace {
		if err := tmp.file.Chmod(vfs.GoMode(mode)); err != nil {
			return hostErr(name, err)
		}
	}
	if err := tmp.file.Sync(); err != nil {
		return hostErr(name, err)
	}
	if seen != nil && !f.still(name, old, *seen) {
		return &errno.Error{Code: errno.EAGAIN, Message: toolspec.MsgReasonChangedByProgram, Path: name}
	}
	if inPlace {
		return tmp.copyInto(name, old, mode)
	}
	if err := f.root.Rename(tmp.name, name); err != nil {
		return hostErr(name, err)
	}
	tmp.moved = true
	unmark(tmp.file)
	return nil
}

// busy reports whether old could only be opened to read (a program that
// is running: see lockTarget), so it cannot be rewritten in place.
func (f *FS) busy(old *os.File) bool {
	fl, err := fileFlags(old)
	return err == nil && fl&(os.O_WRONLY|os.O_RDWR) == 0
}

// copyInto rewrites the file old (at name) with the staged content, in
// place: its owner, its extended attributes and its inode stay. The
// temporary file loses its mark first: a writer killed while it copies
// leaves the file short, and the new content, whole, in the temporary
// file, which listings then show and never remove.
func (s *staged) copyInto(name string, old *os.File, mode uint32) error {
	unmark(s.file)
	beforeCopy(s.name)
	if fi, err := old.Stat(); err == nil && vfs.UnixMode(fi.Mode()) != mode {
		if err := old.Chmod(vfs.GoMode(mode)); err != nil {
			return hostErr(name, err)
		}
	}
	if err := old.Truncate(0); err != nil {
		return hostErr(name, err)
	}
	if _, err := io.Copy(io.NewOffsetWriter(old, 0), io.NewSectionReader(s.file, 0, 1<<62)); err != nil {
		return hostErr(name, err)
	}
	return hostErr(name, old.Sync())
}

// Create creates an empty file with exactly mode, only if nothing is at
// name (O_EXCL: one of concurrent creates wins, across processes).
func (f *FS) Create(_ context.Context, name string, mode uint32) error {
	file, err := f.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return hostErr(name, err)
	}
	if err := f.give(func(uid, gid int) error { return file.Chown(uid, gid) }); err != nil {
		file.Close()
		_ = f.root.Remove(name)
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
	if err := f.give(func(uid, gid int) error { return f.root.Lchown(name, uid, gid) }); err != nil {
		_ = f.root.Remove(name)
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
	if err := f.root.Symlink(target, name); err != nil {
		return hostErr(name, err)
	}
	if err := f.give(func(uid, gid int) error { return f.root.Lchown(name, uid, gid) }); err != nil {
		_ = f.root.Remove(name)
		return hostErr(name, err)
	}
	return nil
}

// give calls chown with the owner of what the store creates, when
// WithOwner set one.
func (f *FS) give(chown func(uid, gid int) error) error {
	if f.owner == nil {
		return nil
	}
	return chown(f.owner.uid, f.owner.gid)
}

// Remove removes a file, a link or an empty directory. A regular file is
// removed holding its lock, so a writer of this package replacing it
// meanwhile (in any process) does not bring it back.
func (f *FS) Remove(ctx context.Context, name string) error {
	if name == "" {
		return &errno.Error{Code: errno.EBUSY, Message: toolspec.MsgReasonMountedDirectory, Path: name}
	}
	if fi, err := f.root.Lstat(name); err == nil && fi.Mode().IsRegular() {
		if file, err := f.root.OpenFile(name, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0); err == nil {
			defer file.Close()
			if err := lockFile(ctx, file); err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return hostErr(name, f.root.Remove(name))
}

// RemoveAll removes name and everything below it.
func (f *FS) RemoveAll(_ context.Context, name string) error {
	if name == "" {
		return &errno.Error{Code: errno.EBUSY, Message: toolspec.MsgReasonMountedDirectory, Path: name}
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
