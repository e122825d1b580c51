//go:build linux

package hostfs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/internal/testws"
)

// writerEnv makes the test binary a writer process for the temporary
// file tests: it writes DIR/big through hostfs, says "ready" on stdout
// once 1 MiB is in its temporary file, and finishes when its stdin ends.
const writerEnv = "HOSTFS_TEST_WRITER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(inPlaceEnv); dir != "" {
		if err := rewriteInPlace(dir); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(writerEnv); dir != "" {
		if err := slowWrite(dir); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func slowWrite(dir string) error {
	s, err := hostfs.Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.WriteFile(context.Background(), "big", &stalling{}, 0o644)
}

// stalling yields 1 MiB, says ready, then waits for stdin to end.
type stalling struct{ n int }

func (r *stalling) Read(p []byte) (int, error) {
	if r.n >= 1<<20 {
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0, io.EOF
	}
	n := min(len(p), 1<<20-r.n)
	for i := range n {
		p[i] = 'x'
	}
	r.n += n
	return n, nil
}

// startWriter starts a writer process on dir and waits until it is in
// the middle of its write.
func startWriter(t *testing.T, dir string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	cmd, stdin, stdout := testws.StartSelf(t, ctx, []string{writerEnv + "=" + dir}, os.Stderr)
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("writer said %q, %v", line, err)
	}
	return cmd, stdin
}

// temporaries lists the temporary files in dir on the host.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".agenttools-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// needXattrs skips a test on a filesystem without user extended
// attributes, where temporary files cannot be marked.
func needXattrs(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, "probe")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(p)
	if err := unix.Setxattr(p, "user.probe", []byte("1"), 0); err != nil {
		t.Skipf("no user extended attributes here (%v): temporary files are never hidden or removed", err)
	}
}

func listNames(t *testing.T, s *hostfs.FS) []string {
	t.Helper()
	entries, err := s.ReadDir(t.Context(), "", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	return names
}

// A file of the user's whose name looks like a temporary file is
// listed, and stays.
func TestFilesNamedLikeTemporariesAreListed(t *testing.T) {
	s, dir := openStore(t)
	name := ".agenttools-0123456789abcdef.tmp"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, s); !slices.Equal(got, []string{name}) {
		t.Errorf("ReadDir lists %q, want the user's %q", got, name)
	}
	if got := temporaries(t, dir); !slices.Equal(got, []string{name}) {
		t.Errorf("the host directory holds %q after a listing, want %q", got, name)
	}
}

// A writer killed in the middle of a write leaves its temporary file;
// the next listing (in another process) leaves it out and removes it.
func TestKilledWritersTemporaryIsRemoved(t *testing.T) {
	s, dir := openStore(t)
	needXattrs(t, dir)
	cmd, _ := startWriter(t, dir)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(temporaries(t, dir)) != 1 {
		t.Fatalf("the killed writer left %q, want one temporary file", temporaries(t, dir))
	}
	if got := listNames(t, s); len(got) != 0 {
		t.Errorf("ReadDir lists %q, want nothing", got)
	}
	if got := temporaries(t, dir); len(got) != 0 {
		t.Errorf("after the listing the host directory still holds %q", got)
	}
}

// A live writer's temporary file is left out of listings and left alone;
// its write then completes.
func TestLiveWritersTemporaryIsHidden(t *testing.T) {
	s, dir := openStore(t)
	needXattrs(t, dir)
	cmd, stdin := startWriter(t, dir)
	if got := listNames(t, s); len(got) != 0 {
		t.Errorf("ReadDir lists %q during another process's write, want nothing", got)
	}
	if len(temporaries(t, dir)) != 1 {
		t.Errorf("the listing disturbed the live writer: its directory holds %q", temporaries(t, dir))
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("writer: %v", err)
	}
	if got := listNames(t, s); !slices.Equal(got, []string{"big"}) {
		t.Errorf("after the write ReadDir lists %q, want big", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, "big")); err != nil || fi.Size() != 1<<20 {
		t.Errorf("big: %v, %v", fi, err)
	}
	if got := temporaries(t, dir); len(got) != 0 {
		t.Errorf("a finished write left %q", got)
	}
}
