package sqlitefs_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/vfs"
)

// While an Update's fn works (an edit matching thousands of entries over
// megabytes can take seconds), the database's write lock is free:
// another connection to the file, as another process would hold, writes
// at once instead of waiting for the lock and failing with "workspace
// database is locked".
func TestUpdateHoldsNoWriteLockWhileFnRuns(t *testing.T) {
	s, path := openStore(t)
	other := reopen(t, path)
	write(t, s, "f", []byte("old"))
	err := s.Update(t.Context(), "f", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) {
		done := make(chan error, 1)
		go func() { done <- other.WriteFile(t.Context(), "g", bytes.NewReader([]byte("other")), 0o644) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("another connection's write while fn ran: %v", err)
			}
		case <-time.After(time.Minute):
			t.Error("another connection's write waited for a minute while fn ran")
		}
		return []byte("new"), nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := string(read(t, s, "f", 0)); got != "new" {
		t.Errorf("f = %q, want new", got)
	}
	if got := string(read(t, s, "g", 0)); got != "other" {
		t.Errorf("g = %q, want other", got)
	}
}
