//go:build unix

package core_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agenttools/agenttools/core"
)

// hostileBytes is n bytes of random binary: invalid UTF-8, NULs, CRs
// and CRLFs, long lines and short ones.
func hostileBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, 0, n+8)
	for len(b) < n {
		switch r.IntN(6) {
		case 0:
			b = append(b, '\r')
		case 1:
			b = append(b, "\r\n"...)
		case 2:
			b = append(b, 0xff, 0xc3, '\n')
		case 3:
			b = append(b, "é€😀"[:1+r.IntN(9)]...)
		default:
			for range r.IntN(300) {
				b = append(b, byte(r.Uint32()))
			}
		}
	}
	return b[:n]
}

// TestExecSavesTheBytesPrinted runs, on the host, commands that print
// megabytes of random binary to stdout and stderr at once: the saved
// output files hold exactly the bytes each stream printed, on an
// output directory in memory and on the host, whatever the pipe's
// reads (handed over, not copied) were.
func TestExecSavesTheBytesPrinted(t *testing.T) {
	for _, onDisk := range []bool{false, true} {
		t.Run(fmt.Sprint("onDisk=", onDisk), func(t *testing.T) {
			ex, _ := hostExec(t, core.Options{}, onDisk)
			ctx := t.Context()
			src := t.TempDir()
			out, errOut := hostileBytes(1, 5<<20+17), hostileBytes(2, 3<<20+5)
			for name, b := range map[string][]byte{"out": out, "err": errOut} {
				if err := os.WriteFile(filepath.Join(src, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for run, cmd := range []string{
				fmt.Sprintf("cat %s/out & cat %s/err >&2; wait", src, src),
				// Reads of every length: dd's small writes.
				fmt.Sprintf("dd if=%s/out bs=777 status=none & dd if=%s/err bs=31 status=none >&2; wait", src, src),
			} {
				execResult(t, ctx, ex, argsJSON(t, map[string]any{"command": cmd}))
				for stream, want := range map[string][]byte{"stdout": out, "stderr": errOut} {
					f, _, err := ex.Workspace().Open(ctx, fmt.Sprintf("/.computer/output/host.exec-%d.%s.log", run+1, stream), 0)
					if err != nil {
						t.Fatal(err)
					}
					got, err := io.ReadAll(f)
					f.Close()
					if err != nil || !bytes.Equal(got, want) {
						i := 0
						for i < min(len(got), len(want)) && got[i] == want[i] {
							i++
						}
						t.Errorf("%s: saved %s is %d bytes (%v), want %d; first difference at %d", cmd, stream, len(got), err, len(want), i)
					}
				}
			}
		})
	}
}

// TestExecCancelledReadWhileRunning reads a host command's saved
// output while it runs, once it printed megabytes of random binary, then
// cancels it: what is read is a prefix of what was printed, the call
// ends with context.Canceled, its files are removed, and the next
// command's output is saved byte for byte (no chunk of the abandoned
// run is reused under it).
func TestExecCancelledReadWhileRunning(t *testing.T) {
	for _, onDisk := range []bool{false, true} {
		t.Run(fmt.Sprint("onDisk=", onDisk), func(t *testing.T) {
			ex, _ := hostExec(t, core.Options{}, onDisk)
			src := t.TempDir()
			out := hostileBytes(3, 3<<20+1)
			if err := os.WriteFile(filepath.Join(src, "out"), out, 0o644); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(src, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), guard)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := ex.Call(ctx, "exec", []byte(argsJSON(t, map[string]any{"command": fmt.Sprintf("cat %s/out; echo > %s; exec sleep 1000", src, fifo)})))
				done <- err
			}()
			// The command printed all of out once it opens the FIFO.
			f, err := os.Open(fifo)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadAll(f)
			f.Close()
			const saved = "/.computer/output/host.exec-1.stdout.log"
			if r, _, err := ex.Workspace().Open(t.Context(), saved, 0); err == nil {
				got, err := io.ReadAll(r)
				r.Close()
				if err != nil || !bytes.HasPrefix(out, got) {
					t.Errorf("saved stdout read while running: %d bytes (%v), not a prefix of the printed", len(got), err)
				}
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled exec returned %v, want context.Canceled", err)
			}
			if _, err := ex.Workspace().Lstat(t.Context(), saved); err == nil {
				t.Errorf("the cancelled run's output file %s is left", saved)
			}
			execResult(t, t.Context(), ex, argsJSON(t, map[string]any{"command": fmt.Sprintf("cat %s/out", src)}))
			r, _, err := ex.Workspace().Open(t.Context(), "/.computer/output/host.exec-2.stdout.log", 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, out) {
				t.Errorf("the next run's saved stdout: %d bytes (%v), want the %d printed", len(got), err, len(out))
			}
		})
	}
}
