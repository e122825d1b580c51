//go:build unix

package execbackend_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/toolspec"
)

// A mirror is made when its first command runs, private to this user;
// until then nothing is on the host, so a mirror that cannot be made
// fails only the commands, with the spec's message.
func TestMirrorMadeByTheFirstCommand(t *testing.T) {
	ws := memWorkspace(t, map[string]string{"/workspace/a.txt": "a"})
	dir := filepath.Join(t.TempDir(), "cache", "m")
	m := newMirror(t, ws, dir)
	if _, err := os.Lstat(filepath.Dir(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("NewMirror made %s: %v", filepath.Dir(dir), err)
	}
	if got := runToEnd(t, m, execbackend.Request{Command: "cat a.txt"}); got.stdout != "a" {
		t.Errorf("stdout %q stderr %q", got.stdout, got.stderr)
	}
	for _, p := range []string{filepath.Dir(dir), dir} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a private directory", p, fi.Mode(), err)
		}
	}

	// A mirror where none can be made: NewMirror works, the command
	// fails saying why.
	t.Setenv("HOME", "/proc")
	t.Setenv("XDG_CACHE_HOME", "")
	keyed, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Key: "/some/ws.db"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = keyed.Start(t.Context(), execbackend.Request{Command: "true"})
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "/proc/.cache" ||
		err.Error() != toolspec.MsgExecMirrorUnavailable(toolspec.MsgExecMirrorDefaultUnusable(pe.Error(), toolspec.MsgExecMirrorChoose)) {
		t.Errorf("Start: %v", err)
	}
	t.Setenv("HOME", "")
	if _, err = keyed.Start(t.Context(), execbackend.Request{Command: "true"}); err == nil || !strings.Contains(err.Error(), "no cache directory") {
		t.Errorf("Start without a cache directory: %v", err)
	}
	if _, err := execbackend.MirrorCache(); err == nil {
		t.Error("MirrorCache without a cache directory: no error")
	}
}

// Mirrors lists the default mirrors with the workspace each is for, its
// size and last use; RemoveMirror leaves one a command runs in, and a
// removed mirror is made again by the next command.
func TestMirrorsAndRemoveMirror(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root, err := execbackend.MirrorCache()
	if err != nil {
		t.Fatal(err)
	}
	if list, err := execbackend.Mirrors(root); err != nil || len(list) != 0 {
		t.Fatalf("Mirrors before any: %v %v", list, err)
	}
	ws := memWorkspace(t, map[string]string{"/workspace/a.txt": "0123456789"})
	mirrors := map[string]*execbackend.Mirror{}
	for _, key := range []string{"/one.db", "/two.db"} {
		m, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		mirrors[key] = m
		runToEnd(t, m, execbackend.Request{Command: "true"})
	}
	list, err := execbackend.Mirrors(root)
	if err != nil || len(list) != 2 {
		t.Fatalf("Mirrors: %+v %v", list, err)
	}
	// Least recently used first.
	if list[0].Key != "/one.db" || list[1].Key != "/two.db" || list[0].LastUsed.After(list[1].LastUsed) {
		t.Errorf("Mirrors: %+v", list)
	}
	for _, mi := range list {
		// The copy of a.txt and its base copy, at least.
		if mi.Size < 20 || mi.InUse || filepath.Dir(mi.Dir) != root {
			t.Errorf("Mirrors: %+v", mi)
		}
	}

	// A command runs in the first: it stays.
	run, err := mirrors["/one.db"].Start(t.Context(), execbackend.Request{Command: "sleep 100"})
	if err != nil {
		t.Fatal(err)
	}
	// Now used last, and in use.
	if now, _ := execbackend.Mirrors(root); len(now) != 2 || now[1].Key != "/one.db" || !now[1].InUse || now[0].InUse {
		t.Errorf("Mirrors while a command runs: %+v", now)
	}
	if err := execbackend.RemoveMirror(list[0].Dir); !errors.Is(err, execbackend.ErrMirrorInUse) {
		t.Errorf("RemoveMirror of the mirror in use: %v", err)
	}
	if err := execbackend.RemoveMirror(list[1].Dir); err != nil {
		t.Errorf("RemoveMirror: %v", err)
	}
	if err := run.Kill(); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := run.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == execbackend.Exit {
			break
		}
	}
	if after, _ := execbackend.Mirrors(root); len(after) != 1 || after[0].Dir != list[0].Dir {
		t.Errorf("Mirrors after a removal: %+v", after)
	}
	// The next command makes it again.
	if got := runToEnd(t, mirrors["/two.db"], execbackend.Request{Command: "cat a.txt"}); got.stdout != "0123456789" {
		t.Errorf("after a removal: stdout %q stderr %q", got.stdout, got.stderr)
	}
	if after, _ := execbackend.Mirrors(root); len(after) != 2 {
		t.Errorf("Mirrors: %+v", after)
	}
}

// Listing the mirrors writes nothing: a directory without a lock file
// (not in use) gets none.
func TestMirrorsWritesNothing(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root, err := execbackend.MirrorCache()
	if err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t, map[string]string{"/workspace/a.txt": "a"})
	m, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Key: "/one.db"})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, m, execbackend.Request{Command: "true"})
	stray := filepath.Join(root, "stray")
	if err := os.Mkdir(stray, 0o700); err != nil {
		t.Fatal(err)
	}
	list, err := execbackend.Mirrors(root)
	if err != nil || len(list) != 2 {
		t.Fatalf("Mirrors: %+v %v", list, err)
	}
	for _, mi := range list {
		if mi.InUse {
			t.Errorf("in use: %+v", mi)
		}
	}
	if entries, err := os.ReadDir(stray); err != nil || len(entries) != 0 {
		t.Errorf("Mirrors wrote in a directory it listed: %v %v", entries, err)
	}
}

// A command that starts while its mirror is being removed gets a mirror
// of its own, made again, not the one moved aside.
func TestMirrorStartsDuringARemoval(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ws := memWorkspace(t, map[string]string{"/workspace/a.txt": "a"})
	m, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Key: "/ws.db"})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, m, execbackend.Request{Command: "true"})
	root, _ := execbackend.MirrorCache()
	list, _ := execbackend.Mirrors(root)
	dir := list[0].Dir
	done := make(chan string)
	go func() {
		var out strings.Builder
		defer func() { done <- out.String() }()
		run, err := m.Start(t.Context(), execbackend.Request{Command: "pwd; cat a.txt"})
		if err != nil {
			out.WriteString(err.Error())
			return
		}
		for {
			ev, err := run.Next(t.Context())
			if err != nil || ev.Kind == execbackend.Exit {
				return
			}
			out.Write(ev.Data)
		}
	}()
	_ = execbackend.RemoveMirror(dir) // in use, or removed: either way the command runs in dir
	if got := <-done; got != filepath.Join(dir, "tree")+"\na" {
		t.Errorf("output %q", got)
	}
}
