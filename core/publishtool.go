package core

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/toolspec"
)

// Publish shares the workspace file a.Path names through the set's
// publisher (Options.Publisher) for a.ExpiresAfterMs milliseconds
// (the surface's default, publish.expiresAfter, when left out: an hour,
// publish.DefaultExpiry, unless an overlay sets another), as the reference's publish tool
// does: the publisher gets the path as the model wrote it, the prefix
// "agent-<session id>" when the workspace has a session id
// (vfs.Workspace.SetSessionID), and a File whose Open resolves the path
// like every tool (the root option, symbolic links) and opens the regular
// file. The result is {"ok":true,"url":…}, or {"ok":false,"error":…}
// with the publisher's error text, the publisher's failures being the
// model's to see (a missing file, a refused upload). Ours: an empty URL
// without an error is a failure (deviation publishEmptyURL). A cancelled
// ctx is returned as a Go error.
func (e *Executor) Publish(ctx context.Context, a toolspec.PublishArgs) (toolspec.Output, error) {
	if err := ctx.Err(); err != nil {
		return toolspec.Output{}, err
	}
	opts := publish.Options{ExpiresAfterMs: e.s.publishExpiresAfter}
	if a.ExpiresAfterMs != nil {
		opts.ExpiresAfterMs = *a.ExpiresAfterMs
	}
	opts.ExpiresAfter = time.Duration(opts.ExpiresAfterMs) * time.Millisecond
	if opts.ExpiresAfter/time.Millisecond != time.Duration(opts.ExpiresAfterMs) {
		// Past time.Duration's 292 years: the longest it holds, which
		// no publisher tells apart from forever (ExpiresAfterMs keeps
		// the call's number).
		opts.ExpiresAfter = time.Duration(1<<63 - 1)
	}
	if id := e.ws.SessionID(); id != "" {
		opts.Prefix = "agent-" + id
	}
	url, err := e.publisher.Publish(ctx, publish.NewFile(a.Path, e.publishOpener(a.Path)), opts)
	switch {
	case err != nil && ctx.Err() != nil:
		// The call's own cancellation, not the publisher's failure (a
		// publisher's own timeout is one the model sees).
		return toolspec.Output{}, ctx.Err()
	case err != nil:
		return jsonOutput(toolspec.PublishFailure{Error: err.Error()}), nil
	case url == "":
		return jsonOutput(toolspec.PublishFailure{Error: toolspec.MsgPublishEmptyURL(a.Path)}), nil
	}
	return jsonOutput(toolspec.PublishResult{URL: url}), nil
}

// publishOpener is the Open of the File a publish call hands its
// publisher: path under the root option, then the workspace's Open, with
// its errors (ENOENT "no such file", EISDIR "path is a directory"). A
// path the root option refuses is EACCES with the option's message.
func (e *Executor) publishOpener(path string) func(context.Context) (io.ReadCloser, publish.Info, error) {
	return func(ctx context.Context) (io.ReadCloser, publish.Info, error) {
		p, err := e.path(ctx, path)
		if err != nil {
			if re := rootError(""); errors.As(err, &re) {
				err = errno.New(errno.EACCES, re.Error(), path)
			}
			return nil, publish.Info{}, err
		}
		r, loc, err := e.ws.OpenFile(ctx, p, 0)
		if err != nil {
			return nil, publish.Info{}, err
		}
		return r, publish.Info{
			Path:    loc.Real,
			Size:    loc.Info.Size,
			ModTime: time.UnixMilli(loc.Info.MTime),
			Mode:    loc.Info.Mode,
		}, nil
	}
}
