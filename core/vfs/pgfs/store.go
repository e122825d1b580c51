package pgfs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

var (
	_ vfs.Store        = (*FS)(nil)
	_ vfs.Updater      = (*FS)(nil)
	_ vfs.PieceUpdater = (*FS)(nil)
	_ vfs.RevWriter    = (*FS)(nil)
	_ vfs.PathStatter  = (*FS)(nil)
	_ vfs.DirOpener    = (*FS)(nil)
)

// tracer counts the round trips of a pool's connections: each
// statement, batch, COPY, prepare and connection setup is one.
type tracer struct{ n *atomic.Int64 }

func (t tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	t.n.Add(1)
	return ctx
}
func (tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (t tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.n.Add(1)
	return ctx
}
func (tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (tracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (t tracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	t.n.Add(1)
	return ctx
}
func (tracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
func (tracer) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	return ctx
}

// TracePrepareEnd counts a prepare that went to the server.
func (t tracer) TracePrepareEnd(_ context.Context, _ *pgx.Conn, d pgx.TracePrepareEndData) {
	if !d.AlreadyPrepared {
		t.n.Add(1)
	}
}
func (t tracer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	t.n.Add(1)
	return ctx
}
func (tracer) TraceConnectEnd(context.Context, pgx.TraceConnectEndData) {}

// reasons are the spec's words for the codes the mutations return.
var reasons = map[errno.Code]string{
	errno.ENOENT:    toolspec.MsgReasonNoEntry,
	errno.ENOTDIR:   toolspec.MsgReasonNotDirectory,
	errno.EEXIST:    toolspec.MsgReasonExists,
	errno.EISDIR:    toolspec.MsgReasonIsDirectory,
	errno.ELOOP:     toolspec.MsgReasonSymlink,
	errno.ENOTEMPTY: toolspec.MsgReasonNotEmpty,
	errno.EPERM:     toolspec.MsgReasonRemoveRoot,
	errno.EAGAIN:    toolspec.MsgReasonChangedByWriter,
	errno.EINVAL:    toolspec.MsgReasonNotRegularFile,
}

// codeError is the error of the errno code a mutation returned (the empty
// text is none).
func codeError(code, name string) error {
	if code == "" {
		return nil
	}
	return errno.New(errno.Code(code), reasons[errno.Code(code)], name)
}

// fail turns a failure into the store's error: *errno.Error values pass
// unchanged, a done context is ctx.Err(), the server's and the
// connection's failures are EIO.
func fail(ctx context.Context, name string, err error) error {
	if err == nil {
		return nil
	}
	var ee *errno.Error
	var tl *vfs.TooLargeError
	switch {
	case errors.As(err, &ee), errors.As(err, &tl):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &errno.Error{Code: errno.EIO, Message: err.Error(), Path: name, Err: err}
}

// maxName is the longest name (a path of the store) of a node the
// store makes, in bytes. PostgreSQL refuses an index entry longer than
// 2704 bytes (a third of a page), and a node's entries in node_pkey
// (ws, path) and node_entries (ws, parent, name) hold its name and 20 to
// 27 bytes more: a name of 2681 bytes that do not compress (an entry is
// compressed first only when that shortens it) is refused at the top,
// one of 2682 below a directory, and the statement fails. 2599 leaves
// room, and makes the longest path at the root of the workspace 2600
// bytes.
const maxName = 2599

// checkNew refuses a node name longer than maxName, before anything is
// written.
func checkNew(name string) error {
	if len(name) > maxName {
		return &vfs.NameTooLongError{Len: len(name), Max: maxName}
	}
	return nil
}

// checkName refuses a name no Store is ever given: one with an empty,
// "." or ".." element, or a NUL. The root is "".
func checkName(name string) error {
	if name == "" {
		return nil
	}
	if strings.IndexByte(name, 0) >= 0 {
		return errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, name)
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || part == "." || part == ".." {
			return errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, name)
		}
	}
	return nil
}

// split returns the directory holding name and name's last element.
func split(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// join is name in the directory dir.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// node is a node row as the store reads it.
type node struct {
	typ    int16
	mode   int32
	mtime  int64
	size   int64
	target []byte
	rev    int64
}

func (n node) info(name string) vfs.Info {
	return vfs.Info{Name: name, Type: vfs.FileType(n.typ), Mode: uint32(n.mode), Size: n.size,
		MTime: n.mtime, Target: string(n.target), Rev: n.rev}
}

// notFile is the error for a node at name that is no regular file.
func notFile(typ int16, name string) error {
	switch typ {
	case dbDir:
		return errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	case dbSymlink:
		return errno.New(errno.ELOOP, toolspec.MsgReasonSymlink, name)
	}
	return errno.New(errno.EINVAL, toolspec.MsgReasonNotRegularFile, name)
}

// nodes reads the nodes at paths, in one statement, by path; within a
// call scope, from the memo when it knows them all (see memo).
func (f *FS) nodes(ctx context.Context, paths []string) (map[string]node, error) {
	m := f.memo(ctx)
	if m != nil {
		if found, ok := m.recall(paths); ok {
			return found, nil
		}
	}
	found, err := f.readNodes(ctx, paths)
	if err == nil && m != nil {
		m.note(paths, found)
	}
	return found, err
}

// readNodes reads the nodes at paths, in one statement, by path.
func (f *FS) readNodes(ctx context.Context, paths []string) (map[string]node, error) {
	raw := make([][]byte, len(paths))
	for i, p := range paths {
		raw[i] = []byte(p)
	}
	rows, err := f.pool.Query(ctx, "lstat", f.ws, raw)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]node, len(paths))
	for rows.Next() {
		var path []byte
		var n node
		if err := rows.Scan(&path, &n.typ, &n.mode, &n.mtime, &n.size, &n.target, &n.rev); err != nil {
			return nil, err
		}
		out[string(path)] = n
	}
	return out, rows.Err()
}

// prefixes are the directories along name ("a", "a/b" for "a/b/c"), the
// root left out, and name itself last.
func prefixes(name string) []string {
	var out []string
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			out = append(out, name[:i])
		}
	}
	return append(out, name)
}

// lookup reads the node at name, in one statement that reads the
// directories along it too, so that a missing node is explained
// (ENOTDIR when one of them is something else, ENOENT otherwise)
// without another.
func (f *FS) lookup(ctx context.Context, name string) (node, error) {
	paths := prefixes(name)
	found, err := f.nodes(ctx, paths)
	if err != nil {
		return node{}, err
	}
	if n, ok := found[name]; ok {
		return n, nil
	}
	return node{}, explain(found, paths, name)
}

// explain says why the last of paths, whose directories were looked up
// into found, has no node.
func explain(found map[string]node, paths []string, name string) error {
	for _, p := range paths[:len(paths)-1] {
		n, ok := found[p]
		if !ok {
			break
		}
		if n.typ != dbDir {
			return errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
		}
	}
	return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
}

// missing explains, with one more statement, why name has no node.
func (f *FS) missing(ctx context.Context, name string) error {
	if name == "" {
		return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
	}
	_, err := f.lookup(ctx, name)
	if err == nil {
		// It is there now: it was not when asked.
		return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
	}
	return err
}

// Lstat describes the node at name, a link not followed, with one
// statement. Errors: ENOENT, ENOTDIR (an element of name is not a
// directory), EINVAL (a malformed name), EIO.
func (f *FS) Lstat(ctx context.Context, name string) (vfs.Info, error) {
	if err := checkName(name); err != nil {
		return vfs.Info{}, err
	}
	n, err := f.lookup(ctx, name)
	if err != nil {
		return vfs.Info{}, fail(ctx, name, err)
	}
	_, base := split(name)
	return n.info(base), nil
}

// LstatPath describes the node at name and those at name/elems[0],
// name/elems[0]/elems[1], ..., stopping after the first that is no
// directory and before the first that is missing (see vfs.PathStatter),
// with one statement. Errors: EINVAL (a malformed name or element), EIO.
func (f *FS) LstatPath(ctx context.Context, name string, elems []string) ([]vfs.Info, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	paths := []string{name}
	for _, e := range elems {
		if e == "" || strings.IndexByte(e, '/') >= 0 || checkName(e) != nil {
			return nil, errno.New(errno.EINVAL, toolspec.MsgReasonInvalidName, name)
		}
		paths = append(paths, join(paths[len(paths)-1], e))
	}
	found, err := f.nodes(ctx, paths)
	if err != nil {
		return nil, fail(ctx, name, err)
	}
	out := make([]vfs.Info, 0, len(paths))
	for _, p := range paths {
		n, ok := found[p]
		if !ok {
			break
		}
		_, base := split(p)
		out = append(out, n.info(base))
		if n.typ != dbDir {
			break
		}
	}
	return out, nil
}

// ReadDir lists the directory at name in raw byte order of the entries'
// names (bytea compares as bytes), skipping offset entries and returning
// at most limit (all when limit < 0), with the directory in one
// statement. Errors: ENOENT, ENOTDIR (name is no directory, a link to
// one included), EINVAL, EIO.
func (f *FS) ReadDir(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	var lim any
	if limit >= 0 {
		lim = int64(limit)
	}
	rows, err := f.pool.Query(ctx, "dir_page", f.ws, []byte(name), lim, int64(max(offset, 0)))
	if err != nil {
		return nil, fail(ctx, name, err)
	}
	out := []vfs.Info{}
	err = f.listing(ctx, rows, name, func(base []byte, n node) { out = append(out, n.info(string(base))) })
	if err != nil {
		return nil, fail(ctx, name, err)
	}
	slices.SortFunc(out, func(a, b vfs.Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// listing reads the rows of dir_page or dir_after for the directory
// name, handing each entry to add: ENOENT or ENOTDIR when name is no
// directory.
func (f *FS) listing(ctx context.Context, rows pgx.Rows, name string, add func(base []byte, n node)) error {
	defer rows.Close()
	var dir *node
	for rows.Next() {
		var k int32
		var base []byte
		var n node
		if err := rows.Scan(&k, &base, &n.typ, &n.mode, &n.mtime, &n.size, &n.target, &n.rev); err != nil {
			return err
		}
		if k == 0 {
			dir = &n
			continue
		}
		add(base, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	switch {
	case dir == nil:
		return f.missing(ctx, name)
	case dir.typ != dbDir:
		return errno.New(errno.ENOTDIR, toolspec.MsgReasonNotDirectory, name)
	}
	return nil
}

// mutate runs one of the mutation functions (stmt) and maps its code.
// It clears the call scope's memo, whether the change was made or not.
func (f *FS) mutate(ctx context.Context, q querier, name, stmt string, args ...any) error {
	if m := f.memo(ctx); m != nil {
		defer m.forget()
	}
	var code string
	if err := q.QueryRow(ctx, stmt, args...).Scan(&code); err != nil {
		return fail(ctx, name, err)
	}
	return codeError(code, name)
}

// add creates the node at name, in one statement.
func (f *FS) add(ctx context.Context, name string, typ int16, mode uint32, size int64, target []byte) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := f.refuseChange(name); err != nil {
		return err
	}
	if name == "" {
		return errno.New(errno.EEXIST, toolspec.MsgReasonExists, name)
	}
	if err := checkNew(name); err != nil {
		return err
	}
	dir, base := split(name)
	return f.mutate(ctx, f.pool, name, "mknode", f.ws, []byte(name), []byte(dir), []byte(base), typ,
		int32(mode&0o7777), f.now().UnixMilli(), size, target)
}

// Create creates an empty regular file at name with permission bits
// mode&0o7777, in one statement: of concurrent creates of one name, from
// any process, exactly one succeeds. Errors: EEXIST (anything at name),
// ENOENT or ENOTDIR (no parent directory), EINVAL (a
// *vfs.NameTooLongError for a name over 2599 bytes), EIO.
func (f *FS) Create(ctx context.Context, name string, mode uint32) error {
	return f.add(ctx, name, dbFile, mode, 0, nil)
}

// Mkdir creates a directory at name with permission bits mode&0o7777.
// Errors as for Create.
func (f *FS) Mkdir(ctx context.Context, name string, mode uint32) error {
	return f.add(ctx, name, dbDir, mode, 0, nil)
}

// Symlink creates a symbolic link at name holding target verbatim; it
// reports mode 0o777 and the target's length in UTF-16 code units as its
// size. Errors as for Create.
func (f *FS) Symlink(ctx context.Context, target, name string) error {
	return f.add(ctx, name, dbSymlink, 0o777, vfs.UTF16Len(target), []byte(target))
}

// anyRev is the revision argument of a change made on no condition.
const anyRev = -1

// remove removes name (and all below it), while it is at revision rev.
func (f *FS) remove(ctx context.Context, name string, all bool, rev int64) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := f.refuseChange(name); err != nil {
		return err
	}
	dir, _ := split(name)
	return f.mutate(ctx, f.pool, name, "remove", f.ws, []byte(name), []byte(dir), all, rev, f.now().UnixMilli())
}

// Remove removes the file, symbolic link or empty directory at name and
// the file's content, in one statement. Errors: ENOENT, ENOTDIR,
// ENOTEMPTY (a directory with entries), EPERM (the root), EINVAL, EIO.
func (f *FS) Remove(ctx context.Context, name string) error {
	return f.remove(ctx, name, false, anyRev)
}

// RemoveAll removes name and everything below it, in one statement: a
// range delete over the paths that start with name+"/". Errors: ENOENT
// (nothing at name), ENOTDIR, EPERM (the root), EINVAL, EIO.
func (f *FS) RemoveAll(ctx context.Context, name string) error {
	return f.remove(ctx, name, true, anyRev)
}

// RemoveIf removes the file, symbolic link or empty directory at name
// only while it is at revision rev, in one statement; EAGAIN when it
// moved on. Errors otherwise as Remove's.
func (f *FS) RemoveIf(ctx context.Context, name string, rev int64) error {
	return f.remove(ctx, name, false, rev)
}

// Chmod sets the permission bits of the file or directory at name to
// mode&0o7777, in one statement; its Rev moves, its mtime stays. Errors:
// ENOENT, ENOTDIR, ELOOP (name is a symbolic link, which is never
// followed), EINVAL, EIO.
func (f *FS) Chmod(ctx context.Context, name string, mode uint32) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := f.refuseChange(name); err != nil {
		return err
	}
	return f.mutate(ctx, f.pool, name, "chmod", f.ws, []byte(name), int32(mode&0o7777))
}
