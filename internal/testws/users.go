//go:build unix

package testws

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Nobody is the user tests run a program as when they must not be root
// (root ignores a file's permission bits).
const Nobody = 65534

// Loner is a user no other test runs as (it needs no account): a test
// of a per-user limit (RLIMIT_NPROC counts every process of the user)
// runs as Loner so that the processes of tests running beside it do not
// count.
const Loner = 65533

// PublicCopy copies the program at src into a PublicDir, so that another
// user can run it, and returns the copy's path.
func PublicCopy(tb testing.TB, src string) string {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(PublicDir(tb), filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// AsUser prepares a command to run as uid, with the group of the same
// number.
func AsUser(uid int) func(*exec.Cmd) {
	return func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
}

// OwnerOf is the user that owns the file at path.
func OwnerOf(tb testing.TB, path string) int {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid)
}
