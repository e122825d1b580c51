package core

import (
	"context"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Ls runs the ls tool: one page of a directory's entries in raw byte
// order of their names (200 by default), with nextOffset when more
// follow. A symbolic link is listed, not followed. Failures are
// {"error": ...}, as in the reference.
func (e *Executor) Ls(ctx context.Context, a toolspec.LsArgs) (toolspec.Output, error) {
	// One call scope: a store may answer this call's repeated lookups of
	// a path from what it read first (vfs.WithCallScope).
	ctx = vfs.WithCallScope(ctx)
	page, offset := pageOf(a.Limit, a.Offset, toolspec.LsPageDefault)
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return failure(err)
	}
	entries, err := e.ws.ReadDir(ctx, p, int(min(offset, math.MaxInt32)), int(page+1))
	if err != nil {
		return failure(err)
	}
	res := toolspec.LsResult{Path: a.Path}
	if int64(len(entries)) > page {
		entries = entries[:page]
		res.NextOffset = new(offset + page)
	}
	res.Count = int64(len(entries))
	// The entries are needed only until the result is written: their
	// slice is reused by the next listing.
	ep := lsEntries.Get().(*[]toolspec.LsEntry)
	res.Entries = slices.Grow((*ep)[:0], max(len(entries), 1))
	for _, en := range entries {
		res.Entries = append(res.Entries, toolspec.LsEntry{
			Name:           en.Name,
			Size:           en.Size,
			Mtime:          en.MTime,
			IsFile:         en.Type == vfs.TypeFile,
			IsDirectory:    en.Type == vfs.TypeDir,
			IsSymbolicLink: en.Type == vfs.TypeSymlink,
		})
	}
	out := jsonOutput(res)
	if cap(res.Entries) <= maxPooledLsEntries {
		clear(res.Entries)
		*ep = res.Entries[:0]
		lsEntries.Put(ep)
	}
	return out, nil
}

// lsEntries holds Ls's entry slices (*[]toolspec.LsEntry), emptied, of
// at most maxPooledLsEntries.
var lsEntries = sync.Pool{New: func() any { return new([]toolspec.LsEntry) }}

const maxPooledLsEntries = 1 << 14

// Write runs the write tool: it creates or replaces a file with the
// content (at most 2 MiB of UTF-8 by default), creating missing parent
// directories. An existing file keeps its permission bits; a new one gets
// 0644. A failed write changes nothing. Failures are {"error": ...}.
func (e *Executor) Write(ctx context.Context, a toolspec.WriteArgs) (toolspec.Output, error) {
	// One call scope: a store may answer this call's repeated lookups of
	// a path from what it read first (vfs.WithCallScope).
	ctx = vfs.WithCallScope(ctx)
	size := int64(len(a.Content))
	if size > e.s.writeMaxBytes {
		return errorJSON(toolspec.MsgWriteContentTooLarge(e.s.prefix, size, e.s.writeMaxBytes)), nil
	}
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return failure(err)
	}
	unlock, err := e.ws.Lock(ctx, e.ws.LockKey(ctx, p, true), false)
	if err != nil {
		return toolspec.Output{}, err
	}
	defer unlock()
	// Like the reference, look first: a path that cannot be looked up
	// (a loop of links, say) fails as the lookup words it.
	if _, err := e.ws.Stat(ctx, p); err != nil && !isMissing(err) {
		return failure(err)
	}
	// Parents are created for the directories the path as given names,
	// as the reference does: with the root option, "a.txt" names none,
	// so a root that does not exist is not created.
	parents := strings.LastIndexByte(a.Path, '/') > 0
	// The content goes to the store as it is, not copied first: a store
	// in memory keeps the string's bytes (a string is never changed, and
	// the arguments' strings are this call's own).
	if err := e.ws.WriteFrom(ctx, p, contentReader(a.Content), vfs.WriteOptions{CreateParents: parents}); err != nil {
		return failure(err)
	}
	return jsonOutput(toolspec.WriteResult{Path: a.Path, BytesWritten: size}), nil
}

// Delete runs the delete tool: it removes a file, a symbolic link (not
// its target) or an empty directory, or with recursive a directory and
// everything below it. A path that does not exist is a success, as in the
// reference. Failures are {"error": ...}. On a host directory a recursive
// removal the host stops midway (an immutable file) has removed what came
// before; the error says what it could not remove.
func (e *Executor) Delete(ctx context.Context, a toolspec.DeleteArgs) (toolspec.Output, error) {
	// One call scope: a store may answer this call's repeated lookups of
	// a path from what it read first (vfs.WithCallScope).
	ctx = vfs.WithCallScope(ctx)
	recursive := a.Recursive != nil && *a.Recursive
	p, err := e.path(ctx, a.Path)
	if err != nil {
		return failure(err)
	}
	unlock, err := e.ws.Lock(ctx, e.ws.LockKey(ctx, p, false), recursive)
	if err != nil {
		return toolspec.Output{}, err
	}
	defer unlock()
	if err := e.ws.Remove(ctx, p, vfs.RemoveOptions{Recursive: recursive, Force: true}); err != nil {
		return failure(err)
	}
	return jsonOutput(toolspec.DeleteResult{Deleted: a.Path}), nil
}

// failure is the {"error": message} output of a failed call, or the
// context's error when the call was cancelled.
func failure(err error) (toolspec.Output, error) {
	if cancelled(err) {
		return toolspec.Output{}, err
	}
	return errorJSON(err.Error()), nil
}

func pageOf(limit, offset *int64, def int64) (int64, int64) {
	page, off := def, int64(0)
	if limit != nil {
		page = *limit
	}
	if offset != nil {
		off = *offset
	}
	return page, off
}

// contentReader reads s; a store that keeps contents in memory may keep
// s's bytes, which no one changes.
func contentReader(s string) io.Reader {
	if s == "" {
		return strings.NewReader(s)
	}
	return vfs.NewOwnedReader(unsafe.Slice(unsafe.StringData(s), len(s)))
}
