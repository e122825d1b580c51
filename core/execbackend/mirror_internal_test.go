package execbackend

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The mirror's lock is held across processes: a second taker (here a
// second open of the lock file, which flock treats as another process)
// waits until the first lets go.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := lockDir(short, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second taker got the held lock: %v", err)
	}
	unlock()
	again, err := lockDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	again()
}
