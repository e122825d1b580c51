package pgfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/vfs/storetest"
	"github.com/agenttools/agenttools/internal/pgtest"
)

// meetingReader yields size bytes of b; once it has yielded half of
// them it closes started and waits until other is closed (the other
// writer's reader has started too) and then until go_ is closed,
// failing when ctx ends first.
type meetingReader struct {
	ctx            context.Context
	b              byte
	n, size        int
	met            bool
	started, other chan struct{}
	go_            <-chan struct{}
}

func (r *meetingReader) Read(p []byte) (int, error) {
	if r.n >= r.size/2 && !r.met {
		r.met = true
		close(r.started)
		for _, c := range []<-chan struct{}{r.other, r.go_} {
			select {
			case <-c:
			case <-r.ctx.Done():
				return 0, fmt.Errorf("reader %c: %w", r.b, r.ctx.Err())
			}
		}
	}
	if r.n == r.size {
		return 0, io.EOF
	}
	n := copy(p, bytes.Repeat([]byte{r.b}, min(len(p), 64<<10, r.size-r.n)))
	r.n += n
	return n, nil
}

// TestStreamsDoNotStarvePool: on a pool of one connection, two large
// writes whose content comes slowly (a command's stdout and stderr,
// saved as it prints them) are both in flight at once, each reader
// waiting until the other has started, while a Lstat and a read of the
// same FS answer; then both complete with their content.
func TestStreamsDoNotStarvePool(t *testing.T) {
	u, err := url.Parse(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	f := open(t, u.String(), "w")
	if err := f.Mkdir(t.Context(), "workspace/out", 0o755); err != nil {
		t.Fatal(err)
	}
	storetest.WriteFile(t, f, "workspace/small", []byte("small"), 0o644)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const size = 3 << 20
	startedA, startedB, checked := make(chan struct{}), make(chan struct{}), make(chan struct{})
	readers := []*meetingReader{
		{ctx: ctx, b: 'A', size: size, started: startedA, other: startedB, go_: checked},
		{ctx: ctx, b: 'B', size: size, started: startedB, other: startedA, go_: checked},
	}
	errs := make([]error, len(readers))
	var wg sync.WaitGroup
	for i, r := range readers {
		wg.Go(func() { errs[i] = f.WriteFile(ctx, fmt.Sprintf("workspace/out/%c", r.b), r, 0o644) })
	}
	for _, c := range []chan struct{}{startedA, startedB} {
		select {
		case <-c:
		case <-ctx.Done():
			close(checked)
			wg.Wait()
			t.Fatalf("the two streamed writes were never in flight at once: %v", errs)
		}
	}
	// Both writes are in their COPY, their readers blocked.
	info, err := f.Lstat(ctx, "workspace/small")
	if err != nil || info.Size != 5 {
		t.Errorf("Lstat while two streams are in flight: %+v, %v", info, err)
	}
	if r, err := f.Open(ctx, "workspace/small", 0); err != nil {
		t.Errorf("Open while two streams are in flight: %v", err)
	} else {
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != "small" {
			t.Errorf("read while two streams are in flight: %q, %v", got, err)
		}
	}
	close(checked)
	wg.Wait()
	for i, r := range readers {
		if errs[i] != nil {
			t.Errorf("write %c: %v", r.b, errs[i])
			continue
		}
		got := storetest.ReadFile(t, f, fmt.Sprintf("workspace/out/%c", r.b), 0)
		if !bytes.Equal(got, bytes.Repeat([]byte{r.b}, size)) {
			t.Errorf("write %c left %d bytes, not the ones written", r.b, len(got))
		}
	}
}
