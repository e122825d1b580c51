package sqlitefs

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// notFile is the error for a node that is no regular file.
func notFile(n node, name string) error {
	switch n.typ {
	case dbDir:
		return errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	case dbSymlink:
		return errno.New(errno.ELOOP, toolspec.MsgReasonSymlink, name)
	}
	return errno.New(errno.EINVAL, toolspec.MsgReasonNotRegularFile, name)
}

// errChanged is a reader's error when the content it opened was
// replaced or removed before it read all it needed.
func errChanged(name string) error {
	return errno.New(errno.EAGAIN, toolspec.MsgReasonChangedWhileRead, name)
}

// errChunkMissing and errChecksum are the damage a reader finds in a
// file's chunks: one missing or of the wrong length, one whose bytes do
// not match their checksum.
var (
	errChunkMissing = &damage{reason: toolspec.MsgDatabaseChunkMissing}
	errChecksum     = &damage{reason: toolspec.MsgDatabaseChecksum}
)

// checkChunk checks a chunk read back: its length is want bytes and its
// bytes match sum (unless it has none, written by layout 1).
func checkChunk(data []byte, sum sql.NullInt64, want int64) error {
	if int64(len(data)) != want {
		return errChunkMissing
	}
	if sum.Valid && chunkSum(data) != sum.Int64 {
		return errChecksum
	}
	return nil
}

// chunkInto is the SQL function the statements that read chunks copy
// each chunk's bytes with, straight from SQLite's memory into the
// reader's buffer: chunkInto(sink, idx, data) copies data to the sink's
// buffer at (idx - first) * chunkSize (see sinkTo) and returns its
// length, NULL for NULL data, or -1 when it does not fit there (more
// than chunkSize bytes, or outside the buffer), which no chunk's length
// is. Scanning the blob instead would copy it twice more: the driver
// into a new slice, that into the buffer.
const chunkInto = "agenttools_chunk_into"

func init() {
	sqlite.MustRegisterFunction(chunkInto, &sqlite.FunctionImpl{
		NArgs: 3,
		// The bytes are copied before the call returns, never kept.
		VolatileArgs: true,
		Scalar:       sqlChunkInto,
	})
}

// sink is where chunkInto copies chunks: chunk first at buf[0:], the
// next at buf[chunkSize:] and so on.
type sink struct {
	buf   []byte
	first int64
}

// sinks are the sinks of the statements running, by id.
var (
	sinks   sync.Map // int64 → *sink
	sinkIDs atomic.Int64
)

// sinkTo makes buf, holding chunk first and those after it, the sink of
// a statement: the id to pass it, and the function that ends the sink
// once its rows are read.
func sinkTo(buf []byte, first int64) (id int64, done func()) {
	id = sinkIDs.Add(1)
	sinks.Store(id, &sink{buf: buf, first: first})
	return id, func() { sinks.Delete(id) }
}

// sqlChunkInto is chunkInto.
func sqlChunkInto(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	id, _ := args[0].(int64)
	idx, ok := args[1].(int64)
	var n int
	switch v := args[2].(type) {
	case nil:
		return nil, nil
	case []byte:
		n = len(v)
	case string:
		n = len(v)
	default:
		return int64(-1), nil
	}
	p, found := sinks.Load(id)
	if !found || !ok {
		return int64(-1), nil
	}
	s := p.(*sink)
	if idx < s.first || idx-s.first >= int64(len(s.buf)+chunkSize-1)/chunkSize || n > chunkSize {
		return int64(-1), nil
	}
	at := (idx - s.first) * chunkSize
	if int64(n) > int64(len(s.buf))-at {
		return int64(-1), nil
	}
	switch v := args[2].(type) {
	case []byte:
		copy(s.buf[at:], v)
	case string:
		copy(s.buf[at:], v)
	}
	return int64(n), nil
}

// checkSunk checks a chunk chunkInto copied to buf[at:], whose length it
// returned as n: it is want bytes long and matches sum (unless it has
// none, written by layout 1), as checkChunk checks.
func checkSunk(buf []byte, at int64, n, sum sql.NullInt64, want int64) error {
	if !n.Valid || n.Int64 != want || want < 0 {
		return errChunkMissing
	}
	return checkChunk(buf[at:at+want], sum, want)
}

// Open returns a reader of the regular file at name from byte offset to
// its end (nothing when offset is at or past the end). The reader
// fetches the 64 KiB chunks it needs lazily, so reading the end of a
// large file touches only its last chunks: the first with the node,
// then in one query each as many as the caller's buffer needs, or more
// as it reads on (a window that doubles every second fetch, from one
// chunk to 16, 1 MiB). It reads the
// content the file had when opened; when that content is replaced or
// removed before the reader has fetched all it needs, Read fails with an
// EAGAIN error saying so (read again): it never returns a mix. The first
// chunk it needs is read with the node, so a file of one chunk never
// fails so. Every chunk is checked
// against its checksum and length: a chunk that fails, or is missing
// while the file still refers to its content, fails Read with the
// damaged error (see FS). Reads honour ctx.
//
// Errors: ENOENT, ENOTDIR, EISDIR (a directory), ELOOP (a symbolic link,
// never followed), EINVAL, EIO; EAGAIN from Read.
func (f *FS) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	done, err := f.fresh(ctx)
	defer done()
	if err != nil {
		return nil, f.fail(ctx, name, err)
	}
	r, err := f.open(ctx, name, offset)
	if err != nil {
		return nil, f.fail(ctx, name, err)
	}
	return r, nil
}

// open reads the node at name and the chunk holding offset in one
// statement (one snapshot), and returns a reader of the file from
// offset holding that chunk.
func (f *FS) open(ctx context.Context, name string, offset int64) (*reader, error) {
	dir, base := split(name)
	idx := max(offset, 0) / chunkSize
	win := getWindow()[:chunkSize]
	var got, sum sql.NullInt64
	id, done := sinkTo(win, idx)
	s := newRowScanner()
	n, _, err := s.node(withExtra{f.r.QueryRowContext(ctx, qNodeChunk, name, idx, id), []any{&got, &sum}}, false, dir, base, name == "", f.r.unsummed())
	s.free()
	done()
	r := &reader{f: f, ctx: ctx, name: name, data: win}
	if err == nil && n.typ == dbFile {
		r.cid, r.size, r.off = n.cid.Int64, n.size, min(max(offset, 0), n.size)
		if r.off >= r.size {
			return r, nil
		}
		// The first chunk comes from the snapshot the node came from: a
		// file of one chunk (64 KiB) is read whole even when it is
		// replaced at once. A file that refers to content without that
		// chunk is damaged.
		f.chunkReads.Add(1)
		want := min(chunkSize, r.size-idx*chunkSize)
		if err = checkSunk(win, 0, got, sum, want); err == nil {
			r.buf = win[r.off-idx*chunkSize : want]
			return r, nil
		}
	}
	r.Close()
	switch {
	case err == sql.ErrNoRows:
		return nil, missing(ctx, f.r, name)
	case err != nil:
		return nil, err
	}
	return nil, notFile(n, name)
}

// withExtra scans a row into the destinations it is given and then into
// extra: a node row with more columns after the node's.
type withExtra struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (w withExtra) Scan(dest ...any) error {
	return w.row.Scan(append(dest, w.extra...)...)
}

// readTx runs fn in one read transaction (a snapshot) of the reading
// pool, once a read-only FS has made sure it reads the file as it is
// now. fn's errors, and the pool's, are returned as fail words them (a
// *errno.Error and passErr pass unchanged).
func (f *FS) readTx(ctx context.Context, name string, fn func(tx *tx) error) error {
	done, err := f.fresh(ctx)
	defer done()
	if err == nil {
		var t *tx
		if t, err = f.r.begin(ctx); err == nil {
			defer t.Rollback()
			err = fn(t)
		}
	}
	return f.fail(ctx, name, err)
}

// readAhead is how many chunks a reader fetches in one query at most
// (1 MiB): the reader's window doubles from one chunk every second fetch
// of a sequential read, up to this.
const readAhead = 16

// windows keeps the buffers readers fetch chunks into (up to readAhead
// chunks each), from a reader's Close to the next reader that reads on.
var windows sync.Pool

// getWindow returns an empty buffer of readAhead chunks' capacity, the
// most a reader fetches at once: a reader whose window grows never
// grows the buffer (copying what it holds each time), and the pool,
// which a garbage collection empties, is refilled with buffers that
// serve any reader.
func getWindow() []byte {
	if p, ok := windows.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, readAhead*chunkSize)
}

// putWindow keeps b, a buffer of getWindow no longer in use, for reuse.
func putWindow(b []byte) {
	if cap(b) == readAhead*chunkSize {
		windows.Put(&b)
	}
}

// reader reads one content, chunk by chunk.
type reader struct {
	f       *FS
	ctx     context.Context
	name    string
	cid     int64
	size    int64
	off     int64  // the offset of buf's first byte
	buf     []byte // the rest of the chunks fetched last
	data    []byte // the chunks fetched last, buf's backing array
	fetches int    // how many fetches the reader made after Open's
	closed  bool
}

// fetch loads the chunks from the one holding r.off into r.buf: at least
// want bytes' worth (the length of the caller's buffer), and at least
// the reader's window, which doubles every second fetch (up to
// readAhead chunks), all in one query.
func (r *reader) fetch(want int) error {
	done, err := r.f.fresh(r.ctx)
	defer done()
	if err != nil {
		return r.f.fail(r.ctx, r.name, err)
	}
	first := r.off / chunkSize
	// 1, 1, 2, 2, 4, 4, ...: slow enough that a reader that stops early
	// (read's first page) fetched few chunks it does not use.
	n := int64(1) << min(r.fetches/2, 4)
	r.fetches++
	if want > 0 {
		n = max(n, (r.off+int64(want)-1)/chunkSize-first+1)
	}
	n = min(n, readAhead, (r.size-1)/chunkSize-first+1)
	return r.f.fail(r.ctx, r.name, r.fetchRange(first, n))
}

// fetchRange loads chunks [first, first+n) into r.buf in one query
// (one snapshot), checking each against its length and checksum. A
// chunk after the first that is missing or fails its check ends the
// range before it: the next fetch starts there and reports it, so the
// reader returns every byte before it, as one query per chunk would.
func (r *reader) fetchRange(first, n int64) error {
	q := r.f.r
	if r.data == nil {
		r.data = getWindow()
	}
	data := r.data[:n*chunkSize]
	id, done := sinkTo(data, first)
	defer done()
	rows, err := q.QueryContext(r.ctx, qChunkRange, r.cid, first, first+n, id)
	if err != nil {
		return err
	}
	idx := first
	for ; rows.Next(); idx++ {
		var got int64
		var size, sum sql.NullInt64
		if err = rows.Scan(&got, &size, &sum); err != nil {
			break
		}
		if got != idx {
			break
		}
		if err = checkSunk(data, (idx-first)*chunkSize, size, sum, min(chunkSize, r.size-idx*chunkSize)); err != nil {
			break
		}
	}
	if err == nil {
		err = rows.Err()
	}
	rows.Close()
	r.f.chunkReads.Add(max(idx-first, 1))
	switch {
	case idx > first:
		// Every chunk but the file's last is whole.
		r.buf = data[r.off-first*chunkSize : min((idx-first)*chunkSize, r.size-first*chunkSize)]
		return nil
	case err != nil:
		return err
	}
	// The first chunk is not there: the content is gone, or damaged.
	return r.gone(q)
}

// gone explains a chunk of the reader's content that is not in the
// database: the content was replaced or removed (the file changed), or,
// when the file still refers to it, the chunk is missing (damage). A
// content is deleted in the transaction that stops the file referring
// to it, and its id is never reused, so a file that refers to it after
// the chunk was found missing referred to it all along.
func (r *reader) gone(q source) error {
	n, ok, err := getNode(r.ctx, q, r.name)
	switch {
	case err != nil:
		return err
	case ok && n.cid.Valid && n.cid.Int64 == r.cid:
		return errChunkMissing
	}
	return errChanged(r.name)
}

func (r *reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, fs.ErrClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.buf) == 0 {
		if r.off >= r.size {
			return 0, io.EOF
		}
		if err := r.fetch(len(p)); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.off += int64(n)
	return n, nil
}

// WriteTo writes the rest of the content to w, a chunk at a time.
func (r *reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if r.closed {
			return total, fs.ErrClosed
		}
		if len(r.buf) == 0 {
			if r.off >= r.size {
				return total, nil
			}
			if err := r.fetch(0); err != nil {
				return total, err
			}
		}
		n, err := w.Write(r.buf)
		r.buf = r.buf[n:]
		r.off += int64(n)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}

func (r *reader) Close() error {
	if r.data != nil {
		putWindow(r.data)
	}
	r.closed, r.buf, r.data = true, nil, nil
	return nil
}

// writable checks that a regular file can be written at name: its parent
// is a directory and name is nothing or a regular file. It returns the
// node at name (ok false when there is none) and the parent's path.
func writable(ctx context.Context, q source, name string) (n node, ok bool, dir string, err error) {
	if name == "" {
		return n, false, "", errno.New(errno.EISDIR, toolspec.MsgReasonIsDirectory, name)
	}
	dir, _, err = parentDir(ctx, q, name)
	if err != nil {
		return n, false, "", err
	}
	n, ok, err = getNode(ctx, q, name)
	if err == nil && ok && n.typ != dbFile {
		err = notFile(n, name)
	}
	return n, ok, dir, err
}

// WriteFile creates or replaces the regular file at name with what r
// holds, and sets its permission bits to mode&0o7777.
//
// It streams r into the chunks of a new content in transactions of at
// most 1 MiB (written when 16 chunks are full, or every second when
// fewer are), none of them holding the write lock while r is read, and
// then, in one short transaction, points the file at the new content and
// deletes the old one: a reader sees the old content or the new one.
// When r fails, ctx is done or the process dies, the file keeps its old
// content; the new content's chunks are deleted, or, when the process
// died, collected by a later Open. r's error is returned as is.
//
// Errors: ENOENT or ENOTDIR (no parent directory), EISDIR (a directory
// at name), ELOOP (a symbolic link at name), EINVAL, EBUSY, ENOSPC, EIO.
func (f *FS) WriteFile(ctx context.Context, name string, r io.Reader, mode uint32) error {
	if err := checkName(name); err != nil {
		return err
	}
	// Refuse before reading anything when the file cannot be written.
	if err := f.refuseChange(name); err != nil {
		return err
	}
	if _, _, _, err := writable(ctx, f.r, name); err != nil {
		return f.fail(ctx, name, err)
	}
	return f.writeFile(ctx, name, r, mode&0o7777, anyRev)
}

// anyRev is writeFile's rev for a write on no condition.
const anyRev = -1

// WriteFileIf is WriteFile done only while the node at name is at
// revision rev (0: nothing may be at name): the check and the switch to
// the new content are one transaction. When the node moved on, it fails
// with EAGAIN and the file is as it was. Errors otherwise as WriteFile's.
func (f *FS) WriteFileIf(ctx context.Context, name string, rev int64, r io.Reader, mode uint32) error {
	if err := checkName(name); err != nil {
		return err
	}
	if _, _, _, err := writable(ctx, f.r, name); err != nil {
		return f.fail(ctx, name, err)
	}
	return f.writeFile(ctx, name, r, mode&0o7777, rev)
}

// writeFile streams r into a new content, then points the file at it if
// the node at name is at revision rev (anyRev: whatever it is).
func (f *FS) writeFile(ctx context.Context, name string, r io.Reader, mode uint32, rev int64) error {
	w := &contentWriter{f: f, ctx: ctx, name: name}
	defer w.release()
	err := w.stream(r)
	if err == nil {
		err = f.write(ctx, name, func(t *wtx) error { return w.commit(t, mode, rev) })
	}
	if err != nil {
		w.abort()
		return err
	}
	return nil
}

// errMoved is the error of a change whose node is no longer at the
// revision it was asked for.
func errMoved(name string) error {
	return &errno.Error{Code: errno.EAGAIN, Message: toolspec.MsgReasonChangedByWriter, Path: name}
}

// checkRev fails with errMoved unless the node n (ok: there is one) is
// at revision rev; anyRev accepts anything, 0 only no node.
func checkRev(name string, n node, ok bool, rev int64) error {
	switch {
	case rev == anyRev, rev == 0 && !ok, rev > 0 && ok && n.rev == rev:
		return nil
	}
	return errMoved(name)
}

// chunkBufs keeps the buffers of chunks written: a stored chunk's bytes
// are copied by SQLite when bound, so its buffer serves the next chunk
// of any writer (a write of a small file needs one, of 64 KiB).
var chunkBufs sync.Pool

// getChunk returns an empty buffer of chunkSize bytes' capacity.
func getChunk() []byte {
	if p, ok := chunkBufs.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, chunkSize)
}

// putChunk keeps b, a buffer of getChunk no longer in use, for reuse.
func putChunk(b []byte) {
	if cap(b) == chunkSize {
		chunkBufs.Put(&b)
	}
}

// release returns the writer's buffers for reuse; w is done.
func (w *contentWriter) release() {
	for _, c := range w.pending {
		putChunk(c)
	}
	if w.tail != nil {
		putChunk(w.tail)
	}
	w.pending, w.tail = nil, nil
}

// contentWriter is a WriteFile in progress.
type contentWriter struct {
	f    *FS
	ctx  context.Context
	name string

	cid       int64    // the new content, 0 until chunks were stored
	next      int64    // the index of the next chunk to store
	pending   [][]byte // full chunks not stored yet
	tail      []byte   // the chunk being filled
	size      int64    // bytes read from r
	lastFlush time.Time
}

// stream reads r to its end, storing full chunks as it goes.
func (w *contentWriter) stream(r io.Reader) error {
	w.lastFlush = time.Now()
	for {
		if w.tail == nil {
			w.tail = getChunk()
		}
		n, err := r.Read(w.tail[len(w.tail):chunkSize])
		w.tail = w.tail[:len(w.tail)+n]
		w.size += int64(n)
		if len(w.tail) == chunkSize {
			// A full batch is stored only once a chunk more follows it:
			// a file of batchChunks chunks (1 MiB) is then stored in the
			// transaction that points the file at it, not in one more.
			if len(w.pending) >= batchChunks {
				if err := w.flush(); err != nil {
					return err
				}
			}
			w.pending = append(w.pending, w.tail)
			w.tail = nil
		}
		since := time.Since(w.lastFlush)
		if len(w.pending) > 0 && since >= flushEvery || w.cid != 0 && since >= touchEvery {
			if err := w.flush(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
	}
}

// flush stores the pending chunks in a transaction of their own.
func (w *contentWriter) flush() error {
	var cid int64
	err := w.f.write(w.ctx, w.name, func(t *wtx) error {
		var err error
		cid, err = w.store(t, w.pending, false)
		return err
	})
	if err != nil {
		return err
	}
	w.cid = cid
	w.next += int64(len(w.pending))
	for _, c := range w.pending {
		putChunk(c)
	}
	w.pending = w.pending[:0]
	w.lastFlush = time.Now()
	return nil
}

// store writes chunks after the ones stored already, creating the
// content when there is none yet, and returns the content's id. The
// final store, in the transaction that points a file at the content,
// marks it as a file's (touched NULL); the others mark it alive. It fails
// when the content was collected meanwhile.
func (w *contentWriter) store(t *wtx, chunks [][]byte, final bool) (int64, error) {
	cid := w.cid
	now := time.Now().UnixMilli()
	var touched any = now
	if final {
		touched = nil
	}
	if cid == 0 {
		// No row: the counter is behind an id in use; a new id that is
		// one all the same (the UNIQUE constraint) is that too.
		err := t.QueryRowContext(t.ctx, qNextContent).Scan(&cid)
		if err == sql.ErrNoRows {
			return 0, errCounter
		}
		if err != nil {
			return 0, err
		}
		if _, err := t.ExecContext(t.ctx, qNewContent, cid, now, touched); isConstraint(err) {
			return 0, errCounter
		} else if err != nil {
			return 0, err
		}
	} else {
		res, err := t.ExecContext(t.ctx, qTouchContent, touched, cid)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return 0, errno.New(errno.EIO, toolspec.MsgReasonWriteStalled, w.name)
		}
	}
	for i, c := range chunks {
		if _, err := t.ExecContext(t.ctx, qAddChunk, cid, w.next+int64(i), c, chunkSum(c)); err != nil {
			return 0, err
		}
	}
	return cid, nil
}

// commit stores the last chunks and points the file at the content, if
// the node at its name is at revision rev (see checkRev); a file that
// was never there is created unless a revision is asked for.
func (w *contentWriter) commit(t *wtx, mode uint32, rev int64) error {
	n, ok, err := getNode(t.ctx, t, w.name)
	if err != nil {
		return err
	}
	if err := checkRev(w.name, n, ok, rev); err != nil {
		return err
	}
	var cid sql.NullInt64
	if w.size > 0 {
		chunks := w.pending
		if len(w.tail) > 0 {
			chunks = append(chunks, w.tail)
		}
		id, err := w.store(t, chunks, true)
		if err != nil {
			return err
		}
		cid = sql.NullInt64{Int64: id, Valid: true}
	}
	return t.setContent(w.name, n, ok, cid, w.size, mode, rev <= 0)
}

// setContent points the regular file at name, old as this transaction
// read it (ok: there is one; created when create is true and there is
// none), at content cid of size bytes, with permission bits mode, and
// deletes its old content. Its parent must be a directory and old a
// regular file (as writable checks).
func (t *wtx) setContent(name string, old node, ok bool, cid sql.NullInt64, size int64, mode uint32, create bool) error {
	dir, _, err := parentDir(t.ctx, t, name)
	if err != nil {
		return err
	}
	if ok && old.typ != dbFile {
		return notFile(old, name)
	}
	rev, err := t.bump()
	if err != nil {
		return err
	}
	if !ok {
		if !create {
			return errno.New(errno.ENOENT, toolspec.MsgReasonNoEntry, name)
		}
		_, base := split(name)
		if err := t.insert(name, dir, base, dbFile, mode, size, "", cid); err != nil {
			return err
		}
		return t.touchDir(dir, +1)
	}
	res, err := t.ExecContext(t.ctx, qSetContent, mode, t.now, size, rev, cid, name)
	if err := t.changed(res, err, name, 0); err != nil {
		return err
	}
	return t.dropContent(old.cid)
}

// abort deletes the content a failed write stored, unless a file refers
// to it after all (its commit failed only to report success).
func (w *contentWriter) abort() {
	if w.cid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), busyTimeout*time.Millisecond)
	defer cancel()
	_ = w.f.write(ctx, w.name, func(t *wtx) error {
		if _, err := t.ExecContext(ctx, qDelOrphanChunks, w.cid); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, qDelOrphanContent, w.cid)
		return err
	})
}

// Update replaces the content of the regular file at name with what fn
// makes of it, optimistically: it reads the node and its content in one
// read transaction (a snapshot, holding no lock), calls fn, streams fn's
// result into a new content as WriteFile does, and only then, in one
// short BEGIN IMMEDIATE transaction, points the file at it if the node
// is still at the revision that was read. So fn's work (matching an
// edit over megabytes) never holds the database's write lock, and no
// write by any connection, in any process, is lost: when the file moved
// on, nothing is written and Update fails with EAGAIN (the workspace
// reads again and retries). The file keeps its mode; its mtime and Rev
// move. A file longer than limit bytes is not read (*vfs.TooLargeError).
// When fn fails, nothing is written and its error is returned as is.
//
// Errors: ENOENT, ENOTDIR, EISDIR, ELOOP (a symbolic link), EINVAL,
// EAGAIN, EBUSY, EIO.
func (f *FS) Update(ctx context.Context, name string, limit int64, fn func(old []byte, info vfs.Info) ([]byte, error)) error {
	if err := checkName(name); err != nil {
		return err
	}
	n, old, err := f.readFile(ctx, name, limit)
	if err != nil {
		return err
	}
	_, base := split(name)
	out, err := fn(old, n.info(base))
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return f.writeFile(ctx, name, bytes.NewReader(out), n.mode, n.rev)
}

// readFile reads the regular file at name, node and content, in one read
// transaction; a file longer than limit bytes is not read.
func (f *FS) readFile(ctx context.Context, name string, limit int64) (n node, old []byte, err error) {
	err = f.readTx(ctx, name, func(tx *tx) error {
		if n, err = lookup(ctx, tx, name); err != nil {
			return err
		}
		if n.typ != dbFile {
			return notFile(n, name)
		}
		if n.size > limit {
			return passErr{&vfs.TooLargeError{Size: n.size}}
		}
		old, err = readAll(ctx, tx, name, n)
		return err
	})
	return n, old, err
}

// RemoveIf removes the file, symbolic link or empty directory at name
// only while it is at revision rev, in one transaction; EAGAIN when it
// moved on. Errors otherwise as Remove's.
func (f *FS) RemoveIf(ctx context.Context, name string, rev int64) error {
	return f.write(ctx, name, func(t *wtx) error {
		if err := checkName(name); err != nil {
			return err
		}
		n, ok, err := getNode(t.ctx, t, name)
		if err != nil {
			return err
		}
		if !ok {
			return missing(t.ctx, t, name)
		}
		if err := checkRev(name, n, true, rev); err != nil {
			return err
		}
		return t.remove(name, false)
	})
}

// readAll reads the whole content of the file n at name through q,
// checking every chunk as reader.fetch does (a failure is a *damage).
func readAll(ctx context.Context, q querier, name string, n node) ([]byte, error) {
	out := make([]byte, n.size)
	if !n.cid.Valid {
		return out, nil
	}
	id, done := sinkTo(out, 0)
	defer done()
	rows, err := q.QueryContext(ctx, qChunks, n.cid.Int64, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var held int64
	for want := int64(0); rows.Next(); want++ {
		var idx int64
		var size, sum sql.NullInt64
		if err := rows.Scan(&idx, &size, &sum); err != nil {
			return nil, err
		}
		if idx != want {
			return nil, errChunkMissing
		}
		if err := checkSunk(out, idx*chunkSize, size, sum, min(chunkSize, n.size-idx*chunkSize)); err != nil {
			return nil, err
		}
		held += size.Int64
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if held != n.size {
		return nil, errChunkMissing
	}
	return out, nil
}
