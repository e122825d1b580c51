//go:build unix

package execbackend

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/toolspec"
)

// other is the user that owns what "another user" made in these tests.
const other = 65534

// Every component of a mirror's path is checked: another user's
// directory or link anywhere on it, a directory others can write, a
// mirror directory that is not this user's, are refused before anything
// is made or used below them.
func TestPrivateDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give files to another user")
	}
	chown := func(t *testing.T, p string) {
		t.Helper()
		if err := os.Lchown(p, other, other); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(t *testing.T, p string, mode fs.FileMode) {
		t.Helper()
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(t *testing.T, target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		// setup makes what is there in base, and returns the mirror
		// path to check.
		setup func(t *testing.T, base string) string
		want  string // in the error; "" for none
	}{
		{"missing: made", func(t *testing.T, base string) string {
			return filepath.Join(base, "a", "b", "m")
		}, ""},
		{"ours, private", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "m"), 0o700)
			return filepath.Join(base, "m")
		}, ""},
		{"in a sticky shared directory", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "tmp"), 0o777|fs.ModeSticky)
			return filepath.Join(base, "tmp", "m")
		}, ""},
		{"through our own link", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "real"), 0o700)
			symlink(t, "real", filepath.Join(base, "link"))
			return filepath.Join(base, "link", "m")
		}, ""},
		{"through our link with ..", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "x", "y"), 0o700)
			symlink(t, "x/y/..", filepath.Join(base, "link"))
			return filepath.Join(base, "link", "m")
		}, ""},
		{"the mirror is another user's", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "m"), 0o700)
			chown(t, filepath.Join(base, "m"))
			return filepath.Join(base, "m")
		}, "m is owned by another user (uid 65534), not by this one"},
		{"the mirror is a link another user made", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "tmp"), 0o777|fs.ModeSticky)
			mkdir(t, filepath.Join(base, "ours"), 0o700)
			symlink(t, filepath.Join(base, "ours"), filepath.Join(base, "tmp", "m"))
			chown(t, filepath.Join(base, "tmp", "m"))
			return filepath.Join(base, "tmp", "m")
		}, "tmp/m is a symbolic link made by another user (uid 65534)"},
		{"a directory on the way is another user's", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "theirs", "ours"), 0o700)
			chown(t, filepath.Join(base, "theirs"))
			return filepath.Join(base, "theirs", "ours", "m")
		}, "theirs is owned by another user (uid 65534), who could replace what is in it"},
		{"a link on the way is another user's", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "tmp"), 0o777|fs.ModeSticky)
			mkdir(t, filepath.Join(base, "ours"), 0o700)
			symlink(t, filepath.Join(base, "ours"), filepath.Join(base, "tmp", "cache"))
			chown(t, filepath.Join(base, "tmp", "cache"))
			return filepath.Join(base, "tmp", "cache", "agenttools", "m")
		}, "is a symbolic link made by another user"},
		{"our link into another user's directory", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "theirs"), 0o755)
			chown(t, filepath.Join(base, "theirs"))
			symlink(t, filepath.Join(base, "theirs"), filepath.Join(base, "link"))
			return filepath.Join(base, "link", "m")
		}, "theirs is owned by another user"},
		{"a directory on the way others can write", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "open"), 0o777)
			return filepath.Join(base, "open", "m")
		}, "open can be written by other users (mode 0777)"},
		{"a group-writable directory on the way", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "group"), 0o770)
			return filepath.Join(base, "group", "m")
		}, "group can be written by other users (mode 0770)"},
		{"a mirror others can write, sticky or not", func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "m"), 0o777|fs.ModeSticky)
			return filepath.Join(base, "m")
		}, "m can be written by other users"},
		{"a file in the way", func(t *testing.T, base string) string {
			if err := os.WriteFile(filepath.Join(base, "f"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(base, "f", "m")
		}, "f is not a directory"},
		{"a loop of links", func(t *testing.T, base string) string {
			symlink(t, "b", filepath.Join(base, "a"))
			symlink(t, "a", filepath.Join(base, "b"))
			return filepath.Join(base, "a", "m")
		}, "too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := tt.setup(t, base)
			err := privateDir(dir, true)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("privateDir: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("privateDir: %v, want an error with %q", err, tt.want)
			case tt.want != "":
				return
			}
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(real); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Errorf("the mirror: %v %v", fi.Mode(), err)
			}
		})
	}
}

// A directory others can write is refused naming its mode as the spec
// writes it (four octal digits); this needs no root.
func TestPrivateDirNamesTheMode(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o757); err != nil {
		t.Fatal(err)
	}
	err := privateDir(filepath.Join(open, "m"), true)
	if want := toolspec.MsgExecMirrorWritable(open, 0o757); err == nil || err.Error() != want {
		t.Errorf("privateDir: %v, want %q", err, want)
	}
}

// A check that refuses a path makes nothing below the refused directory.
func TestPrivateDirMakesNothingBelowARefusal(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(filepath.Join(open, "a", "m"), true); err == nil {
		t.Fatal("no error")
	}
	if entries, _ := os.ReadDir(open); len(entries) != 0 {
		t.Errorf("made: %v", entries)
	}
	if err := privateDir(filepath.Join(t.TempDir(), "missing"), false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("without create: %v", err)
	}
}

// A command that waited for the lock of a mirror RemoveMirror was
// removing does not run in the directory moved aside: it makes the
// mirror again and locks that.
func TestLockOfARemovedMirror(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	m := &Mirror{dir: dir}
	if _, err := m.prepare(); err != nil {
		t.Fatal(err)
	}
	unlock, err := tryLockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan string, 2)
	lockOpened = func(p string) {
		select {
		case opened <- p:
		default:
		}
	}
	t.Cleanup(func() { lockOpened = func(string) {} })
	type locked struct {
		dir    string
		unlock func()
		err    error
	}
	done := make(chan locked)
	go func() {
		d, u, err := m.lock(t.Context())
		done <- locked{d, u, err}
	}()
	<-opened // it waits on the lock file we hold
	aside := dir + removing + "x"
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	unlock()
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	defer got.unlock()
	if len(opened) != 1 {
		t.Errorf("it locked the moved file, not a new one (%d more opens)", len(opened))
	}
	lockOpened = func(string) {}
	// The lock held is the mirror's: another taker finds it in use.
	if _, err := tryLockDir(dir); !errors.Is(err, ErrMirrorInUse) {
		t.Errorf("the mirror's lock: %v", err)
	}
	if _, err := tryLockDir(aside); err != nil {
		t.Errorf("the moved directory's lock is held: %v", err)
	}
}

// A lock taken on a file that is no longer the mirror's (RemoveMirror,
// holding the lock, moved the mirror aside after this taker opened the
// file, and let go; another command made the mirror again) is let go:
// the taker locks the mirror's lock file.
func TestLockOfAMirrorMovedBeforeItsLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	m := &Mirror{dir: dir}
	if _, err := m.prepare(); err != nil {
		t.Fatal(err)
	}
	aside := dir + removing + "x"
	lockOpened = func(string) {
		lockOpened = func(string) {}
		if err := os.Rename(dir, aside); err != nil {
			t.Error(err)
		}
		if _, err := m.prepare(); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lock"), nil, 0o600); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { lockOpened = func(string) {} })
	got, unlock, err := m.lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if got != dir {
		t.Errorf("locked %s, want %s", got, dir)
	}
	if _, err := tryLockDir(dir); !errors.Is(err, ErrMirrorInUse) {
		t.Errorf("the mirror's lock: %v", err)
	}
	if _, err := tryLockDir(aside); err != nil {
		t.Errorf("the moved directory's lock is held: %v", err)
	}
}

// A mirror RemoveMirror moves aside while a command checks it or before
// the command opens its lock file does not fail the command: it makes
// the mirror again and locks that.
func TestMirrorRemovedWhileChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		// at says whether the mirror is moved aside at this lstat of
		// path (n-th of it) by the checks.
		at func(dir, path string, n int) bool
	}{
		// privateDir found the directory; its own check of it comes next.
		{"checked", func(dir, path string, n int) bool { return path == dir && n == 2 }},
		// The checks are done; the lock file is opened next.
		{"before its lock", func(dir, path string, n int) bool { return path == filepath.Join(dir, keyFile) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m")
			m := &Mirror{dir: dir, key: "k"}
			if _, err := m.prepare(); err != nil {
				t.Fatal(err)
			}
			aside := dir + removing + "x"
			seen := map[string]int{}
			moved := false
			lstat = func(p string) (fs.FileInfo, error) {
				seen[p]++
				if !moved && tc.at(dir, p, seen[p]) {
					moved = true
					if err := os.Rename(dir, aside); err != nil {
						t.Error(err)
					}
				}
				return os.Lstat(p)
			}
			t.Cleanup(func() { lstat = os.Lstat })
			got, unlock, err := m.lock(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
			if !moved {
				t.Fatal("the mirror was not moved aside")
			}
			if got != dir {
				t.Errorf("locked %s, want %s", got, dir)
			}
			if _, err := tryLockDir(dir); !errors.Is(err, ErrMirrorInUse) {
				t.Errorf("the mirror's lock: %v", err)
			}
			if data, err := os.ReadFile(filepath.Join(dir, keyFile)); err != nil || string(data) != "k" {
				t.Errorf("the key of the mirror made again: %q, %v", data, err)
			}
		})
	}
}
