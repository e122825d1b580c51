package execbackend

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agenttools/agenttools/toolspec"
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

// The note on nodes a sync passed over gives the first reasons, joined,
// and counts the rest, as the spec words it.
func TestSkipsNote(t *testing.T) {
	var k skips
	if k.err() != nil {
		t.Fatalf("nothing passed over: %v", k.err())
	}
	for i := range skipReasons + 2 {
		k.add("n", errors.New("reason "+string(rune('a'+i))))
	}
	want := "reason a" + toolspec.MsgExecMirrorReasonSeparator + "reason b" + toolspec.MsgExecMirrorReasonSeparator + "reason c" + toolspec.MsgExecMirrorReasonsMore(2)
	if got := k.err().Error(); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}
