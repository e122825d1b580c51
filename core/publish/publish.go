// Package publish defines how the publish tool shares a workspace file:
// a Publisher takes the file a call names and returns a time-limited URL,
// as the reference's assets publisher (Workspace.assets.share) does.
//
// The tool (package core) resolves nothing itself before calling the
// publisher: File.Path is the path as the model wrote it, which is what
// the reference hands its publisher, and File.Open resolves it the way
// every other tool does (the root option, symbolic links, confinement to
// the workspace) and opens the regular file it names. A publisher that
// serves the file's bytes calls Open; a scripted one may not.
//
// Implementations: Scripted (the oracle's scripted publisher, for replay
// and tests), package local (copies served by an http.Handler under
// HMAC-signed URLs) and package s3 (an S3-compatible bucket and
// presigned GET URLs).
package publish

import (
	"context"
	"io"
	"time"

	"github.com/agenttools/agenttools/toolspec"
)

// DefaultExpiry is how long a link lives when the call sets no
// expiresAfterMs: one hour, as in the reference (the spec's
// publish.limits.expiresAfter). An overlay may set another default
// (toolspec.Overlay, publish's expiresAfter), which core then passes in
// Options; a publisher uses DefaultExpiry only when given none.
const DefaultExpiry = time.Duration(toolspec.PublishExpiresAfterDefault) * time.Millisecond

// Publisher shares workspace files.
type Publisher interface {
	// Publish makes the file f names available for opts.ExpiresAfter and
	// returns the URL that serves it. An error reaches the model as the
	// result's error ({"ok":false,"error":err.Error()}), so its text must
	// say what went wrong in words a model can act on: the errors of
	// f.Open already do (ENOENT, EISDIR, EACCES, ... as *errno.Error).
	Publish(ctx context.Context, f File, opts Options) (string, error)
}

// Options are what a publish call asks of the publisher.
type Options struct {
	// ExpiresAfter is the link's lifetime: the call's expiresAfterMs in
	// milliseconds, the tool set's default when it sets none (DefaultExpiry
	// unless an overlay sets another). Always positive.
	ExpiresAfter time.Duration
	// ExpiresAfterMs is the call's expiresAfterMs as the model sent it
	// (the default's milliseconds when it set none), which a publisher
	// echoes or names in an error (see Milliseconds): ExpiresAfter
	// saturates at time.Duration's longest, about 292 years, and the
	// schema allows up to 2^53-1 ms. Zero: not given (a caller other
	// than the tool), ExpiresAfter's milliseconds then.
	ExpiresAfterMs int64
	// Prefix scopes the published name to the workspace's session:
	// "agent-<session id>" when the workspace has one, else empty, as in
	// the reference. A publisher puts it before the file's name
	// ("<prefix>/<path without its leading slash>").
	Prefix string
}

// Milliseconds is the link's lifetime in milliseconds as the call asked
// for it: ExpiresAfterMs, or ExpiresAfter's milliseconds when that is
// zero.
func (o Options) Milliseconds() int64 {
	if o.ExpiresAfterMs != 0 {
		return o.ExpiresAfterMs
	}
	return o.ExpiresAfter.Milliseconds()
}

// Info describes the file File.Open opened.
type Info struct {
	// Path is the file's absolute workspace path after resolution
	// (relative paths under the root option, symbolic links followed).
	Path string
	// Size is the file's length in bytes when it was opened.
	Size int64
	// ModTime is the file's modification time.
	ModTime time.Time
	// Mode holds the file's permission bits.
	Mode uint32
}

// File is the workspace file a publish call names.
type File struct {
	// Path is the path exactly as the model wrote it.
	Path string

	open func(ctx context.Context) (io.ReadCloser, Info, error)
}

// NewFile returns a File for path whose Open calls open. Package core
// builds the File a call names with it; tests can build their own.
func NewFile(path string, open func(ctx context.Context) (io.ReadCloser, Info, error)) File {
	return File{Path: path, open: open}
}

// Open resolves Path as every tool does and opens the regular file it
// names for reading from its first byte. The caller closes the reader.
// It fails with an *errno.Error: ENOENT for a missing file, EISDIR for a
// directory, EINVAL for a path the workspace refuses, EACCES for a path
// outside the tool set's root, and what the store reports otherwise.
func (f File) Open(ctx context.Context) (io.ReadCloser, Info, error) {
	if f.open == nil {
		return nil, Info{}, errNoOpen
	}
	return f.open(ctx)
}

type noOpen struct{}

func (noOpen) Error() string { return "publish: File has no opener (build it with NewFile)" }

var errNoOpen error = noOpen{}
