package core_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// The cross-process harness: real processes (this test binary, run again
// in a role) share one workspace, a host directory or an SQLite
// database, as agenttools processes do. Writers each apply chained edits
// to their own line of one file; an exec process runs commands beside
// them. At the end every edit a writer was told had succeeded must be in
// the file.
//
// By default each writer makes editsPerWriter edits. With
// AGENTTOOLS_SOAK set to a duration (go test -run TestNoAcknowledgedEditIsLost
// ./core with AGENTTOOLS_SOAK=60s), the writers of each run go on until
// that much time has passed.

// roleEnv names a helper process's role and parameters (JSON).
const roleEnv = "AGENTTOOLS_TEST_ROLE"

const (
	writers        = 4
	editsPerWriter = 25
)

// role is what a helper process is asked to do.
type role struct {
	Kind   string    // "writer" or "exec"
	Store  string    // "hostfs" or "sqlitefs"
	Where  string    // the host directory, or the database
	Mirror string    // the exec mirror directory (sqlitefs)
	K      int       // the writer's number
	Edits  int       // edits to make, unless Until is set
	Until  time.Time // keep editing until then
}

// The workspace file the writers and the exec process change: a line per
// writer and one for exec, with lines between them so that changes to
// two of them never touch neighbouring lines.
const sharedFile = "/workspace/counters.txt"

func counterLine(k, n int) string { return fmt.Sprintf("counter %d: %d\n", k, n) }

func execLine(n int) string { return fmt.Sprintf("exec: %d\n", n) }

func initialCounters() string {
	var b strings.Builder
	for k := range writers {
		b.WriteString(counterLine(k, 0) + "--\n")
	}
	b.WriteString(execLine(0))
	return b.String()
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(roleEnv); spec != "" {
		var r role
		if err := json.Unmarshal([]byte(spec), &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := r.run(); err != nil {
			fmt.Fprintln(os.Stderr, r.Kind, r.K, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// open opens the workspace as agenttools does: the database, or memory
// with the host directory at /workspace.
func (r role) open() (*vfs.Workspace, func(), error) {
	ctx := context.Background()
	if r.Store == "sqlitefs" {
		db, err := sqlitefs.Open(r.Where)
		if err != nil {
			return nil, nil, err
		}
		return vfs.New(db), func() { db.Close() }, nil
	}
	host, err := hostfs.Open(r.Where)
	if err != nil {
		return nil, nil, err
	}
	ws := vfs.New(memfs.New())
	if err := ws.Mount(ctx, toolspec.WorkspaceRoot, host, vfs.MountOptions{}); err != nil {
		return nil, nil, err
	}
	return ws, func() { host.Close() }, nil
}

func (r role) run() error {
	ws, done, err := r.open()
	if err != nil {
		return err
	}
	defer done()
	var opts core.Options
	if r.Kind == "exec" {
		var backend execbackend.Backend
		if r.Store == "sqlitefs" {
			backend, err = execbackend.NewMirror(ws, execbackend.MirrorOptions{Mirror: r.Mirror})
		} else {
			backend, err = execbackend.NewHost(ws, execbackend.HostOptions{})
		}
		if err != nil {
			return err
		}
		opts.Backends = []execbackend.Backend{backend}
	}
	ex, err := core.New(ws, opts)
	if err != nil {
		return err
	}
	if r.Kind == "exec" {
		return r.execs(ex)
	}
	return r.edits(ex)
}

// edits makes the writer's chained edits, printing "ack K N" for every
// edit it was told succeeded. An edit refused because the file kept
// changing (updateConflict) is tried again.
func (r role) edits(ex *core.Executor) error {
	ctx := context.Background()
	retries := 0
	for n := 0; r.Until.IsZero() && n < r.Edits || !r.Until.IsZero() && time.Now().Before(r.Until); {
		args, _ := json.Marshal(map[string]any{"path": sharedFile, "edits": []map[string]string{{"oldText": counterLine(r.K, n), "newText": counterLine(r.K, n+1)}}})
		out, err := ex.Call(ctx, "edit", args)
		if err != nil {
			return err
		}
		if out.IsError() {
			if strings.Contains(string(out.JSON), "kept changing") {
				retries++
				continue
			}
			return fmt.Errorf("edit %d: %s", n, out.JSON)
		}
		n++
		fmt.Printf("ack %d %d\n", r.K, n)
	}
	fmt.Printf("retries %d\n", retries)
	return nil
}

// execs runs commands until stdin ends, printing "exec ok" for each
// that exited 0 with no note on stderr (its change is in the workspace)
// and "exec note" for one whose change was kept aside. On the database
// each command increments the exec line of the shared file, as a build
// tool rewriting a file would; on a host directory (where commands are
// other programs, which nothing can stop from overwriting a file) they
// work beside it: other files, and reads of it.
func (r role) execs(ex *core.Executor) error {
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	command := `n=$(sed -n 's/^exec: //p' counters.txt) && sed -i "s/^exec: $n\$/exec: $((n+1))/" counters.txt`
	if r.Store == "hostfs" {
		command = `cat counters.txt > /dev/null && echo $$ >> other.txt && mkdir -p d && echo x > d/f$$ && rm d/f$$ && ls > /dev/null`
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		out, err := ex.Call(context.Background(), "exec", args)
		if err != nil {
			return err
		}
		var res struct {
			ExitCode *int   `json:"exitCode"`
			Stderr   string `json:"stderr"`
		}
		if err := json.Unmarshal(out.JSON, &res); err != nil {
			return fmt.Errorf("%v: %s", err, out.JSON)
		}
		switch {
		case res.ExitCode == nil || *res.ExitCode != 0:
			return fmt.Errorf("exec: %s", out.JSON)
		case res.Stderr != "":
			fmt.Printf("exec note %q\n", res.Stderr)
		default:
			fmt.Println("exec ok")
		}
	}
}

// spawn starts a helper process in role r; its stdout lines go to lines.
func spawn(t *testing.T, ctx context.Context, r role) (*osexec.Cmd, io.WriteCloser, *[]string, *sync.WaitGroup) {
	t.Helper()
	spec, _ := json.Marshal(r)
	var stderr strings.Builder
	cmd, stdin, stdout := testws.StartSelf(t, ctx, []string{roleEnv + "=" + string(spec)}, &stderr)
	var lines []string
	var wg sync.WaitGroup
	wg.Go(func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
	})
	t.Cleanup(func() {
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("%s %d stderr:\n%s", r.Kind, r.K, stderr.String())
		}
	})
	return cmd, stdin, &lines, &wg
}

// TestNoAcknowledgedEditIsLost runs the harness on a host directory and
// on a database, with and without an exec process.
func TestNoAcknowledgedEditIsLost(t *testing.T) {
	var soak time.Duration
	if s := os.Getenv("AGENTTOOLS_SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("AGENTTOOLS_SOAK: %v", err)
		}
		soak = d
	}
	for _, store := range []string{"hostfs", "sqlitefs"} {
		for _, withExec := range []bool{false, true} {
			name := store
			if withExec {
				name += "+exec"
			}
			t.Run(name, func(t *testing.T) {
				var until time.Time
				if soak > 0 {
					until = time.Now().Add(soak)
				}
				harness(t, store, withExec, until)
			})
		}
	}
}

func harness(t *testing.T, store string, withExec bool, until time.Time) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	base := role{Store: store, Edits: editsPerWriter, Until: until}
	if store == "sqlitefs" {
		base.Where, base.Mirror = filepath.Join(tmp, "ws.db"), filepath.Join(tmp, "mirror")
	} else {
		base.Where = filepath.Join(tmp, "dir")
		if err := os.Mkdir(base.Where, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, done, err := base.open()
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(ctx, sharedFile, []byte(initialCounters()), vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
	done()

	start := time.Now()
	var execCmd *osexec.Cmd
	var execIn io.WriteCloser
	var execOut *[]string
	var execWG *sync.WaitGroup
	if withExec {
		r := base
		r.Kind = "exec"
		execCmd, execIn, execOut, execWG = spawn(t, ctx, r)
	}
	type proc struct {
		cmd   *osexec.Cmd
		lines *[]string
		wg    *sync.WaitGroup
	}
	var procs []proc
	for k := range writers {
		r := base
		r.Kind, r.K = "writer", k
		cmd, stdin, lines, wg := spawn(t, ctx, r)
		stdin.Close()
		procs = append(procs, proc{cmd, lines, wg})
	}
	acked := make([]int, writers)
	retries := 0
	for k, p := range procs {
		p.wg.Wait()
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v", k, err)
		}
		for _, l := range *p.lines {
			if v, ok := strings.CutPrefix(l, "retries "); ok {
				n, _ := strconv.Atoi(v)
				retries += n
				continue
			}
			var kk, n int
			if _, err := fmt.Sscanf(l, "ack %d %d", &kk, &n); err == nil && kk == k {
				acked[k] = n
			}
		}
	}
	execOK, execNotes := 0, 0
	if withExec {
		execIn.Close()
		execWG.Wait()
		if err := execCmd.Wait(); err != nil {
			t.Errorf("exec process: %v", err)
		}
		notes := map[string]bool{}
		for _, l := range *execOut {
			if l == "exec ok" {
				execOK++
			} else if note, ok := strings.CutPrefix(l, "exec note "); ok {
				execNotes++
				if len(notes) < 3 && !notes[note] {
					notes[note] = true
					t.Logf("a command's note: %s", note)
				}
			}
		}
	}
	elapsed := time.Since(start)

	ws, done, err = base.open()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	r, _, err := ws.Open(ctx, sharedFile, 0)
	if err != nil {
		t.Fatal(err)
	}
	final, _ := io.ReadAll(r)
	r.Close()
	total := 0
	for k := range writers {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^counter %d: (\d+)$`, k)).FindSubmatch(final)
		got := -1
		if m != nil {
			got, _ = strconv.Atoi(string(m[1]))
		}
		if got != acked[k] {
			t.Errorf("writer %d was told %d edits succeeded; the file says %d", k, acked[k], got)
		}
		total += acked[k]
	}
	if withExec && store == "sqlitefs" {
		m := regexp.MustCompile(`(?m)^exec: (\d+)$`).FindSubmatch(final)
		got := -1
		if m != nil {
			got, _ = strconv.Atoi(string(m[1]))
		}
		if got != execOK {
			t.Errorf("%d commands changed the exec line and were synced back; the file says %d", execOK, got)
		}
	}
	t.Logf("%s: %d writer processes, %d acknowledged edits (%v), all present; %d retries after updateConflict; exec: %d commands synced, %d with a note; %v",
		store, writers, total, acked, retries, execOK, execNotes, elapsed.Round(time.Millisecond))
	if total == 0 {
		t.Error("no edit was acknowledged")
	}
}
