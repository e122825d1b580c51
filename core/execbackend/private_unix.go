//go:build unix

package execbackend

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agenttools/agenttools/toolspec"
)

// maxLinks is how many symbolic links privateDir follows on one path,
// as the kernel does.
const maxLinks = 40

// privateDir makes dir a private directory of this user and checks that
// no other user can reach into it. Missing directories on the way are
// made, each 0700, when create is set. Every component of the path is
// checked with lstat before it is used: a directory on the way must be
// owned by root or this user and not writable by group or others unless
// it is sticky (as /tmp is: another user's entries in it are then
// refused by their owner); a symbolic link must be owned by root or this
// user, and where it leads is checked the same way; dir itself must be a
// directory owned by this user that group and others cannot write. The
// error names the first component that fails; with create unset, a
// missing one is an fs.ErrNotExist error.
//
// Only root could change a path that passes after the check, so using it
// afterwards is safe.
func privateDir(dir string, create bool) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	uid := os.Geteuid()
	if err := trusted("/", uid, false); err != nil {
		return err
	}
	cur, rest := "/", splitPath(dir)
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		if name == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := lstat(next)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := os.Mkdir(next, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			// What is there now: ours, or what another process made
			// first.
			fi, err = lstat(next)
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if owner := ownerOf(fi); owner != 0 && owner != uid {
				return errors.New(toolspec.MsgExecMirrorForeignLink(next, int64(owner)))
			}
			if links++; links > maxLinks {
				return &fs.PathError{Op: "lstat", Path: dir, Err: syscall.ELOOP}
			}
			target, err := os.Readlink(next)
			if err != nil {
				return err
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(splitPath(target), rest...)
			continue
		}
		if !fi.IsDir() {
			return errors.New(toolspec.MsgExecMirrorNotDirectory(next))
		}
		if err := trusted(next, uid, len(rest) == 0); err != nil {
			return err
		}
		cur = next
	}
	return nil
}

// trusted checks one directory on the way (own: dir itself).
func trusted(p string, uid int, own bool) error {
	fi, err := lstat(p)
	if err != nil {
		return err
	}
	owner, mode := ownerOf(fi), fi.Mode()
	switch {
	case own && owner != uid:
		return errors.New(toolspec.MsgExecMirrorNotOwned(p, int64(owner), int64(uid)))
	case owner != 0 && owner != uid:
		return errors.New(toolspec.MsgExecMirrorOwnedAbove(p, int64(owner)))
	case mode.Perm()&0o022 != 0 && (own || mode&fs.ModeSticky == 0):
		return errors.New(toolspec.MsgExecMirrorWritable(p, int64(mode.Perm())))
	}
	return nil
}

func ownerOf(fi fs.FileInfo) int { return int(fi.Sys().(*syscall.Stat_t).Uid) }

// splitPath is the names in p, without empty ones and ".".
func splitPath(p string) []string {
	var names []string
	for name := range strings.SplitSeq(filepath.ToSlash(p), "/") {
		if name != "" && name != "." {
			names = append(names, name)
		}
	}
	return names
}
