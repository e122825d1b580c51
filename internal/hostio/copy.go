package hostio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttools/agenttools/core/vfs"
)

// Copy copies nodes between the workspace directory Root and the
// host directory Dir, keeping types, permission bits and symbolic links.
// A link's absolute target inside one side becomes the same place on the
// other; any other target is copied verbatim. Paths given to its methods
// are relative to both ("" is Root and Dir themselves), slash-separated.
type Copy struct {
	WS   *vfs.Workspace
	Root string // a workspace directory
	Dir  string // an absolute host directory
	// Skip leaves out of Import the host paths it is true for (and what
	// is below them); nil skips nothing.
	Skip func(hostPath string) bool
	// PassedOver, when set, is called by Import with the host path of
	// each node it passes over for being neither a file, a directory nor
	// a symbolic link (a named pipe, a socket, a device).
	PassedOver func(hostPath string)
}

// ErrImportRoot is Import's error (wrapped, with the path and what it
// is) when Root is there and is not a directory.
var ErrImportRoot = errors.New("not a directory to copy into")

// HostPath is rel on the host side.
func (c Copy) HostPath(rel string) string { return filepath.Join(c.Dir, filepath.FromSlash(rel)) }

// WSPath is rel on the workspace side.
func (c Copy) WSPath(rel string) string {
	if rel == "" {
		return c.Root
	}
	return vfs.Join(c.Root, rel)
}

// ToHost makes the host node at rel a copy of the workspace node info
// describes, replacing what is there. A directory is made (or kept) open
// to its owner, so that its entries can be copied in: give it its mode
// with SetHostMode once they are. Nodes that are neither file, directory
// nor link are passed over. The host directory that holds rel is opened
// to its owner for the change, if it must be, and closed again.
func (c Copy) ToHost(ctx context.Context, rel string, info vfs.Info) error {
	return c.ToHostTee(ctx, rel, info, nil)
}

// ToHostTee is ToHost that also writes a file's content, as it copies
// it, to tee (nil for nowhere), so a caller can keep a second copy
// without reading the workspace twice. An error of tee fails the copy.
func (c Copy) ToHostTee(ctx context.Context, rel string, info vfs.Info, tee io.Writer) error {
	hp := c.HostPath(rel)
	restore := openParent(hp)
	defer restore()
	if old, err := os.Lstat(hp); err == nil && (info.Type != vfs.TypeDir || !old.IsDir()) {
		if err := RemoveAll(hp); err != nil {
			return err
		}
	}
	return c.create(ctx, rel, info, tee)
}

// exportNode is ToHost as a copy command does it, within the host's
// permissions: an existing regular file is rewritten in place, opened for
// writing (which the host refuses where the file's own mode forbids it),
// so it keeps its owner (and, when it is another user's, its mode); an
// existing directory is kept; a symbolic link is replaced (never
// followed); a node of another kind (a file where the workspace has a
// directory, say) stops the copy, unchanged, as cp stops; no directory is
// opened beyond what its mode allows.
func (c Copy) exportNode(ctx context.Context, rel string, info vfs.Info) error {
	hp := c.HostPath(rel)
	old, err := os.Lstat(hp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case info.Type == vfs.TypeFile && old.Mode().IsRegular():
		return c.rewrite(ctx, rel, hp)
	case info.Type == vfs.TypeDir && old.IsDir():
		return nil
	case old.Mode()&fs.ModeSymlink != 0:
		if err := os.Remove(hp); err != nil {
			return err
		}
	default:
		return &fs.PathError{Op: "export", Path: hp, Err: fmt.Errorf("%w: the workspace has a %s there, the host a %s", fs.ErrExist, info.Type, Type(old))}
	}
	return c.create(ctx, rel, info, nil)
}

// rewrite copies the workspace file at rel over the existing host file hp,
// in place, and gives it the file's mode when the process may. The
// content is read whole (into an unnamed temporary file) before hp is
// touched, so a workspace that fails to read leaves hp as it was.
func (c Copy) rewrite(ctx context.Context, rel, hp string) error {
	info, err := c.WS.Lstat(ctx, c.WSPath(rel))
	if err != nil {
		return err
	}
	staged, err := os.CreateTemp("", "agenttools-export-*")
	if err != nil {
		return err
	}
	_ = os.Remove(staged.Name())
	defer staged.Close()
	r, _, err := c.WS.Open(ctx, c.WSPath(rel), 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(staged, r)
	r.Close()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(hp, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.NewSectionReader(staged, 0, 1<<62)); err != nil {
		f.Close()
		return err
	}
	// Only the owner may change the mode: a file of another user's keeps
	// the mode its owner gave it, as cp leaves it.
	if fi, err := f.Stat(); err == nil && vfs.UnixMode(fi.Mode()) != info.Mode&0o7777 {
		if err := f.Chmod(vfs.GoMode(info.Mode)); err != nil && !errors.Is(err, fs.ErrPermission) {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// create makes the host node at rel, where nothing is, a copy of the
// workspace node info describes (a file's content also to tee).
func (c Copy) create(ctx context.Context, rel string, info vfs.Info, tee io.Writer) error {
	hp := c.HostPath(rel)
	switch info.Type {
	case vfs.TypeDir:
		if err := os.Mkdir(hp, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return os.Chmod(hp, 0o700)
	case vfs.TypeSymlink:
		return os.Symlink(c.hostTarget(info.Target), hp)
	case vfs.TypeFile:
		r, _, err := c.WS.Open(ctx, c.WSPath(rel), 0)
		if err != nil {
			return err
		}
		defer r.Close()
		f, err := os.OpenFile(hp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		var src io.Reader = r
		if tee != nil {
			src = io.TeeReader(r, tee)
		}
		if _, err := io.Copy(f, src); err != nil {
			f.Close()
			return err
		}
		if err := f.Chmod(vfs.GoMode(info.Mode)); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// SetHostMode gives the host directory at rel the mode of the workspace
// directory info describes.
func (c Copy) SetHostMode(rel string, info vfs.Info) error {
	return os.Chmod(c.HostPath(rel), vfs.GoMode(info.Mode))
}

// openParent lets the owner change the entries of the directory that
// holds hp when its mode does not (a read-only directory), and returns
// what puts its mode back.
func openParent(hp string) func() {
	dir := filepath.Dir(hp)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm()&0o300 == 0o300 {
		return func() {}
	}
	if os.Chmod(dir, fi.Mode()|0o300) != nil {
		return func() {}
	}
	return func() { _ = os.Chmod(dir, fi.Mode()) }
}

// RemoveAll removes the host node at hp and everything below it,
// opening read-only directories on the way so that their entries can go.
func RemoveAll(hp string) error {
	if err := os.RemoveAll(hp); err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	_ = filepath.WalkDir(hp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	restore := openParent(hp)
	defer restore()
	return os.RemoveAll(hp)
}

// FromHost makes the workspace node at rel a copy of the host node fi
// describes (from os.Lstat), replacing what is there. Nodes that are
// neither file, directory nor link (a pipe, a socket) are passed over.
func (c Copy) FromHost(ctx context.Context, rel string, fi fs.FileInfo) error {
	p := c.WSPath(rel)
	typ := Type(fi)
	mode := vfs.UnixMode(fi.Mode())
	old, err := c.WS.Lstat(ctx, p)
	exists := err == nil
	if exists && (old.Type != typ || typ == vfs.TypeSymlink) {
		if err := c.WS.Remove(ctx, p, vfs.RemoveOptions{Recursive: true, Force: true}); err != nil {
			return err
		}
		exists = false
	}
	switch typ {
	case vfs.TypeDir:
		if exists {
			return c.WS.Chmod(ctx, p, mode)
		}
		return c.WS.Mkdir(ctx, p, vfs.MkdirOptions{Mode: &mode})
	case vfs.TypeSymlink:
		target, err := os.Readlink(c.HostPath(rel))
		if err != nil {
			return err
		}
		return c.WS.Symlink(ctx, c.wsTarget(target), p)
	case vfs.TypeFile:
		f, err := os.Open(c.HostPath(rel))
		if err != nil {
			return err
		}
		defer f.Close()
		return c.WS.WriteFrom(ctx, p, f, vfs.WriteOptions{Mode: &mode})
	}
	return nil
}

// Export copies the workspace tree at Root into Dir (created if
// missing, with its parents), over what Dir holds, and returns how many
// nodes it copied; a file at Root is copied into Dir under its name (1
// node). It stays within the host's permissions, as cp does: a host file
// it may not write stops it (EACCES) unchanged, and a file it rewrites
// keeps its owner. Root must exist (the workspace's error otherwise,
// ENOENT) and be a directory or a file (ENOTDIR), else nothing is
// created. When it fails, the directories it created (Dir, or the first
// of its parents it made) are removed with what it copied into them;
// what it changed in a Dir that existed stays changed.
func (c Copy) Export(ctx context.Context) (n int, err error) {
	info, err := c.WS.Stat(ctx, c.Root)
	if err != nil {
		return 0, err
	}
	if info.Type != vfs.TypeDir && info.Type != vfs.TypeFile {
		return 0, &fs.PathError{Op: "export", Path: c.Root, Err: errors.New("neither a directory nor a file")}
	}
	made := FirstMissing(c.Dir)
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return 0, err
	}
	if made != "" {
		defer func() {
			if err != nil {
				_ = RemoveAll(made)
			}
		}()
	}
	if info.Type == vfs.TypeFile {
		one := Copy{WS: c.WS, Root: c.Root, Dir: filepath.Join(c.Dir, vfs.Base(c.Root))}
		if err := one.exportNode(ctx, "", info); err != nil {
			return 0, err
		}
		return 1, nil
	}
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := c.WS.ReadDir(ctx, c.WSPath(rel), 0, -1)
		if err != nil {
			return err
		}
		for _, e := range entries {
			child := joinRel(rel, e.Name)
			if err := c.exportNode(ctx, child, e); err != nil {
				return err
			}
			n++
			if e.Type == vfs.TypeDir {
				if err := walk(child); err != nil {
					return err
				}
				if err := c.SetHostMode(child, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return n, walk("")
}

// FirstMissing is the first of the host directory dir and its parents,
// from the top, that does not exist ("" when dir exists): the first
// directory os.MkdirAll(dir) would create.
func FirstMissing(dir string) string {
	missing := ""
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			return missing
		}
		missing = p
		if filepath.Dir(p) == p {
			return missing
		}
	}
}

// Import copies the host tree at Dir into Root (created if missing),
// over what Root holds, and returns how many nodes it copied; a file at
// Dir (or a link to one) is copied into Root under its name (1 node). A
// link at Dir is followed. Dir must be a directory or a file, and not one
// Skip leaves out, else nothing is created (the host's error, or an
// *fs.PathError saying what Dir is).
func (c Copy) Import(ctx context.Context) (int, error) {
	name := filepath.Base(c.Dir)
	// A link to the tree is the tree.
	if real, err := filepath.EvalSymlinks(c.Dir); err == nil {
		c.Dir = real
	}
	fi, err := os.Stat(c.Dir)
	if err != nil {
		return 0, err
	}
	switch {
	case c.Skip != nil && c.Skip(c.Dir):
		return 0, &fs.PathError{Op: "import", Path: c.Dir, Err: errors.New("left out of the copy (Skip)")}
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return 0, &fs.PathError{Op: "import", Path: c.Dir, Err: errors.New("neither a directory nor a regular file")}
	}
	if info, err := c.WS.Stat(ctx, c.Root); err == nil && info.Type != vfs.TypeDir {
		return 0, fmt.Errorf("%s is a %s, %w", c.Root, info.Type, ErrImportRoot)
	}
	if err := c.WS.Mkdir(ctx, c.Root, vfs.MkdirOptions{Recursive: true}); err != nil {
		return 0, err
	}
	if !fi.IsDir() {
		one := Copy{WS: c.WS, Root: vfs.Join(c.Root, name), Dir: c.Dir}
		if err := one.FromHost(ctx, "", fi); err != nil {
			return 0, err
		}
		return 1, nil
	}
	n := 0
	err = filepath.WalkDir(c.Dir, func(hp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if hp == c.Dir {
			return nil
		}
		if c.Skip != nil && c.Skip(hp) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		relOS, err := filepath.Rel(c.Dir, hp)
		if err != nil {
			return err
		}
		fi, err := os.Lstat(hp)
		if err != nil {
			return err
		}
		if err := c.FromHost(ctx, filepath.ToSlash(relOS), fi); err != nil {
			return err
		}
		if Type(fi) != vfs.TypeOther {
			n++
		} else if c.PassedOver != nil {
			c.PassedOver(hp)
		}
		return nil
	})
	return n, err
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// Type is the node type of a host file.
func Type(fi fs.FileInfo) vfs.FileType {
	switch {
	case fi.IsDir():
		return vfs.TypeDir
	case fi.Mode()&fs.ModeSymlink != 0:
		return vfs.TypeSymlink
	case fi.Mode().IsRegular():
		return vfs.TypeFile
	}
	return vfs.TypeOther
}

// hostTarget maps an absolute workspace target inside Root into Dir.
func (c Copy) hostTarget(target string) string {
	if !strings.HasPrefix(target, "/") {
		return target
	}
	if target == c.Root {
		return c.Dir
	}
	prefix := c.Root
	if prefix != "/" {
		prefix += "/"
	}
	if rest, ok := strings.CutPrefix(target, prefix); ok {
		return c.HostPath(rest)
	}
	return target
}

// WSTarget is the workspace target of a host link whose target is
// target: an absolute one inside Dir maps to the same place inside Root;
// any other is kept verbatim (as FromHost copies links).
func (c Copy) WSTarget(target string) string { return c.wsTarget(target) }

// wsTarget maps an absolute host target inside Dir into Root.
func (c Copy) wsTarget(target string) string {
	if target == c.Dir {
		return c.Root
	}
	if rest, ok := strings.CutPrefix(target, c.Dir+string(filepath.Separator)); ok {
		return c.WSPath(filepath.ToSlash(rest))
	}
	return target
}
