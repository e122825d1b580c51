package execbackend

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// Script is what a scripted run does, in the oracle's case format: the
// output it prints (all of Stdout then all of Stderr, or Events in
// order), split into chunks of ChunkBytes when set, then an exit with
// ExitCode and, for a callable backend, Result. Error makes the run fail
// to start; StreamError breaks the stream after the output.
type Script struct {
	Stdout      []byte
	Stderr      []byte
	Events      []ScriptEvent
	ChunkBytes  int
	ExitCode    int
	Result      json.RawMessage
	Error       string
	StreamError string
}

// ScriptEvent is one chunk of output of a Script.
type ScriptEvent struct {
	Stderr bool
	Data   []byte
}

// Scripts is a queue of scripts shared by scripted backends: each run,
// on whichever backend, takes the next queued script, else the one given
// for its command, else a silent success.
type Scripts struct {
	mu        sync.Mutex
	queue     []Script
	byCommand map[string]Script
}

// NewScripts returns an empty queue; byCommand may be nil.
func NewScripts(byCommand map[string]Script) *Scripts {
	return &Scripts{byCommand: byCommand}
}

// Queue makes script the script of the next run.
func (q *Scripts) Queue(script Script) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, script)
}

// Clear drops scripts no run took.
func (q *Scripts) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = nil
}

func (q *Scripts) next(command string) Script {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) > 0 {
		s := q.queue[0]
		q.queue = q.queue[1:]
		return s
	}
	return q.byCommand[command]
}

// Scripted is a backend that replays scripts instead of running anything.
type Scripted struct {
	info    Info
	scripts *Scripts
}

// NewScripted returns a scripted backend taking its scripts from q.
func NewScripted(info Info, q *Scripts) *Scripted {
	return &Scripted{info: info, scripts: q}
}

// Info describes the backend.
func (s *Scripted) Info() Info { return s.info }

// Start begins replaying a script.
func (s *Scripted) Start(_ context.Context, req Request) (Run, error) {
	script := s.scripts.next(req.Command)
	if script.Error != "" {
		return nil, errors.New(script.Error)
	}
	var events []Event
	push := func(kind EventKind, data []byte) {
		size := script.ChunkBytes
		if size <= 0 {
			size = len(data)
		}
		for at := 0; at < len(data); at += size {
			events = append(events, Event{Kind: kind, Data: data[at:min(at+size, len(data))]})
		}
	}
	if script.Events != nil {
		for _, e := range script.Events {
			if e.Stderr {
				push(Stderr, e.Data)
			} else {
				push(Stdout, e.Data)
			}
		}
	} else {
		push(Stdout, script.Stdout)
		push(Stderr, script.Stderr)
	}
	return &scriptedRun{events: events, exit: Event{Kind: Exit, Code: script.ExitCode, Result: script.Result}, streamError: script.StreamError}, nil
}

type scriptedRun struct {
	events      []Event
	exit        Event
	streamError string
	done        bool
}

func (r *scriptedRun) Next(ctx context.Context) (Event, error) {
	if err := ctx.Err(); err != nil {
		return Event{}, err
	}
	if len(r.events) > 0 {
		e := r.events[0]
		r.events = r.events[1:]
		return e, nil
	}
	if r.streamError != "" {
		return Event{}, errors.New(r.streamError)
	}
	if r.done {
		return Event{}, errors.New("exec: run already over")
	}
	r.done = true
	return r.exit, nil
}

func (r *scriptedRun) Kill() error { return nil }
