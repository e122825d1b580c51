package golden_test

import (
	"testing"

	"github.com/agenttools/agenttools/internal/pgtest"
)

// TestMain stops the PostgreSQL server the pgfs conformance replay
// started, if it started one (internal/pgtest).
func TestMain(m *testing.M) {
	pgtest.Main(m)
}
