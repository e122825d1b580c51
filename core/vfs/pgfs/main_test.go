package pgfs_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/agenttools/agenttools/internal/pgtest"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// helperEnv names, in the environment of the test binary run again as
// a helper process, the role it plays (a key of roles).
const helperEnv = "PGFS_TEST_ROLE"

// roles are what the test binary does when run again as a helper
// process; the tests that start helpers add theirs in an init function.
var roles = map[string]func() error{}

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		fn, ok := roles[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "no helper role %q\n", role)
			os.Exit(2)
		}
		if err := fn(); err != nil {
			fmt.Fprintf(os.Stderr, "helper %s: %v\n", role, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	pgtest.Main(m)
}
