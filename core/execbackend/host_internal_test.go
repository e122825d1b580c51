package execbackend

import (
	"bytes"
	"os"
	"testing"
	"time"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// Once the linger is over, a reader still takes what the pipe holds: the
// last output of the exited process, which a reader that ran late finds
// waiting there after the deadline.
func TestReadAfterDeadlineDrainsThePipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()                                       // open: a background child still holds it
	want := bytes.Repeat([]byte("0123456789abcdef"), 3000) // 48,000 bytes: fits the pipe
	if _, err := pw.Write(want); err != nil {
		t.Fatal(err)
	}
	if err := pr.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	r := &hostRun{events: make(chan Event, 64), gone: make(chan struct{})}
	r.read(pr, Stdout) // returns: nothing more without waiting
	close(r.events)
	var got []byte
	for ev := range r.events {
		if ev.Kind != Stdout {
			t.Fatalf("event %+v", ev)
		}
		got = append(got, ev.Data...)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("read %d bytes of %d", len(got), len(want))
	}
}
