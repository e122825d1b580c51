package pgfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// inlineChunks is how many chunks (1 MiB) a write sends as an argument
// of put, in one round trip; a longer content is copied in first.
const inlineChunks = 16

// window is how many chunks a reader fetches in one round trip (1 MiB)
// once it has read on; Open's own statement brings firstWindow (128 KiB,
// more than a page of read), and each fetch after it twice the one
// before, up to window: a read of a file's first page does not wait for
// a MiB of it to come over, and a read to the end still costs a round
// trip per MiB.
const (
	window      = 16
	firstWindow = 2
)

// errChanged is a reader's error when the content it opened was
// replaced or removed before it read all it needed.
func errChanged(name string) error {
	return errno.New(errno.EAGAIN, toolspec.MsgReasonChangedWhileRead, name)
}

// readChunks reads r when it holds n chunks or fewer (the last possibly
// short); otherwise more is true and chunks are its first n+1.
func readChunks(r io.Reader, n int) (chunks [][]byte, size int64, more bool, err error) {
	for len(chunks) <= n {
		c, err := readChunk(r)
		if err != nil {
			return nil, 0, false, err
		}
		if len(c) > 0 {
			chunks = append(chunks, c)
			size += int64(len(c))
		}
		if len(c) < chunkSize {
			return chunks, size, false, nil
		}
	}
	return chunks, size, true, nil
}

// readChunk reads one chunk of r: chunkSize bytes but at its end.
func readChunk(r io.Reader) ([]byte, error) {
	buf := make([]byte, chunkSize)
	n, err := io.ReadFull(r, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:n], err
}

// WriteFile creates or replaces the regular file at name with what r
// holds, and sets its permission bits to mode&0o7777, atomically.
//
// Content up to 1 MiB goes to the server as an argument of one
// statement that checks, stores and switches (one round trip). A longer
// one is streamed with COPY into chunks under a new content id, then
// switched to by the same statement, all in one transaction on a
// connection opened for it (not one of the pool's): when r
// fails, ctx is done, the process dies or the connection breaks, the
// transaction is rolled back and the file keeps its old content, with
// nothing left behind. r's error is returned as is.
//
// Errors: ENOENT or ENOTDIR (no parent directory), EISDIR (a directory
// at name), ELOOP (a symbolic link at name), EINVAL (a
// *vfs.NameTooLongError for a name over 2599 bytes, before r is read),
// EIO.
func (f *FS) WriteFile(ctx context.Context, name string, r io.Reader, mode uint32) error {
	return f.writeFile(ctx, name, r, mode&0o7777, anyRev)
}

// WriteFileIf is WriteFile done only while the node at name is at
// revision rev (0: nothing may be at name): the check and the switch to
// the new content are one statement. When the node moved on, it fails
// with EAGAIN and the file is as it was. Errors otherwise as WriteFile's.
func (f *FS) WriteFileIf(ctx context.Context, name string, rev int64, r io.Reader, mode uint32) error {
	return f.writeFile(ctx, name, r, mode&0o7777, rev)
}

func (f *FS) writeFile(ctx context.Context, name string, r io.Reader, mode uint32, rev int64) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := f.refuseChange(name); err != nil {
		return err
	}
	if name == "" {
		return errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	}
	if err := checkNew(name); err != nil {
		return err
	}
	chunks, size, more, err := readChunks(r, inlineChunks)
	if err != nil {
		return err
	}
	if !more {
		return f.put(ctx, f.pool, "put", name, mode, size, nil, chunks, rev)
	}
	c, err := f.streamConn(ctx)
	if err != nil {
		return fail(ctx, name, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	tx, err := c.Begin(ctx)
	if err != nil {
		return fail(ctx, name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var cid int64
	if err := tx.QueryRow(ctx, statements["next_cid"]).Scan(&cid); err != nil {
		return fail(ctx, name, err)
	}
	src := &chunkSource{cid: cid, pending: chunks, size: size, r: r}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{schemaName, "chunk"}, []string{"cid", "idx", "data"}, src)
	if src.err != nil {
		return src.err
	}
	if err != nil {
		return fail(ctx, name, err)
	}
	if err := f.put(ctx, tx, statements["put"], name, mode, src.size, &cid, nil, rev); err != nil {
		return err
	}
	return fail(ctx, name, tx.Commit(ctx))
}

// streamConn opens a connection of its own for a write copied in, from
// the pool's configuration (the same server, settings and round-trip
// count), which its caller closes. The COPY lasts as long as its reader
// takes (a command's output, saved as the command prints it): on a
// connection of the pool it would hold one for that long, and a few at
// once (a command's stdout and stderr) would leave none for the
// statements that the command's progress, or the writes themselves,
// wait on. The pool serves short statements only.
//
// Its statements go by their text in one round trip each (the pool's
// are prepared on its connections, not here).
func (f *FS) streamConn(ctx context.Context) (*pgx.Conn, error) {
	cfg := f.pool.Config().ConnConfig.Copy()
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	return pgx.ConnectConfig(ctx, cfg)
}

// put runs the statement that makes name a file of size bytes: the
// content cid, or chunks; stmt is its name on a connection of the pool,
// its text on another.
func (f *FS) put(ctx context.Context, q querier, stmt, name string, mode uint32, size int64, cid *int64, chunks [][]byte, rev int64) error {
	dir, base := split(name)
	return f.mutate(ctx, q, name, stmt, f.ws, []byte(name), []byte(dir), []byte(base), int32(mode),
		f.now().UnixMilli(), size, cid, chunks, rev)
}

// chunkSource feeds COPY the chunks of a content: pending ones, then
// what it reads of r.
type chunkSource struct {
	cid     int64
	pending [][]byte
	idx     int32
	size    int64 // the bytes read so far
	r       io.Reader
	done    bool
	cur     []byte
	err     error // r's
}

func (s *chunkSource) Next() bool {
	if len(s.pending) > 0 {
		s.cur, s.pending = s.pending[0], s.pending[1:]
		return true
	}
	if s.done {
		return false
	}
	c, err := readChunk(s.r)
	if err != nil {
		s.err = err
		return false
	}
	if len(c) < chunkSize {
		s.done = true
	}
	if len(c) == 0 {
		return false
	}
	s.cur = c
	s.size += int64(len(c))
	return true
}

func (s *chunkSource) Values() ([]any, error) {
	v := []any{s.cid, s.idx, s.cur}
	s.idx++
	return v, nil
}

func (s *chunkSource) Err() error { return s.err }

// Update replaces the content of the regular file at name with what fn
// makes of it (see UpdatePieces).
func (f *FS) Update(ctx context.Context, name string, limit int64, fn func(old []byte, info vfs.Info) ([]byte, error)) error {
	return f.UpdatePieces(ctx, name, limit, func(old []byte, info vfs.Info) (vfs.Pieces, error) {
		out, err := fn(old, info)
		return vfs.Pieces{out}, err
	})
}

// UpdatePieces replaces the content of the regular file at name with
// what fn makes of it, optimistically: it reads the node and its content
// in one statement (a snapshot, holding no lock), calls fn, and writes
// its result as WriteFile does, only while the node is still at the
// revision that was read (the check and the switch are one statement).
// So fn's work never holds a lock, and no write from anywhere is lost:
// when the file moved on, nothing is written and UpdatePieces fails with
// EAGAIN (the workspace reads again and retries). The file keeps its
// mode; its mtime and Rev move. A file longer than limit bytes is not
// read (*vfs.TooLargeError). When fn fails, nothing is written and its
// error is returned as is.
//
// Errors: ENOENT, ENOTDIR, EISDIR, ELOOP (a symbolic link), EINVAL,
// EAGAIN, EIO.
func (f *FS) UpdatePieces(ctx context.Context, name string, limit int64, fn func(old []byte, info vfs.Info) (vfs.Pieces, error)) error {
	if err := checkName(name); err != nil {
		return err
	}
	// Refused before anything is read when nothing may be written.
	if err := f.refuseChange(name); err != nil {
		return err
	}
	var n node
	var chunks [][]byte
	err := f.pool.QueryRow(ctx, "read_all", f.ws, []byte(name), limit).Scan(&n.typ, &n.mode, &n.mtime, &n.size, &n.target, &n.rev, &chunks)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return f.missing(ctx, name)
	case err != nil:
		return fail(ctx, name, err)
	case n.typ != dbFile:
		return notFile(n.typ, name)
	case n.size > limit:
		return &vfs.TooLargeError{Size: n.size}
	}
	old := make([]byte, 0, n.size)
	for _, c := range chunks {
		old = append(old, c...)
	}
	if int64(len(old)) != n.size {
		return &errno.Error{Code: errno.EIO, Message: "content of " + name + " is missing chunks", Path: name}
	}
	_, base := split(name)
	out, err := fn(old, n.info(base))
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	return f.writeFile(ctx, name, out.Reader(), uint32(n.mode), n.rev)
}

// Open reads the regular file at name from byte offset: the node and
// the first 128 KiB window of its content from there in one statement,
// each later window (twice the one before, up to 1 MiB) in one more. Content ids are never reused and a
// content's chunks go in the transaction that stops referring to it, so
// a reader reads the content it opened, or, when the file was replaced
// or removed meanwhile, fails with EAGAIN; it never mixes two versions.
// Errors: ENOENT, ENOTDIR, EISDIR, ELOOP (a symbolic link, never
// followed), EINVAL, EIO.
func (f *FS) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	offset = max(offset, 0)
	// Chunk indexes are 32 bits: an offset beyond them is beyond the end.
	first := min(offset/chunkSize, math.MaxInt32-window)
	rows, err := f.pool.Query(ctx, "open", f.ws, []byte(name), first, first+firstWindow)
	if err != nil {
		return nil, fail(ctx, name, err)
	}
	defer rows.Close()
	r := &reader{f: f, ctx: ctx, name: name, off: offset, next: first, win: firstWindow}
	found := false
	var typ int16
	for rows.Next() {
		var idx *int64
		var data []byte
		if err := rows.Scan(&typ, &r.size, &r.cid, &idx, &data); err != nil {
			return nil, fail(ctx, name, err)
		}
		found = true
		if idx != nil {
			r.chunks = append(r.chunks, data)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, name, err)
	}
	switch {
	case !found:
		return nil, fail(ctx, name, f.missing(ctx, name))
	case typ != dbFile:
		return nil, notFile(typ, name)
	case offset >= r.size:
		r.chunks, r.off = nil, r.size
		return r, nil
	}
	if err := r.took(first); err != nil {
		return nil, err
	}
	r.buf = r.buf[offset-first*chunkSize:]
	return r, nil
}

// reader reads a content a window of chunks at a time.
type reader struct {
	f      *FS
	ctx    context.Context
	name   string
	cid    *int64
	size   int64
	off    int64 // the offset of buf in the file
	next   int64 // the chunk after those fetched
	win    int64 // how many chunks the last fetch asked for
	chunks [][]byte
	buf    []byte
	closed bool
}

// took checks the chunks fetched from chunk from on (all those of the
// window that the file has) and makes them the buffer: fewer mean the
// content is gone.
func (r *reader) took(from int64) error {
	total := (r.size + chunkSize - 1) / chunkSize
	want := min(r.win, total-from)
	var got int64
	var buf []byte
	for _, c := range r.chunks {
		got++
		if len(r.chunks) == 1 {
			buf = c
		} else {
			buf = append(buf, c...)
		}
	}
	r.chunks = nil
	if r.cid == nil || got != want || int64(len(buf)) != min(r.size, (from+want)*chunkSize)-from*chunkSize {
		return errChanged(r.name)
	}
	r.buf, r.next = buf, from+want
	return nil
}

// fetch reads the next window of chunks.
func (r *reader) fetch() error {
	r.win = min(2*r.win, window)
	rows, err := r.f.pool.Query(r.ctx, "chunks", *r.cid, r.next, r.next+r.win)
	if err != nil {
		return fail(r.ctx, r.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var idx int64
		var data []byte
		if err := rows.Scan(&idx, &data); err != nil {
			return fail(r.ctx, r.name, err)
		}
		r.chunks = append(r.chunks, data)
	}
	if err := rows.Err(); err != nil {
		return fail(r.ctx, r.name, err)
	}
	return r.took(r.next)
}

func (r *reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, fs.ErrClosed
	}
	if len(r.buf) == 0 {
		if r.off >= r.size {
			return 0, io.EOF
		}
		if err := r.fetch(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.off += int64(n)
	return n, nil
}

func (r *reader) Close() error {
	r.closed, r.buf, r.chunks = true, nil, nil
	return nil
}
