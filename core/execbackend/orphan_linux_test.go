package execbackend_test

import (
	"context"
	"testing"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/internal/testws"
)

// A process that left the run's session and whose parent is gone (a
// double fork with setsid, as a daemon does) does not outlive the run:
// not when the run is killed, and not when its shell exits. With a
// cgroup and without one (then it is found by the run's RunEnv mark).
func TestOrphanDoesNotOutliveTheRun(t *testing.T) {
	// The shell goes on once the orphan is in its own session (it wrote
	// to ready) and its parent (the subshell) is reaped.
	const orphan = `exec 3>fifo; mkfifo ready; (setsid sh -c 'echo > ready; exec sleep 100' &); read _ < ready; echo started; `
	forEachBackend(t, func(t *testing.T, b testws.Backend) {
		for _, cgroup := range []bool{true, false} {
			for _, end := range []string{"kill", "exit"} {
				name := end
				if !cgroup {
					name += " without cgroup"
				}
				t.Run(name, func(t *testing.T) {
					h, gone := fifoHost(t, b)
					if !cgroup {
						execbackend.WithoutCgroup(h)
					}
					if end == "kill" {
						ctx, stop := context.WithTimeout(t.Context(), hang)
						defer stop()
						startAndKill(t, ctx, h, orphan+"sleep 100")
					} else if got := runToEnd(t, h, execbackend.Request{Command: orphan}); got.stdout != "started\n" || got.exit.Code != 0 {
						t.Errorf("stdout %q exit %d", got.stdout, got.exit.Code)
					}
					waitGone(t, gone, "an orphan in a session of its own outlived the run (confinement %v)", h.Confinement())
				})
			}
		}
	})
}

// Every run's command gets RunEnv, with a value of its own that the
// request's Env does not change.
func TestRunEnvMarksEachRun(t *testing.T) {
	forEachBackend(t, testRunEnvMarksEachRun)
}

func testRunEnvMarksEachRun(t *testing.T, b testws.Backend) {
	ws, _ := b.Workspace(t)
	h := b.NewHost(t, ws, execbackend.HostOptions{})
	var marks []string
	for range 2 {
		got := runToEnd(t, h, execbackend.Request{Command: `printf %s "$` + execbackend.RunEnv + `"`, Env: map[string]string{execbackend.RunEnv: "mine"}})
		if len(got.stdout) != 32 {
			t.Fatalf("%s = %q", execbackend.RunEnv, got.stdout)
		}
		marks = append(marks, got.stdout)
	}
	if marks[0] == marks[1] {
		t.Errorf("two runs share the mark %s", marks[0])
	}
}

// BenchmarkHostRun runs `true` to its end: the cost of starting,
// confining and sweeping a run, with a cgroup of its own where one can be
// made and without (its session and mark are then looked for in /proc).
func BenchmarkHostRun(b *testing.B) {
	for _, cgroup := range []bool{true, false} {
		name := "cgroup"
		if !cgroup {
			name = "session"
		}
		b.Run(name, func(b *testing.B) {
			ws, _ := host.Workspace(b)
			h := host.NewHost(b, ws, execbackend.HostOptions{})
			if !cgroup {
				execbackend.WithoutCgroup(h)
			}
			runTrue(b, h)
		})
	}
}

// BenchmarkTrivialCommand runs `true` to its end on the host backend and
// in the sandbox: beside each other, the sandbox's overhead per command
// (bwrap's namespaces and mounts, prlimit, and setpriv as root).
func BenchmarkTrivialCommand(b *testing.B) {
	for _, be := range testws.Backends {
		b.Run(be.Name, func(b *testing.B) {
			if be.Sandbox {
				testws.NeedSandbox(b)
			}
			ws, _ := be.Workspace(b)
			runTrue(b, be.NewHost(b, ws, execbackend.HostOptions{}))
		})
	}
}

// runTrue runs `true` on h to its exit, b.N times.
func runTrue(b *testing.B, h *execbackend.Host) {
	for b.Loop() {
		run, err := h.Start(b.Context(), execbackend.Request{Command: "true"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			ev, err := run.Next(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if ev.Kind == execbackend.Exit {
				if ev.Code != 0 {
					b.Fatalf("exit %d", ev.Code)
				}
				break
			}
		}
	}
}
