package backend_test

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
)

// TestRoot: with Options.Root, paths resolve under the root and nothing
// outside it, or through a link below it, is reached, as our tools
// refuse them.
func TestRoot(t *testing.T) {
	ctx := t.Context()
	ws := testws.Memory.New(t)
	if err := ws.WriteFile(ctx, "/secret.txt", []byte("secret"), vfs.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	b := mustNew(t, ws, agenttools.Options{Root: "/workspace"})
	write(t, b)
	if err := ws.Symlink(ctx, "/", "/workspace/up"); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "file1.txt", Limit: 1}); err != nil || got != "     1\tline1" {
		t.Errorf("relative read: %q, %v", got, err)
	}
	if got, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{}); err != nil || len(got) != 9 {
		t.Errorf("ls of the root: %v, %v", got, err)
	}
	for _, p := range []string{"/secret.txt", "../secret.txt", "/workspace/up/secret.txt", "up/secret.txt"} {
		if got, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: p}); err == nil {
			t.Errorf("read %s: %q, want an error", p, got)
		}
		if err := b.Edit(ctx, &filesystem.EditRequest{FilePath: p, OldString: "secret", NewString: "x"}); err == nil {
			t.Errorf("edit %s succeeded", p)
		}
	}
	if got, err := b.GrepRaw(ctx, &filesystem.GrepRequest{Pattern: "secret", Path: "/"}); err == nil {
		t.Errorf("grep of /: %v, want an error", got)
	}
	if got, _ := ws.ReadDir(ctx, "/", 0, -1); len(got) != 2 {
		t.Errorf("the workspace's root holds %v", got)
	}
}

// TestSymlinkEscape: on a host directory, links whose targets lie outside
// it (absolute, or climbing with "..") resolve in workspace path space,
// so no call reads, lists, finds or changes what is outside.
func TestSymlinkEscape(t *testing.T) {
	ctx := t.Context()
	top := t.TempDir()
	root, outside := filepath.Join(top, "root"), filepath.Join(top, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"abs": outside, "rel": "../outside", "file": secret, "relfile": "../outside/secret.txt"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	host, err := hostfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	b := mustNew(t, vfs.New(host), agenttools.Options{})
	for _, p := range []string{"/abs/secret.txt", "/rel/secret.txt", "/file", "/relfile"} {
		if got, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: p}); err == nil {
			t.Errorf("read %s: %q", p, got)
		}
		if err := b.Edit(ctx, &filesystem.EditRequest{FilePath: p, OldString: "SECRET", NewString: "x"}); err == nil {
			t.Errorf("edit %s succeeded", p)
		}
		if got, _ := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: filepath.Dir(p)}); strings.Contains(paths(got), "secret") {
			t.Errorf("ls %s: %v", filepath.Dir(p), got)
		}
	}
	for _, p := range []string{"/abs/new.txt", "/rel/new.txt"} {
		_ = b.Write(ctx, &filesystem.WriteRequest{FilePath: p, Content: "x"})
	}
	if got, err := b.GrepRaw(ctx, &filesystem.GrepRequest{Pattern: "SECRET"}); err != nil || len(got) != 0 {
		t.Errorf("grep: %v, %v", got, err)
	}
	if got, err := b.GlobInfo(ctx, &filesystem.GlobInfoRequest{Pattern: "**/secret*"}); err != nil || len(got) != 0 {
		t.Errorf("glob: %v, %v", got, err)
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(secret)
	if len(entries) != 1 || err != nil || string(data) != "SECRET line\n" {
		t.Errorf("outside the workspace: %v, %q, %v", entries, data, err)
	}
}

// TestConcurrentEditsAcrossConnections: writers on two connections to one
// SQLite workspace (as two processes have) each make chained edits to
// their own line of one file, at once; every edit that succeeded is in
// the file at the end. And of writes racing to create one file, exactly
// one succeeds.
func TestConcurrentEditsAcrossConnections(t *testing.T) {
	ctx := t.Context()
	dbPath := filepath.Join(t.TempDir(), "ws.db")
	var backends []filesystem.Backend
	for range 2 {
		db, err := sqlitefs.Open(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		b := mustNew(t, vfs.New(db), agenttools.Options{})
		backends = append(backends, b)
	}
	const writers, edits = 6, 15
	var initial strings.Builder
	for k := range writers {
		initial.WriteString(counter(k, 0) + "--\n")
	}
	const file = "/workspace/counters.txt"
	if err := backends[0].Write(ctx, &filesystem.WriteRequest{FilePath: file, Content: initial.String()}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for k := range writers {
		b := backends[k%2]
		wg.Go(func() {
			for n := range edits {
				for {
					err := b.Edit(ctx, &filesystem.EditRequest{FilePath: file, OldString: counter(k, n), NewString: counter(k, n+1)})
					if errno.CodeOf(err) == errno.EAGAIN {
						continue // the file kept changing: match again
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var want strings.Builder
	for k := range writers {
		want.WriteString(counter(k, edits) + "--\n")
	}
	if got := raw(t, backends[1], file); got != want.String() {
		t.Errorf("after the edits: %q, want %q", got, want.String())
	}

	// Each of the claim files is raced for by two writers on each
	// connection, started together.
	const claims = 40
	type win struct{ file, text string }
	won := make(chan win, 4*claims)
	for i := range claims {
		file := "/workspace/claims/" + strconv.Itoa(i)
		go1 := make(chan struct{})
		for k := range 4 {
			b := backends[k%2]
			wg.Go(func() {
				text := "writer " + strconv.Itoa(k)
				<-go1
				switch err := b.Write(ctx, &filesystem.WriteRequest{FilePath: file, Content: text}); {
				case err == nil:
					won <- win{file, text}
				case !errors.Is(err, fs.ErrExist):
					t.Error(err)
				}
			})
		}
		close(go1)
	}
	wg.Wait()
	close(won)
	winners := map[string][]string{}
	for w := range won {
		winners[w.file] = append(winners[w.file], w.text)
	}
	for i := range claims {
		file := "/workspace/claims/" + strconv.Itoa(i)
		if len(winners[file]) != 1 {
			t.Errorf("writes that created %s: %v, want one", file, winners[file])
			continue
		}
		if got := raw(t, backends[i%2], file); got != winners[file][0] {
			t.Errorf("%s holds %q, written by %q", file, got, winners[file][0])
		}
	}
}

func counter(k, n int) string {
	return "counter " + string(rune('A'+k)) + ": " + strings.Repeat("|", n) + ".\n"
}

// raw is the file's content: Read's lines without their numbers.
func raw(t *testing.T, b filesystem.Backend, p string) string {
	t.Helper()
	s, err := b.Read(context.Background(), &filesystem.ReadRequest{FilePath: p, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.SplitSeq(s, "\n") {
		_, text, _ := strings.Cut(line, "\t")
		lines = append(lines, text)
	}
	return strings.Join(lines, "\n")
}

// TestReadHugeLimit: an offset and a limit whose sum passes the largest
// int (the model chooses both) still read to the end of the file.
func TestReadHugeLimit(t *testing.T) {
	for _, s := range stores {
		t.Run(s.Name, func(t *testing.T) {
			b, _ := newBackend(t, s, agenttools.Options{})
			for _, offset := range []int{0, 3} {
				got, err := b.Read(t.Context(), &filesystem.ReadRequest{FilePath: "/workspace/file1.txt", Offset: offset, Limit: math.MaxInt})
				if want := strings.Join(strings.Split(file1Numbered, "\n")[offset:], "\n"); err != nil || got != want {
					t.Errorf("read from %d, limit MaxInt: %q, %v; want %q", offset, got, err, want)
				}
			}
			got, err := b.Read(t.Context(), &filesystem.ReadRequest{FilePath: "/workspace/file1.txt", Offset: math.MaxInt, Limit: math.MaxInt})
			if err != nil || got != "" {
				t.Errorf("read from MaxInt: %q, %v", got, err)
			}
		})
	}
}

// TestGlobAlternatives: a glob whose brace groups multiply into more
// alternatives than GlobAlternativesMax is refused, in glob and in grep's
// glob, a class's braces hiding none of them; doublestar would try them
// one by one against every path ("{a,aa}" 30 times: minutes per name, not
// cancellable). A glob at the cap still matches.
func TestGlobAlternatives(t *testing.T) {
	ctx := t.Context()
	b, _ := newBackend(t, testws.Memory, agenttools.Options{})
	// The name those globs take longest on.
	if err := b.Write(ctx, &filesystem.WriteRequest{FilePath: "/workspace/data/" + strings.Repeat("a", 40), Content: "a"}); err != nil {
		t.Fatal(err)
	}
	const want = "Invalid glob pattern: braces make more than 256 alternatives"
	for _, pattern := range []string{
		strings.Repeat("{a,aa}", 30) + "c*",
		"[{]" + strings.Repeat("{a,aa}", 30) + "c*",
		"[^}]" + strings.Repeat("{a,aa}", 30) + "c*",
		"{" + strings.Repeat("{a,aa}", 30) + ",x}",
		"{" + strings.Repeat("a,", 256) + "b}",
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := b.GlobInfo(ctx, &filesystem.GlobInfoRequest{Pattern: pattern, Path: "/workspace/data"})
			if errno.CodeOf(err) != errno.EINVAL || err.Error() != want {
				t.Errorf("glob %q: %v, want %q", pattern, err, want)
			}
			_, err = b.GrepRaw(ctx, &filesystem.GrepRequest{Pattern: "a", Path: "/workspace/data", Glob: pattern})
			if errno.CodeOf(err) != errno.EINVAL || err.Error() != want {
				t.Errorf("grep's glob %q: %v, want %q", pattern, err, want)
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("glob %q still matching after a minute", pattern)
		}
	}
	got, err := b.GlobInfo(ctx, &filesystem.GlobInfoRequest{Pattern: strings.Repeat("{f,g}", 4) + "{a,b,c,d}.csv", Path: "/workspace/data"})
	if err != nil || paths(got) != "" {
		t.Errorf("glob of 64 alternatives: %v, %v", got, err)
	}
	got, err = b.GlobInfo(ctx, &filesystem.GlobInfoRequest{Pattern: "{" + strings.Repeat("x,", 127) + "f}{a,b}.csv", Path: "/workspace/data"})
	if err != nil || paths(got) != "/workspace/data/fa.csv\n/workspace/data/fb.csv" {
		t.Errorf("glob of 256 alternatives: %v, %v", got, err)
	}
}

// TestWriteOverMountPoint: a write to the directory where a store is
// mounted (a host directory at /workspace) fails as a write over any
// directory does, EEXIST, and changes nothing.
func TestWriteOverMountPoint(t *testing.T) {
	for _, s := range stores {
		t.Run(s.Name, func(t *testing.T) {
			b, ws := newBackend(t, s, agenttools.Options{})
			for _, p := range []string{"/workspace", "/workspace/", "workspace/."} {
				if err := b.Write(t.Context(), &filesystem.WriteRequest{FilePath: p, Content: "x"}); !errors.Is(err, fs.ErrExist) || err.Error() != "path exists: /workspace" {
					t.Errorf("write %q: %v, want %q", p, err, "path exists: /workspace")
				}
			}
			if info, err := ws.Lstat(t.Context(), "/workspace"); err != nil || info.Type != vfs.TypeDir {
				t.Errorf("/workspace: %v, %v", info.Type, err)
			}
		})
	}
}
