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

// A pipe full of output is read in one call and its bytes are handed
// over with one event; a short read is sent as a copy of its length, so
// it holds no more memory than it read.
func TestReadTakesAFullPipeAtOnce(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	full := bytes.Repeat([]byte("0123456789abcdef"), readBytes/16) // what the pipe holds
	if _, err := pw.Write(full); err != nil {
		t.Fatal(err)
	}
	r := &hostRun{events: make(chan Event, 64), gone: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		r.read(pr, Stdout)
		close(done)
	}()
	if ev := <-r.events; !bytes.Equal(ev.Data, full) {
		t.Errorf("a full pipe gave %d bytes in its first event, want all %d", len(ev.Data), len(full))
	}
	short := []byte("short\n")
	if _, err := pw.Write(short); err != nil {
		t.Fatal(err)
	}
	if ev := <-r.events; !bytes.Equal(ev.Data, short) || cap(ev.Data) >= readBytes/2 {
		t.Errorf("a short read gave %d bytes %.40q (cap %d), want %q in a buffer of its size", len(ev.Data), ev.Data, cap(ev.Data), short)
	}
	pw.Close()
	<-done
}
