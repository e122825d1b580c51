package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// buildIn builds the command from the package directory pkg with the
// go build flags, into a temporary directory.
func buildIn(t *testing.T, pkg string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agenttools")
	cmd := osexec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	cmd.Dir = pkg
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %q: %v\n%s", flags, err, out)
	}
	return bin
}

// versionOfBinary runs bin --version and returns the version it prints,
// checking that its MCP server reports the same one.
func versionOfBinary(t *testing.T, bin string) string {
	t.Helper()
	out, err := osexec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("agenttools --version: %v", err)
	}
	v, ok := strings.CutPrefix(string(out), "agenttools ")
	if !ok || !strings.HasSuffix(v, "\n") || strings.Count(v, "\n") != 1 {
		t.Fatalf("agenttools --version printed %q, want one line: agenttools VERSION", out)
	}
	v = strings.TrimSuffix(v, "\n")

	// initialize, then the end of input: the server answers and exits.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, bin, "mcp", "--db", filepath.Join(t.TempDir(), "ws.db"))
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("agenttools mcp: %v", err)
	}
	var answer struct {
		Result struct {
			ServerInfo struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("initialize: %q: %v", out, err)
	}
	if got := answer.Result.ServerInfo; got.Name != "agenttools" || got.Version != v {
		t.Errorf("the MCP server reports %+v, want agenttools %q (what --version prints)", got, v)
	}
	return v
}

// TestVersion: --version prints the version of the build, and the MCP
// server reports the same: "(devel)" without version control
// information; built from a Git checkout, the pseudo-version naming its
// commit.
func TestVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	if got := versionOfBinary(t, buildIn(t, pkgDir, "-buildvcs=false")); got != "(devel)" {
		t.Errorf("built with -buildvcs=false: version %q, want (devel)", got)
	}

	// The source as it is, committed in a new repository (a worktree's
	// .git is a file, where go build finds no checkout).
	top, err := osexec.Command("git", "-C", pkgDir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a Git checkout:", err)
	}
	root := strings.TrimSpace(string(top))
	files, err := osexec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	for _, f := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not committed yet
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := osexec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-C", repo}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "--quiet")
	git("add", "-A")
	git("commit", "--quiet", "-m", "the source under test")
	rel, err := filepath.Rel(root, pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildIn(t, filepath.Join(repo, rel), "-buildvcs=true")
	got := versionOfBinary(t, bin)
	if rev := git("rev-parse", "HEAD")[:12]; !strings.HasPrefix(got, "v") || !strings.Contains(got, rev) || strings.HasSuffix(got, "+dirty") {
		t.Errorf("built from a clean checkout of %s: version %q, want a version naming the commit", rev, got)
	}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := versionOfBinary(t, buildIn(t, filepath.Join(repo, rel), "-buildvcs=true")); !strings.HasSuffix(got, "+dirty") {
		t.Errorf("built from a changed checkout: version %q, want one ending +dirty", got)
	}
}

// TestVersionOf: without a module version, the commit, its time and
// whether the checkout had changes.
func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "094c8b3d659776c92a09a37d5e1e117c4c42dde9"},
		{Key: "vcs.time", Value: "2026-11-30T20:58:59Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130205859-094c8b3d6597+dirty"}, Settings: vcs}, "v0.0.0-20261130205859-094c8b3d6597+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "(devel) 094c8b3d659776c92a09a37d5e1e117c4c42dde9 2026-11-30T20:58:59Z modified"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs[:3]}, "(devel) 094c8b3d659776c92a09a37d5e1e117c4c42dde9 2026-11-30T20:58:59Z"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
		{debug.BuildInfo{}, "(devel)"},
	} {
		if got := versionOf(&c.info); got != c.want {
			t.Errorf("versionOf(%v %v) = %q, want %q", c.info.Main.Version, c.info.Settings, got, c.want)
		}
	}
}
