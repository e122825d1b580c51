package main

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// sandboxDir is hostDir, given to the sandbox's user when the test runs
// as root (the commands then run as execbackend.DefaultSandboxUser). It
// skips the test where the sandbox cannot run.
func sandboxDir(t *testing.T) string {
	t.Helper()
	testws.NeedSandbox(t)
	dir := hostDir(t)
	testws.SandboxBackend.Give(t, dir)
	return dir
}

// call --exec sandbox runs the command in the sandbox on --dir, and on
// the database through the mirror: its writes land in the workspace,
// and the host outside the workspace is out of its reach.
func TestCallInTheSandbox(t *testing.T) {
	dir := sandboxDir(t)
	outside := filepath.Join(filepath.Dir(dir), "outside.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "call", "--dir", dir, "--exec", "sandbox", "exec",
		`{"command":"pwd; cat a.txt; echo made > made.txt; cat /etc/shadow ../outside.txt 2>/dev/null || echo out-of-reach","cwd":"/workspace/sub"}`)
	var res toolspec.ExecResult
	if got.code != 0 || json.Unmarshal([]byte(got.stdout), &res) != nil {
		t.Fatalf("call: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	if res.Backend != toolspec.MsgExecSandboxBackendID || res.Stdout != "/workspace/sub\nout-of-reach\n" || !strings.Contains(res.Stderr, "a.txt") {
		t.Errorf("exec in the sandbox: %s", got.stdout)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "sub", "made.txt")); err != nil || string(data) != "made\n" {
		t.Errorf("the command's file on the host: %q, %v", data, err)
	}

	db := filepath.Join(t.TempDir(), "ws.db")
	mirror := filepath.Join(t.TempDir(), "mirror")
	got = runCLI(t, "", "call", "--db", db, "--mirror", mirror, "--exec", "sandbox", "exec", `{"command":"pwd && echo synced > m.txt"}`)
	if got.code != 0 || !strings.Contains(got.stdout, `"stdout":"/workspace\n"`) {
		t.Fatalf("exec on the database: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	if got := runCLI(t, "", "call", "--db", db, "read", `{"path":"/workspace/m.txt"}`); got.stdout != "synced\n" {
		t.Errorf("read of the command's file in the database: %q (stderr %q)", got.stdout, got.stderr)
	}
}

// A client that is gone leaves nothing of a sandboxed command running.
func TestMCPSandboxClientGone(t *testing.T) {
	dir := sandboxDir(t)
	s := startRaw(t, "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--exec", "sandbox")
	s.write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"setsid sleep 7999.125 & exec sleep 7999.25"}}}`))
	var watches []func(time.Duration) bool
	for _, arg := range []string{"7999.125", "7999.25"} {
		watches = append(watches, testws.Watch(t, waitForCommand(t, "sleep", arg)))
	}
	s.in.Close()
	if rest := s.waitExit(); len(rest) != 0 {
		t.Errorf("answered a client that is gone: %s", rest)
	}
	for i, exited := range watches {
		if !exited(time.Minute) {
			t.Errorf("process %d of the command outlived the server", i)
		}
	}
}

// waitForCommand returns the host pid of the process whose command line
// is name and arg, once there is one (a guard of a minute).
func waitForCommand(t *testing.T, name, arg string) int {
	t.Helper()
	want := name + "\x00" + arg + "\x00"
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(cmdline) == want {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond) // polling /proc for a process to start
	}
	t.Fatalf("no process %s %s started", name, arg)
	return 0
}

// tools --exec sandbox describes exec by the sandbox backend, with the
// network variant under --exec-network.
func TestToolsInTheSandbox(t *testing.T) {
	testws.NeedSandbox(t)
	for _, tt := range []struct {
		args []string
		text string
	}{
		{[]string{"tools", "--exec", "sandbox"}, toolspec.MsgExecSandboxBackend(toolspec.WorkspaceRoot)},
		{[]string{"tools", "--exec", "sandbox", "--exec-network"}, toolspec.MsgExecSandboxBackendNetwork(toolspec.WorkspaceRoot)},
	} {
		got := runCLI(t, "", tt.args...)
		var defs []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if got.code != 0 || json.Unmarshal([]byte(got.stdout), &defs) != nil || len(defs) != 8 {
			t.Fatalf("agenttools %q: exit %d, stdout %q, stderr %q", tt.args, got.code, got.stdout, got.stderr)
		}
		backends := []toolspec.ExecBackend{{ID: toolspec.MsgExecSandboxBackendID, Text: tt.text}}
		if want := toolspec.ExecDescription("", backends, toolspec.ExecMaxLinesDefault, toolspec.ExecMaxBytesDefault); defs[7].Description != want {
			t.Errorf("agenttools %q: exec's description %q, want %q", tt.args, defs[7].Description, want)
		}
	}
}

// A server killed outright (SIGKILL: no chance to clean up) leaves none
// of a sandboxed command's processes behind, whatever they did to get
// away: bwrap dies with its parent, and the kernel ends the command's
// PID namespace with it. (The host backend cannot promise this: with
// its server gone, nothing is left to kill a child that left the
// session; this test fails on it.)
func TestSandboxDiesWithTheServer(t *testing.T) {
	dir := sandboxDir(t)
	cmd := osexec.Command(agenttoolsBinary(t), "call", "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--exec", "sandbox", "exec",
		`{"command":"setsid sleep 7999.375 & (nohup sleep 7999.5 >/dev/null 2>&1 &) ; exec sleep 7999.625"}`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var watches []func(time.Duration) bool
	for _, arg := range []string{"7999.375", "7999.5", "7999.625"} {
		watches = append(watches, testws.Watch(t, waitForCommand(t, "sleep", arg)))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for i, exited := range watches {
		if !exited(time.Minute) {
			t.Errorf("process %d of the command outlived the killed server", i)
		}
	}
}

// As root, the sandboxed command runs as an unprivileged user: what the
// file tools make in --dir is given to that user, so the command can
// change it (before, "echo >> file" was refused).
func TestSandboxChangesWhatTheToolsMade(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only: elsewhere the tools and the command are one user")
	}
	dir := sandboxDir(t)
	args := []string{"call", "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir, "--exec", "sandbox"}
	if got := runCLI(t, "", append(args, "write", `{"path":"/workspace/made/by-tools.txt","content":"one\n"}`)...); got.code != 0 {
		t.Fatalf("write: exit %d, %q %q", got.code, got.stdout, got.stderr)
	}
	got := runCLI(t, "", append(args, "exec", `{"command":"echo two >> made/by-tools.txt && touch made/new.txt && cat made/by-tools.txt"}`)...)
	if got.code != 0 || !strings.Contains(got.stdout, `"exitCode":0,"stdout":"one\ntwo\n"`) {
		t.Errorf("the command changing what the tools made: exit %d, %q %q", got.code, got.stdout, got.stderr)
	}
}

// The MCP server's line says how exec runs, and a database inside --dir
// (which the sandbox's commands could read and change) is warned of.
func TestSandboxServerSaysHowExecRuns(t *testing.T) {
	dir := sandboxDir(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--exec", "sandbox"}, "exec (sandbox) over stdin"},
		{[]string{"--exec", "sandbox", "--exec-network"}, "exec (sandbox with the network) over stdin"},
		{[]string{"--exec", "host"}, "exec (host) over stdin"},
	} {
		got := runCLI(t, "", append([]string{"mcp", "--db", filepath.Join(t.TempDir(), "ws.db"), "--dir", dir}, tt.args...)...)
		if got.code != 0 || !strings.Contains(got.stderr, tt.want) || strings.Contains(got.stderr, "warning") {
			t.Errorf("mcp %q: exit %d, stderr %q, want %q in it", tt.args, got.code, got.stderr, tt.want)
		}
	}
	got := runCLI(t, "", "mcp", "--db", filepath.Join(dir, "inside.db"), "--dir", dir, "--exec", "sandbox")
	if !strings.Contains(got.stderr, "warning: the database "+filepath.Join(dir, "inside.db")+" is inside --dir") {
		t.Errorf("a database inside --dir: exit %d, stderr %q", got.code, got.stderr)
	}
}
