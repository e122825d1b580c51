// Package execbackend is the runtime behind the exec tool: named
// backends that run a command and stream its output as bytes, and the
// output window that keeps a bounded end of each stream. (Decoding the
// streamed bytes as UTF-8 is the tool's work, in package core.)
//
// Backends: Host runs real processes in a host directory (a hostfs
// mount's); Mirror runs them in a host copy of a workspace that has no
// host directory (memfs, sqlitefs) and syncs the changes back; Scripted
// replays scripted events (tests and `agenttools replay`). The tool
// itself (descriptions, arguments, spill files, snapshots, the result the
// model sees) is in package core.
//
// execbackend imports vfs, errno, toolspec and internal host helpers; it
// must not import core or an adapter. It was called core/exec, a name
// that shadowed os/exec; that package remains as deprecated aliases.
package execbackend

import (
	"context"
	"encoding/json"
	"time"
)

// Backend runs commands. Implementations must be safe for concurrent use.
type Backend interface {
	// Info says what the backend is: its id and what it tells the model.
	Info() Info
	// Start begins a command. An error means the command could not start
	// at all (the tool answers {"error": ...} with its text).
	Start(ctx context.Context, req Request) (Run, error)
}

// Info describes a backend.
type Info struct {
	// ID names the backend; the model names it when there are several.
	ID string
	// Description is what the backend says about itself ("" for nothing).
	Description string
	// Callable backends run `command` as module source and take a
	// structured Input, returning a structured Result.
	Callable bool
}

// Request is one command to run.
type Request struct {
	// ID is unique to this run among the runs of the workspace.
	ID      string
	Command string
	// Cwd is the workspace directory to run in; "" is the backend's default.
	Cwd string
	// Env overrides the base environment for this run only.
	Env map[string]string
	// Input is the structured input of a callable backend.
	Input json.RawMessage
	// Timeout kills the command after this long; 0 means never.
	Timeout time.Duration
}

// EventKind says what an Event carries.
type EventKind uint8

// The event kinds.
const (
	Stdout EventKind = iota
	Stderr
	Exit
)

// Event is one thing a run reports.
type Event struct {
	Kind EventKind
	// Data is a chunk of output (Stdout, Stderr). It is handed over: the
	// run never changes its bytes afterwards, so the exec tool keeps
	// chunks (in its window, on their way to the saved output) without
	// copying them.
	Data []byte
	// Code is the exit status (Exit); a process killed by a signal
	// reports 128 plus the signal's number, as shells do.
	Code int
	// Result is a callable backend's return value (Exit), nil for none.
	Result json.RawMessage
	// TimedOut is set on Exit when the request's Timeout killed the run.
	TimedOut bool
}

// Run is a started command.
type Run interface {
	// Next returns the next event; after an Exit event the run is over.
	// An error means the stream broke before the exit (the tool answers
	// {"error": ...} with its text), or ctx was cancelled.
	Next(ctx context.Context) (Event, error)
	// Kill stops the run and everything it started.
	Kill() error
}
