package execbackend

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agenttools/agenttools/internal/hostio"
	"github.com/agenttools/agenttools/toolspec"
)

// MirrorCache is the directory that holds the default mirror
// directories (MirrorOptions.Key): agenttools/mirror in the user's cache
// directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows). It is an error
// when the user has no cache directory: the mirror never falls back to a
// shared directory such as /tmp, where another user could take its path
// first. Nothing is made here.
func MirrorCache() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New(toolspec.MsgExecMirrorNoCache(err.Error(), toolspec.MsgExecMirrorChoose))
	}
	return filepath.Join(cache, "agenttools", "mirror"), nil
}

// defaultMirror is the default mirror directory of the workspace key
// names: in MirrorCache, named by the first 16 hex digits of key's
// SHA-256.
func defaultMirror(key string) (string, error) {
	root, err := MirrorCache()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(root, hex.EncodeToString(sum[:8])), nil
}

// keyFile records, in a default mirror directory, the key it was made
// for (what Mirrors reports).
const keyFile = "key"

// mirrorUnavailable is the error of a command whose mirror directory
// cannot be used: the spec's text, wrapping the reason. choose adds the
// way out (toolspec.MsgExecMirrorChoose) for the default mirror.
type mirrorUnavailable struct {
	err    error
	choose bool
}

func (e mirrorUnavailable) Error() string {
	reason := e.err.Error()
	if e.choose {
		reason = toolspec.MsgExecMirrorDefaultUnusable(reason, toolspec.MsgExecMirrorChoose)
	}
	return toolspec.MsgExecMirrorUnavailable(reason)
}

func (e mirrorUnavailable) Unwrap() error { return e.err }

// prepare makes the mirror directory, or checks the one there (see
// privateDir), before a command uses it.
func (m *Mirror) prepare() (string, error) {
	dir := m.dir
	if dir == "" {
		var err error
		if dir, err = defaultMirror(m.key); err != nil {
			return "", mirrorUnavailable{err: err}
		}
	}
	if err := privateDir(dir, true); err != nil {
		// The default one, in the cache directory (a HOME that does not
		// exist, say): another can be named.
		return "", mirrorUnavailable{err: err, choose: m.dir == ""}
	}
	if m.key != "" {
		if _, err := lstat(filepath.Join(dir, keyFile)); errors.Is(err, fs.ErrNotExist) {
			_ = os.WriteFile(filepath.Join(dir, keyFile), []byte(m.key), 0o600)
		}
	}
	return dir, nil
}

// lstat is os.Lstat (a test hook: what the mirror directory's checks
// call).
var lstat = os.Lstat

// maxRemade bounds how many times in a row lock makes the mirror again
// because a path of it vanished, in case something other than
// RemoveMirror keeps it vanishing.
const maxRemade = 100

// lock prepares the mirror directory and takes its lock, waiting while
// another process holds it. A mirror removed (RemoveMirror) at any
// point before this holds its lock (while it was checked, before its
// lock file was opened, or while this waited for the lock) is made
// again.
func (m *Mirror) lock(ctx context.Context) (dir string, unlock func(), err error) {
	for remade := 0; ; remade++ {
		dir, err = m.prepare()
		if err == nil {
			unlock, err = lockDir(ctx, dir)
		}
		// RemoveMirror renames the directory aside: what was checked or
		// is to be opened in it is then not there.
		gone := errors.Is(err, errLockGone) || errors.Is(err, fs.ErrNotExist) && remade < maxRemade && ctx.Err() == nil
		if !gone {
			if err != nil {
				return "", nil, err
			}
			return dir, unlock, nil
		}
	}
}

// MirrorInfo describes one mirror directory.
type MirrorInfo struct {
	// Dir is the mirror directory.
	Dir string
	// Key is the workspace it mirrors (for the agenttools command, the
	// database's path); "" when it was not recorded.
	Key string
	// Size is the bytes of the files in it: the copy of the workspace
	// and the base copies.
	Size int64
	// LastUsed is when a command last took it (its lock file's
	// modification time).
	LastUsed time.Time
	// InUse is true while a command runs in it.
	InUse bool
}

// ErrMirrorInUse is RemoveMirror's error for a mirror a command holds.
var ErrMirrorInUse = errors.New("in use by a running command")

// removing marks, in its name, a mirror directory RemoveMirror moved
// aside to remove it.
const removing = ".removing-"

// Mirrors lists the default mirror directories in root (MirrorCache()),
// least recently used first. A root that does not exist holds none; one
// that is not private to this user (see MirrorOptions.Mirror) is an
// error. It writes nothing.
func Mirrors(root string) ([]MirrorInfo, error) {
	if err := privateDir(root, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []MirrorInfo
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		info := MirrorInfo{Dir: dir}
		if data, err := os.ReadFile(filepath.Join(dir, keyFile)); err == nil {
			info.Key = string(data)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "lock")); err == nil {
			info.LastUsed = fi.ModTime()
		} else if fi, err := e.Info(); err == nil {
			info.LastUsed = fi.ModTime()
		}
		info.InUse = lockHeld(dir)
		_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					info.Size += fi.Size()
				}
			}
			return nil
		})
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b MirrorInfo) int { return a.LastUsed.Compare(b.LastUsed) })
	return out, nil
}

// RemoveMirror removes the mirror directory dir, unless a command runs
// in it (ErrMirrorInUse). It holds the mirror's lock while it moves the
// directory aside, so a command that starts meanwhile waits, then makes
// the mirror afresh (copying the whole workspace). What a removal that
// was interrupted left (dir with ".removing-" and a random suffix) is
// listed by Mirrors, and removed like a mirror.
func RemoveMirror(dir string) error {
	if err := privateDir(dir, false); err != nil {
		return err
	}
	unlock, err := tryLockDir(dir)
	if err != nil {
		return err
	}
	aside := dir + removing + strings.ToLower(rand.Text())
	err = os.Rename(dir, aside)
	unlock()
	if err != nil {
		return err
	}
	return hostio.RemoveAll(aside)
}
