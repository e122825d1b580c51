package core_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
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
