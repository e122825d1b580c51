// Package backend implements the Backend of Eino's filesystem middleware
// (github.com/cloudwego/eino v0.7.36, adk/middlewares/filesystem) over a
// workspace, so that Eino's own tools ls, read_file, write_file,
// edit_file, glob, grep, and execute when the options give exec backends,
// run on memfs, hostfs and sqlitefs with the workspace's confinement and
// its safety across processes:
//
//	b, err := backend.New(ws, agenttools.Options{Backends: []execbackend.Backend{host}})
//	mw, err := filesystem.NewMiddleware(ctx, &filesystem.Config{Backend: b})
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Name: "coder", Description: "edits the workspace", Model: chatModel,
//		Middlewares: []adk.AgentMiddleware{mw},
//	})
//	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Fix the failing test")
//
// The model talks to Eino's middleware there, not to our tools: its tool
// names, descriptions, schemas and result texts are Eino's, and so is
// the contract of each Backend method, which wins where it differs from
// our tools. Where Eino's interface leaves a behaviour open, this package
// does what Eino's InMemoryBackend (adk/filesystem) does, and its tests
// run the same cases on both.
//
// # Paths
//
// Paths are workspace paths. As in Eino's InMemoryBackend, a path without
// a leading "/" is taken from "/" and an empty one is "/"; with
// Options.Root they resolve under the root and a path outside it is
// refused, as every tool of ours refuses it. Unlike the InMemoryBackend,
// which cleans "/../x" to "/x", a path whose ".." climbs above "/" is
// refused (EINVAL). With Root, give the middleware's Config a
// LargeToolResultOffloadingPathGen under the root: its default,
// /large_tool_result/<call id>, is outside it. Symbolic links are
// resolved by the workspace, in
// workspace path space, as our tools resolve them: a link's target never
// leaves the workspace, on a host directory too. Walks (glob, grep) do
// not follow links, as our find and grep do not, and see regular files
// only.
//
// # What each method does (where it differs from our tools)
//
//   - LsInfo: the paths of a directory's entries in raw byte order of
//     their names (our ls: a page of entries with attributes). A file
//     lists itself; a path where nothing is lists nothing, without an
//     error, as in the InMemoryBackend.
//   - Read: lines are what strings.Split(content, "\n") makes of the file
//     (a final newline ends in an empty last line; "\r" stays), from the
//     0-based Offset, Limit of them (200 when Limit <= 0, as the
//     middleware's code has it; read_file's description says 500), each as
//     "%6d\t%s" with its 1-based number, joined by "\n"; "" when Offset
//     is past the last line. No byte cap, no media (our read: 1-based,
//     capped, images and PDFs as media).
//   - Write: creates a file (0644) and its missing parent directories,
//     and fails with EEXIST "path exists" when anything is at the path,
//     even against another process (our write replaces). The name is
//     claimed first (vfs Create, atomic across processes) and then filled
//     (vfs Update, which writes only if nobody wrote the file since): for
//     that moment the file exists empty. A write that fails after the
//     claim removes the empty file; parent directories it made stay. No
//     size cap.
//   - Edit: replaces OldString, which must occur exactly once unless
//     ReplaceAll, literally (our edit: several edits, fuzzy matching, a
//     diff). The read, match and write are one vfs Update: a change
//     another process makes meanwhile is never lost (the edit is matched
//     again on the new content). A file longer than Options.Edit.MaxBytes
//     is not edited.
//   - GlobInfo: the regular files below Path whose path relative to Path
//     (the absolute path, for a pattern that starts with "/") matches the
//     pattern in the dialect Eino documents ("*" within a segment, "**"
//     across directories, "?", "[abc]"), as github.com/bmatcuk/doublestar/v4
//     matches it, which also takes "[^abc]", "{a,b}" and "\" escapes (our
//     find uses the reference's dialect, which has no "[abc]"). The
//     InMemoryBackend matches only each file's base name, with
//     filepath.Match, at every depth; that contradicts the glob tool's
//     own description, which this package follows ("'*.txt' - Find all
//     text files in root", "'**/*.py' - Find all Python files"). A
//     pattern without "/" or "**" therefore finds the same files in both
//     only directly in Path.
//   - GrepRaw: every line (as Read splits them) of the regular files
//     below Path that contains Pattern as a literal substring, in walk
//     order (pre-order, names in raw byte order), each with its 1-based
//     line number and whole text (our grep: RE2 or literal, pages,
//     context lines). Glob filters files as the InMemoryBackend does, by
//     base name, when it has no "/"; with a "/" it matches the path
//     relative to Path (absolute, when it starts with "/").
//   - Execute (the ShellBackend New returns when Options give exec
//     backends): runs the command as our exec tool does, on the first
//     backend offered (core/execbackend host, sandbox or mirror), in its
//     default directory, with Options.ExecTimeout and the kill of
//     everything the command started when the context ends. Output is
//     stdout then stderr, each cut to our exec output window with our
//     note saying where the full output was saved in the workspace;
//     Truncated says whether either was cut.
//
// # Errors
//
// Failures are Go errors, as the Backend interface has them: Eino's
// middleware returns them from its tools, which in an adk agent ends the
// run unless a ToolCallMiddleware turns them into a message (Eino wraps
// the error in text of its own; errors.As finds the *errno.Error, whose
// Error is our message alone, as Example shows). Workspace
// failures are *errno.Error values worded as our tools word them
// (errors.Is(err, fs.ErrNotExist), fs.ErrExist, ...); Edit's own failures
// are too (EINVAL, EFBIG), worded by the spec (toolspec.MsgEino*,
// MsgEditNotFound). Execute's command that could not start is a plain
// error with our exec tool's text. With
// Options.Readonly, Write and Edit fail with EROFS; when the tool set
// does not offer our write (edit), which an overlay withholds
// (toolspec.ToolOverlay.Offered), Write (Edit) fails with EPERM
// (toolspec.MsgEinoNotOffered) and no approval is asked. A cancelled context
// returns its error.
//
// backend imports eino's adk/filesystem, core and the workspace; only
// adapters/eino and its subpackages may import eino.
package backend

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// ReadLimitDefault is how many lines Read returns when the request's
// Limit is not positive, as Eino's InMemoryBackend and middleware have it.
const ReadLimitDefault = 200

// Backend is Eino's filesystem.Backend over a workspace. It is safe for
// concurrent use; Write and Edit take the workspace's path locks, as our
// write and edit do, so they are serialized with our tools in one process
// too.
type Backend struct {
	ws       *vfs.Workspace
	ex       *core.Executor
	root     string
	readonly bool
	editMax  int64
	prefix   string
}

// ShellBackend is a Backend that also runs commands: Eino's
// filesystem.ShellBackend, for which the middleware adds its execute
// tool.
type ShellBackend struct {
	*Backend
}

var (
	_ filesystem.Backend      = (*Backend)(nil)
	_ filesystem.ShellBackend = (*ShellBackend)(nil)
)

// New returns the Backend of Eino's filesystem middleware over ws: a
// *ShellBackend when opts give exec an exec backend (opts.Backends, and
// opts.Exec does not offer none), else a *Backend. Of opts it uses Root,
// Readonly, Edit.MaxBytes (else the default of Surface), the exec options, and Approve with Approver:
// a Write, Edit or Execute that our write, edit or exec's approval covers
// runs only once opts.Approver approves it (the Approver gets Eino's
// request as the arguments); refused, or with no Approver, it fails with
// EPERM and changes nothing (core.Executor.CheckApproval). It fails as
// core.New fails on options out of range.
func New(ws *vfs.Workspace, opts agenttools.Options) (filesystem.Backend, error) {
	ex, err := core.New(ws, opts)
	if err != nil {
		return nil, err
	}
	b := &Backend{ws: ws, ex: ex, root: opts.Root, readonly: opts.Readonly, editMax: cmp.Or(opts.Edit.MaxBytes, ex.Surface().Limit(toolspec.ToolEdit, "maxBytes")), prefix: opts.Prefix}
	if b.offers(toolspec.ToolPrefix(opts.Prefix).Name(toolspec.ToolExec)) {
		return &ShellBackend{b}, nil
	}
	return b, nil
}

// offers reports whether the tool set offers the tool the model calls
// name.
func (b *Backend) offers(name string) bool {
	_, ok := b.ex.Tool(name)
	return ok
}

// path is the canonical workspace path of a path Eino passes: from "/"
// when relative (as the InMemoryBackend takes it), under the root option
// when there is one.
func (b *Backend) path(ctx context.Context, p string) (string, error) {
	if b.root == "" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p, err := b.ex.Path(ctx, p)
	if err != nil {
		return "", err
	}
	canon, _, err := vfs.Canonical(p)
	return canon, err
}

// absent reports a path where nothing is (or a file stands where a
// directory would be): a listing or a search there finds nothing.
func absent(err error) bool {
	c := errno.CodeOf(err)
	return c == errno.ENOENT || c == errno.ENOTDIR
}

// LsInfo lists the directory at req.Path (links followed): each entry's
// path, its name joined to the path asked for, in raw byte order of the
// names. A file lists itself; nothing at the path lists nothing.
func (b *Backend) LsInfo(ctx context.Context, req *filesystem.LsInfoRequest) ([]filesystem.FileInfo, error) {
	p, err := b.path(ctx, req.Path)
	if err != nil {
		return nil, err
	}
	loc, err := b.ws.Resolve(ctx, p)
	switch {
	case absent(err):
		return nil, nil
	case err != nil:
		return nil, err
	case !loc.Info.IsDir():
		return []filesystem.FileInfo{{Path: p}}, nil
	}
	entries, err := b.ws.ReadDirResolved(ctx, loc.Real, 0, -1)
	if err != nil {
		return nil, err
	}
	out := make([]filesystem.FileInfo, len(entries))
	for i, en := range entries {
		out[i] = filesystem.FileInfo{Path: vfs.Join(p, en.Name)}
	}
	return out, nil
}

// Read returns lines Offset (0-based; negative is 0) to Offset+Limit-1
// (Limit <= 0 is ReadLimitDefault) of the file at req.FilePath, each as
// "%6d\t%s" with its 1-based number, joined by "\n"; "" when Offset is
// past the last line. Lines are strings.Split(content, "\n"), as in
// Eino's InMemoryBackend. Errors: ENOENT "no such file", EISDIR.
func (b *Backend) Read(ctx context.Context, req *filesystem.ReadRequest) (string, error) {
	p, err := b.path(ctx, req.FilePath)
	if err != nil {
		return "", err
	}
	r, _, err := b.ws.Open(ctx, p, 0)
	if err != nil {
		return "", err
	}
	defer r.Close()
	offset, limit := max(req.Offset, 0), req.Limit
	if limit <= 0 {
		limit = ReadLimitDefault
	}
	// The model chooses both: their sum must not wrap around.
	end := math.MaxInt
	if limit < end-offset {
		end = offset + limit
	}
	var out strings.Builder
	err = eachLine(ctx, r, func(n int, line []byte) bool {
		if n > offset {
			if n > offset+1 {
				out.WriteByte('\n')
			}
			out.WriteString(lineNumber(n))
			out.WriteByte('\t')
			out.Write(line)
		}
		return n < end
	})
	return out.String(), err
}

// lineNumber is n right-aligned in 6 columns, as "%6d" writes it.
func lineNumber(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 6 {
		s = strings.Repeat(" ", 6-len(s)) + s
	}
	return s
}

// eachLine hands f each line of r, as strings.Split(content, "\n") has
// them (the text after the last newline is a line, empty or not), with
// its 1-based number, until f returns false. line is valid only during
// the call.
func eachLine(ctx context.Context, r io.Reader, f func(n int, line []byte) bool) error {
	br := bufio.NewReader(r)
	var long []byte
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			line, err = br.ReadSlice('\n')
			line = append(long, line...)
			long = line
		}
		if err != nil && err != io.EOF {
			return err
		}
		last := err == io.EOF
		if !f(n, bytes.TrimSuffix(line, []byte{'\n'})) || last {
			return nil
		}
	}
}

// Write creates the file at req.FilePath with req.Content (0644), and its
// missing parent directories (0755). Anything already at the path, a
// dangling link included, fails it with EEXIST "path exists", even when
// another process creates the file at the same moment: the name is
// claimed atomically (vfs Create), then filled only while still empty.
// Errors also: those of the workspace (ENOTDIR, EISDIR, EROFS, ELOOP, ...).
func (b *Backend) Write(ctx context.Context, req *filesystem.WriteRequest) error {
	if err := b.ex.CheckApproval(ctx, toolspec.ToolWrite, req.FilePath, req); err != nil {
		return err
	}
	p, unlock, err := b.change(ctx, toolspec.ToolWrite, req.FilePath, false)
	if err != nil {
		return err
	}
	defer unlock()
	if dir := p[:strings.LastIndexByte(p, '/')]; dir != "" {
		if err := b.ws.Mkdir(ctx, dir, vfs.MkdirOptions{Recursive: true}); err != nil {
			return err
		}
	}
	if err := b.ws.Create(ctx, p); err != nil {
		return err
	}
	if req.Content == "" {
		return nil
	}
	exists := errno.New(errno.EEXIST, toolspec.MsgPathExists(p), p)
	// Limit 0: a file someone filled since the claim is not ours to write.
	err = b.ws.Update(ctx, p, 0, func([]byte, vfs.Info) ([]byte, error) {
		return []byte(req.Content), nil
	})
	switch _, tooLarge := errors.AsType[*vfs.TooLargeError](err); {
	case err == nil:
		return nil
	case tooLarge:
		return exists
	}
	// Give the claim back unless someone wrote to it meanwhile.
	if info, statErr := b.ws.Lstat(context.WithoutCancel(ctx), p); statErr == nil && info.Type == vfs.TypeFile && info.Size == 0 {
		_ = b.ws.Remove(context.WithoutCancel(ctx), p, vfs.RemoveOptions{})
	}
	return err
}

// change prepares a change at path that our tool spec (write or edit)
// would make: its canonical path, refused under Options.Readonly and
// when the set does not offer spec (the surface withholds it, and with it
// the approval that would cover the change), and the workspace's lock
// for it, taken (the place a link at path leads to when followFinal), as
// our write and edit take it.
func (b *Backend) change(ctx context.Context, spec, path string, followFinal bool) (string, func(), error) {
	p, err := b.path(ctx, path)
	if err != nil {
		return "", nil, err
	}
	if b.readonly {
		return "", nil, errno.New(errno.EROFS, toolspec.MsgEinoReadOnly(p), p)
	}
	if name := toolspec.ToolPrefix(b.prefix).Name(spec); !b.offers(name) {
		return "", nil, errno.New(errno.EPERM, toolspec.MsgEinoNotOffered(name, p), p)
	}
	unlock, err := b.ws.Lock(ctx, b.ws.LockKey(ctx, p, followFinal), false)
	if err != nil {
		return "", nil, err
	}
	return p, unlock, nil
}

// Edit replaces req.OldString in the file at req.FilePath (links
// followed) with req.NewString: every occurrence with ReplaceAll, else
// the only one. Errors: ENOENT "no such path"; EINVAL when OldString is
// empty (toolspec.MsgEinoEditEmptyOldString) or the path is no regular
// file; EINVAL toolspec.MsgEditNotFound when OldString does not occur,
// EINVAL MsgEinoEditNotUnique when it occurs more than once without ReplaceAll;
// EFBIG (MsgEinoEditFileTooLarge) for a file longer than the edit cap;
// EAGAIN when other writers kept changing the file. A failed edit writes
// nothing.
func (b *Backend) Edit(ctx context.Context, req *filesystem.EditRequest) error {
	if err := b.ex.CheckApproval(ctx, toolspec.ToolEdit, req.FilePath, req); err != nil {
		return err
	}
	p, unlock, err := b.change(ctx, toolspec.ToolEdit, req.FilePath, true)
	if err != nil {
		return err
	}
	defer unlock()
	old := []byte(req.OldString)
	err = b.ws.Update(ctx, p, b.editMax, func(content []byte, _ vfs.Info) ([]byte, error) {
		if len(old) == 0 {
			return nil, errno.New(errno.EINVAL, toolspec.MsgEinoEditEmptyOldString(p), p)
		}
		n := 1
		if req.ReplaceAll {
			n = -1
		}
		switch count := bytes.Count(content, old); {
		case count == 0:
			return nil, errno.New(errno.EINVAL, toolspec.MsgEditNotFound(p), p)
		case count > 1 && !req.ReplaceAll:
			return nil, errno.New(errno.EINVAL, toolspec.MsgEinoEditNotUnique(int64(count), p), p)
		}
		return bytes.Replace(content, old, []byte(req.NewString), n), nil
	})
	if tooLarge, ok := errors.AsType[*vfs.TooLargeError](err); ok {
		return errno.New(errno.EFBIG, toolspec.MsgEinoEditFileTooLarge(tooLarge.Size, b.editMax), p)
	}
	return err
}
