package core

import (
	"context"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/agenttools/agenttools/core/vfs"
)

// A grep of a tree reads and searches its files on all cores while the
// page is filled in walk order: the walk (in the calling goroutine)
// lists the directories and queues each file; workers open the queued
// files (through the directory's handle, see vfs.Dir.OpenLater, so that
// the walk does no more than list) and search them, each
// keeping the lines it would show (matches and their context) up to
// what a page can take; the caller takes the files' lines into the page
// in walk order, exactly as if it had searched them one after another.
// A file whose lines outgrow what may be kept goes on line by line, its
// worker handing each line to the caller once the file's turn comes.
//
// The walk runs ahead of the page by a window of files that starts at
// none (a search whose first files fill the page opens no more than it
// needs, and searches them in the calling goroutine) and doubles with
// each file that adds nothing to the page.

// grepAheadMax is the most files a tree grep searches ahead of the page.
const grepAheadMax = 1 << 16

// grepHeldMax is the most bytes of line text the workers keep for files
// the page has not reached yet (beyond, they hand lines over one by one).
const grepHeldMax = 32 << 20

// grepJob is one file of a tree grep.
type grepJob struct {
	shown string
	open  func() (io.ReadCloser, error) // nil once the worker has it
	err   error                         // opening or searching failed

	lines []grepLine    // what the search showed, in order
	held  int64         // bytes of text in lines
	ready chan struct{} // closed when lines are final or handed over

	// Once handing over: each further line, and the caller's answer
	// (whether to go on); lineCh is closed when the search ended.
	handing bool
	lineCh  chan grepLine
	ack     chan bool
}

// grepPool searches queued files on workers.
type grepPool struct {
	ctx     context.Context // cancelled when the tree grep ends
	cancel  context.CancelFunc
	plan    *grepPlan
	context int64
	maxLine int
	chunk   int
	keepMax int64 // matches worth keeping per file: offset + limit
	jobs    chan *grepJob
	wg      sync.WaitGroup
	held    atomic.Int64
}

func newGrepPool(ctx context.Context, plan *grepPlan, contextLines int64, maxLine, chunk int, keepMax int64) *grepPool {
	workers := min(runtime.GOMAXPROCS(0), 8)
	p := &grepPool{plan: plan, context: contextLines, maxLine: maxLine, chunk: chunk, keepMax: keepMax,
		jobs: make(chan *grepJob, 2*workers)}
	p.ctx, p.cancel = context.WithCancel(ctx)
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// work searches queued files until the queue is closed.
func (p *grepPool) work() {
	defer p.wg.Done()
	var sc *lineScanner
	defer func() {
		if sc != nil {
			sc.release()
		}
	}()
	for j := range p.jobs {
		if sc == nil {
			sc = newLineScanner(p.plan, p.context, p.maxLine, p.chunk)
		}
		p.search(sc, j)
	}
}

// search searches one queued file.
func (p *grepPool) search(sc *lineScanner, j *grepJob) {
	open := j.open
	j.open = nil
	r, err := open()
	if err != nil {
		j.err = err
		close(j.ready)
		return
	}
	defer r.Close()
	matches := int64(0)
	j.err = sc.scan(p.ctx, r, func(l grepLine) bool {
		if !j.handing {
			j.lines = append(j.lines, l)
			n := int64(len(l.text))
			j.held += n
			if l.isMatch {
				matches++
			}
			if p.held.Add(n) > grepHeldMax || matches >= p.keepMax {
				j.handing = true
				j.lineCh, j.ack = make(chan grepLine), make(chan bool)
				close(j.ready)
			}
			return true
		}
		select {
		case j.lineCh <- l:
			return <-j.ack
		case <-p.ctx.Done():
			return false
		}
	})
	if j.handing {
		close(j.lineCh)
	} else {
		close(j.ready)
	}
}

// submit queues a file for a worker to open (open is called once,
// whatever happens) and search.
func (p *grepPool) submit(shown string, open func() (io.ReadCloser, error)) *grepJob {
	j := &grepJob{shown: shown, open: open, ready: make(chan struct{})}
	p.jobs <- j
	return j
}

// take feeds a finished (or handing over) file into the page and
// reports whether the search is complete.
func (p *grepPool) take(s *scan, j *grepJob) (bool, error) {
	<-j.ready
	defer p.held.Add(-j.held)
	f := &fileScan{shown: j.shown}
	more := true
	for _, l := range j.lines {
		if more = s.feed(f, l); !more {
			break
		}
	}
	if j.handing {
		for l := range j.lineCh {
			more = more && s.feed(f, l)
			j.ack <- more
		}
	}
	if j.err != nil && more {
		// The search failed after the lines the page took: it would
		// have failed here (a page that stopped earlier never reads
		// that far).
		return false, j.err
	}
	return s.finish(f), nil
}

// close stops the workers, ending the searches of the files the page
// did not take, and waits for them.
func (p *grepPool) close() {
	p.cancel()
	close(p.jobs)
	p.wg.Wait()
}

// grepTree searches the files below the directory loc that the walk
// visits (include, exclude), filling s in walk order, with plan.
func (e *Executor) grepTree(ctx context.Context, loc vfs.Location, include string, exclude []string, plan *grepPlan, maxLine, chunk int, s *scan) error {
	var pool *grepPool // started once the walk may run ahead
	defer func() {
		if pool != nil {
			pool.close()
		}
	}()
	var sc *lineScanner // searches in this goroutine until then
	defer func() {
		if sc != nil {
			sc.release()
		}
	}()
	var pending []*grepJob
	ahead := 0
	done := false
	var scanErr error
	// takeHead takes the oldest pending file into the page.
	takeHead := func() {
		j := pending[0]
		pending = pending[1:]
		before := s.accepted
		var err error
		done, err = pool.take(s, j)
		if unreadable(err) {
			err = nil // a file the host will not open or read is passed over
		}
		scanErr = err
		if s.accepted == before {
			ahead = min(2*ahead+1, grepAheadMax)
		}
	}
	err := e.walk(ctx, loc, include, exclude, func(en walkEntry) bool {
		if en.typ != vfs.TypeFile {
			return true
		}
		open := func() (io.ReadCloser, error) { return en.dir.Open(ctx, en.name, 0) }
		if ahead == 0 {
			// Nothing is pending: search the file here, sparing the
			// hand-over (a search whose first files fill the page).
			if sc == nil {
				sc = newLineScanner(plan, s.context, maxLine, chunk)
			}
			before := s.accepted
			var err error
			done, err = e.scanFile(ctx, sc, open, en.path(), s)
			if unreadable(err) {
				err = nil // a file the host will not open or read is passed over
			}
			scanErr = err
			if s.accepted == before {
				ahead = 1
			}
			return !done && scanErr == nil
		}
		if pool == nil {
			pool = newGrepPool(ctx, plan, s.context, maxLine, chunk, s.offset+s.limit)
		}
		pending = append(pending, pool.submit(en.path(), en.dir.OpenLater(ctx, en.name, 0)))
		for len(pending) > 0 && !done && scanErr == nil && (len(pending) > ahead || isReady(pending[0])) {
			takeHead()
		}
		return !done && scanErr == nil
	})
	for len(pending) > 0 && !done && scanErr == nil {
		takeHead()
	}
	if done || scanErr != nil {
		return scanErr
	}
	return err
}

// isReady reports whether a pending file can be taken without waiting.
func isReady(j *grepJob) bool {
	select {
	case <-j.ready:
		return true
	default:
		return false
	}
}
