package core_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

func fileBytes(t testing.TB, ws *vfs.Workspace, p string) []byte {
	t.Helper()
	r, _, err := ws.Open(t.Context(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConcurrentEditsAllLand: 16 goroutines each apply a distinct edit to
// one file through the tool; every edit is in the file afterwards, on
// memory and on a host directory.
func TestConcurrentEditsAllLand(t *testing.T) {
	mem, _ := memTools(t)
	host, _ := hostTools(t)
	for name, ex := range map[string]*core.Executor{"memfs": mem, "hostfs": host} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for i := range 16 {
				fmt.Fprintf(&b, "line %02d: todo\n", i)
			}
			if out, err := ex.Call(t.Context(), "write", []byte(`{"path":"/workspace/shared.txt","content":`+toolspec.QuoteJSON(b.String())+`}`)); err != nil || out.IsError() {
				t.Fatalf("%s %v", out.JSON, err)
			}
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Go(func() {
					args := fmt.Sprintf(`{"path":"/workspace/shared.txt","edits":[{"oldText":"line %02d: todo","newText":"line %02d: done by %d"}]}`, i, i, i)
					out, err := ex.Call(t.Context(), "edit", []byte(args))
					if err != nil || out.IsError() {
						t.Errorf("edit %d: %s %v", i, out.JSON, err)
					}
				})
			}
			wg.Wait()
			got := string(fileBytes(t, ex.Workspace(), "/workspace/shared.txt"))
			for i := range 16 {
				if want := fmt.Sprintf("line %02d: done by %d\n", i, i); !strings.Contains(got, want) {
					t.Errorf("edit %d is missing:\n%s", i, got)
				}
			}
		})
	}
}

// TestFailedEditChangesNothing: every refusal leaves the file byte for
// byte as it was, and its mode too.
func TestFailedEditChangesNothing(t *testing.T) {
	ex, dir := hostTools(t)
	content := []byte("\xef\xbb\xbfalpha\r\nbeta\nalpha\ncaf\xe9\r\n")
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, content, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, edits := range []string{
		`[{"oldText":"delta","newText":"x"}]`,
		`[{"oldText":"alpha","newText":"A"}]`,
		`[{"oldText":"beta","newText":"B"},{"oldText":"","newText":"x"}]`,
		`[{"oldText":"beta\nalpha","newText":"X"},{"oldText":"alpha\ncaf","newText":"Y"}]`,
		`[{"oldText":"beta","newText":"beta"}]`,
		`[{"oldText":"caf\ufffd","newText":"coffee"}]`,
		`[{"oldText":"beta","newText":"B"},{"oldText":"nope","newText":"x"}]`,
	} {
		out, err := ex.Call(t.Context(), "edit", []byte(`{"path":"/workspace/f.txt","edits":`+edits+`}`))
		if err != nil || !out.IsError() {
			t.Errorf("edits %s: %s %v, want a refusal", edits, out.JSON, err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, content) {
			t.Fatalf("edits %s changed the file: %q", edits, got)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
			t.Fatalf("mode is now %v", st.Mode())
		}
	}
}

func TestEditKeepsModeAndFollowsLinks(t *testing.T) {
	ex, dir := hostTools(t)
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("run.sh", filepath.Join(dir, "ln.sh")); err != nil {
		t.Fatal(err)
	}
	out, err := ex.Call(t.Context(), "edit", []byte(`{"path":"/workspace/ln.sh","edits":[{"oldText":"echo a","newText":"echo b"}]}`))
	if err != nil || out.IsError() {
		t.Fatalf("%s %v", out.JSON, err)
	}
	st, err := os.Lstat(filepath.Join(dir, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "run.sh"))
	if st.Mode().Perm() != 0o755 || string(got) != "#!/bin/sh\necho b\n" {
		t.Errorf("run.sh: %v %q", st.Mode(), got)
	}
	if st, _ := os.Lstat(filepath.Join(dir, "ln.sh")); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
}

// twoMiB builds a 2 MiB source-like file whose last lines hold the
// targets, with typographic quotes on one for the fuzzy case.
func twoMiB() string {
	var b strings.Builder
	for i := 0; b.Len() < 2<<20-200; i++ {
		fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter, r *http.Request) { log.Println(%d) }\n", i, i)
	}
	b.WriteString("// it’s the “last” line\n")
	return b.String()
}

func benchmarkEdit(b *testing.B, oldText string) { benchmarkEditOf(b, twoMiB(), oldText) }

func benchmarkEditOf(b *testing.B, content, oldText string) {
	ex, _ := memTools(b)
	args := []byte(`{"path":"/workspace/big.go","edits":[{"oldText":` + toolspec.QuoteJSON(oldText) + `,"newText":"// changed"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := ex.Workspace().WriteFile(b.Context(), "/workspace/big.go", []byte(content), vfs.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		out, err := ex.Call(b.Context(), "edit", args)
		if err != nil || out.IsError() {
			b.Fatalf("%s %v", out.JSON, err)
		}
	}
}

// BenchmarkEditExact2MiB replaces one line of a 2 MiB file found exactly.
func BenchmarkEditExact2MiB(b *testing.B) { benchmarkEdit(b, "// it’s the “last” line") }

// BenchmarkEditFuzzy2MiB replaces the same line given with ASCII quotes,
// found by the normalized search over the whole file.
func BenchmarkEditFuzzy2MiB(b *testing.B) { benchmarkEdit(b, `// it's the "last" line`) }

// BenchmarkEditFuzzyCurly2MB is the bench driver's row
// edit-fuzzy-curly-quotes-2MB: 30000 lines, each with typographic quotes
// and a dash, one of them given with ASCII ones.
func BenchmarkEditFuzzyCurly2MB(b *testing.B) {
	var text strings.Builder
	for n := 1; n <= 30000; n++ {
		fmt.Fprintf(&text, "%d: he said “hello” and ‘bye’ – lorem ipsum dolor sit\n", n)
	}
	benchmarkEditOf(b, text.String(), `20000: he said "hello" and 'bye' - lorem`)
}
