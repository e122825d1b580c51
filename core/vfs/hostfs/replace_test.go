//go:build linux

package hostfs_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/internal/testws"
)

// posixACL is the system.posix_acl_access value of an ACL: rw for the
// owner, group, mask and others, and nothing for user uid.
func posixACL(uid uint32) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, uint32(2))
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{0x01, 6, 0xffffffff}, {0x02, 0, uid}, {0x04, 6, 0xffffffff}, {0x10, 6, 0xffffffff}, {0x20, 6, 0xffffffff}} {
		_ = binary.Write(&b, binary.LittleEndian, e)
	}
	return b.Bytes()
}

func getXattr(t *testing.T, p, name string) []byte {
	t.Helper()
	buf := make([]byte, 4096)
	n, err := unix.Getxattr(p, name, buf)
	if err != nil {
		t.Fatalf("getxattr %s %s: %v", p, name, err)
	}
	return buf[:n]
}

// Replacing a file keeps its extended attributes, its POSIX ACL among
// them, which a new inode would not have: the ACL that refuses a user
// access still refuses it after write and edit (they widened access).
func TestReplaceKeepsExtendedAttributes(t *testing.T) {
	s, dir := openStore(t)
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(p, "user.keep", []byte("me"), 0); err != nil {
		t.Skipf("no user extended attributes here: %v", err)
	}
	acl := posixACL(65534)
	withACL := unix.Setxattr(p, "system.posix_acl_access", acl, 0) == nil
	for _, step := range []struct {
		name string
		run  func() error
	}{
		{"WriteFile", func() error { return s.WriteFile(t.Context(), "f", bytes.NewReader([]byte("new\n")), 0o666) }},
		{"Update", func() error {
			return s.Update(t.Context(), "f", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) { return append(old, "more\n"...), nil })
		}},
	} {
		if err := step.run(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got := getXattr(t, p, "user.keep"); string(got) != "me" {
			t.Errorf("after %s user.keep = %q", step.name, got)
		}
		if withACL {
			if got := getXattr(t, p, "system.posix_acl_access"); !bytes.Equal(got, acl) {
				t.Errorf("after %s the ACL is %x, want %x", step.name, got, acl)
			}
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "new\nmore\n" {
		t.Errorf("f = %q", b)
	}
}

// A rewrite in place that stops midway (the writer killed) leaves the new
// content, whole, in a temporary file that no listing removes: the
// temporary file is no longer marked while its content is copied. The
// rewrite is of a file of root's that user nobody may write (a new file
// could not be given root as owner), run as nobody in a helper process,
// which lists the directory, as a next call would, when the copy starts.
func TestInPlaceCopyKeepsItsSource(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a file of root's and run the writer as nobody")
	}
	bin := testws.PublicCopy(t, os.Args[0])
	dir := testws.PublicDir(t)
	if err := os.Chown(dir, testws.Nobody, testws.Nobody); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "shared")
	if err := os.WriteFile(p, []byte("old\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	needXattrs(t, dir)
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), inPlaceEnv+"="+dir)
	testws.AsUser(testws.Nobody)(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("writer: %v\n%s", err, out)
	}
	var seen []string
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("writer said %q", out)
	}
	if len(seen) != 2 || seen[1] != "shared" || tempToken(seen[0]) == "" {
		t.Errorf("during the copy a listing showed %q, want the temporary file and shared", seen)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" || testws.OwnerOf(t, p) != 0 {
		t.Errorf("shared = %q, owned by %d; want new, root's", b, testws.OwnerOf(t, p))
	}
}

// inPlaceEnv makes the test binary the writer of
// TestInPlaceCopyKeepsItsSource: it rewrites DIR/shared in place and
// prints, as JSON, what a listing of DIR showed as the copy started.
const inPlaceEnv = "HOSTFS_TEST_INPLACE"

func rewriteInPlace(dir string) error {
	s, err := hostfs.Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	var seen []string
	defer hostfs.SetBeforeCopy(func(string) {
		next, err := hostfs.Open(dir)
		if err != nil {
			return
		}
		defer next.Close()
		entries, _ := next.ReadDir(context.Background(), "", 0, -1)
		for _, e := range entries {
			seen = append(seen, e.Name)
		}
	})()
	if err := s.WriteFile(context.Background(), "shared", bytes.NewReader([]byte("new\n")), 0o666); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(seen)
}

func tempToken(name string) string {
	t, ok := strings.CutPrefix(name, ".agenttools-")
	if !ok {
		return ""
	}
	t, _ = strings.CutSuffix(t, ".tmp")
	return t
}

// While another process holds a file's lock for longer than a writer
// waits, the write fails with EBUSY and changes nothing, instead of
// hanging.
func TestLockWaitIsBounded(t *testing.T) {
	defer hostfs.SetLockWait(50 * time.Millisecond)()
	s, dir := openStore(t)
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	err = s.WriteFile(t.Context(), "f", bytes.NewReader([]byte("new\n")), 0o644)
	if errno.CodeOf(err) != errno.EBUSY {
		t.Errorf("WriteFile of a file another process locked: %v, want EBUSY", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Errorf("f = %q", b)
	}
	if names := listNames(t, s); !slices.Equal(names, []string{"f"}) || errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the refused write the directory lists %q", names)
	}
}
