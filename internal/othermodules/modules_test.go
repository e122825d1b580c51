package othermodules_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/toolgen"
)

// TestModules runs go vet and go test ./... in every other module of the
// repository (with -short when this test has it, and -update when it
// has that), each with GOWORK=off: a workspace file would put the
// modules back in one build list, which is what keeps them apart. The
// first run downloads those modules' own requirements (anthropic-sdk-go)
// through the module proxy, as go test does for the main module's.
func TestModules(t *testing.T) {
	root := goldentest.ModuleRoot(t)
	modules := goldentest.OtherModules(t, root)
	for _, a := range toolgen.AdapterTargets {
		if a.Module != "" && !slices.Contains(modules, a.Module) {
			t.Errorf("adapter %s names its module %s, which has no go.mod", a.Dir, a.Module)
		}
	}
	for _, dir := range modules {
		if slices.Contains(goldentest.TestedElsewhere, dir) {
			continue
		}
		t.Run(strings.ReplaceAll(dir, "/", "_"), func(t *testing.T) {
			goCmd(t, filepath.Join(root, dir), "vet", "./...")
			args := []string{"test"}
			if testing.Short() {
				args = append(args, "-short")
			}
			args = append(args, "./...")
			if *goldentest.Update {
				args = append(args, "-update")
			}
			goCmd(t, filepath.Join(root, dir), args...)
		})
	}
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in %s: go %s: %v\n%s", dir, strings.Join(args, " "), err, out)
	}
	t.Logf("in %s: go %s\n%s", dir, strings.Join(args, " "), out)
}
