package pgfs

import (
	"time"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// SetBatching sets how many nodes a subtree read in one statement may
// hold and how many bytes of small files' content one more statement
// brings, until the function it returns puts them back.
func SetBatching(nodes int, budget int64) (restore func()) {
	n, b := subtreeMax, headBudget
	subtreeMax, headBudget = nodes, budget
	return func() { subtreeMax, headBudget = n, b }
}

// SetConnectTimeout sets the default bound of the making of a
// connection until the function it returns puts it back.
func SetConnectTimeout(d time.Duration) (restore func()) {
	old := connectTimeout
	connectTimeout = d
	return func() { connectTimeout = old }
}
