package sqlitefs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report is what Check found in a workspace database.
type Report struct {
	// Integrity is the answer of PRAGMA integrity_check, one line each
	// (at most about 100 findings): ["ok"] for a sound file, nil when
	// SQLite could not run the check (Problems says why).
	Integrity []string
	// Files is how many files with content were checked; Chunks how many
	// chunks of content were read, Unverified how many of those carry no
	// checksum (written by a program of layout 1) and so were checked
	// for their length only.
	Files, Chunks, Unverified int64
	// Problems lists what the workspace's own checks found, one a line:
	// a chunk that does not match its checksum, a file whose chunks are
	// missing or of the wrong length, a table SQLite could not read.
	Problems []string
}

// OK reports whether the database is sound: integrity_check answered ok
// and every chunk matched.
func (r *Report) OK() bool {
	return len(r.Integrity) == 1 && r.Integrity[0] == "ok" && len(r.Problems) == 0
}

// Check examines the workspace database at path, changing nothing: it
// runs PRAGMA integrity_check over the whole file, then reads every chunk
// of file content, checking it against its checksum, and every file's
// chunks against the file's size, all in one read transaction. It reads
// a damaged file Open would refuse: damage is what the Report lists, not
// an error.
//
// When nothing has the database open (no -wal file beside it), it is
// read as an immutable file, which creates no file beside it; a database
// that changes meanwhile fails the check (run it again). Otherwise it is
// read through SQLite's shared memory with the process writing it.
//
// Errors: the file does not exist or cannot be read, ErrNotDatabase (not
// an SQLite database, or an empty file), ErrForeign, ErrNewerSchema, and
// a database that changed while it was checked.
func Check(ctx context.Context, path string) (*Report, error) {
	f := &FS{path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if err := f.precheck(abs); err != nil && !errors.Is(err, ErrCorrupt) {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, f.refuse(ErrNotDatabase, nil, "an empty file, not a workspace database yet")
	}
	immutable := !exists(abs + "-wal")
	if why := notWritable(abs); !immutable && why != "" && !exists(abs+"-shm") {
		return nil, f.logWithoutSharedMemory(abs, why)
	}
	params := []string{"mode=ro"}
	if immutable {
		params = append(params, "immutable=1")
		// As a read-only FS does (see openReader): a writer that closes
		// meanwhile keeps its -wal, which fails the check below.
		defer closeLock(holdSharedLock(abs))
	}
	before, err := stampOf(abs)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(abs, params...))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tx.Rollback()
	rep := &Report{}
	version, err := f.checkSchema(ctx, tx, rep)
	if err != nil {
		return nil, err
	}
	if err := integrityCheck(ctx, tx, rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if version > 0 {
		if err := checkContent(ctx, tx, version, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if immutable {
		after, err := stampOf(abs)
		if err != nil || !after.same(before) || exists(abs+"-wal") {
			return nil, fmt.Errorf("%s: the database changed while it was checked; check it again", path)
		}
	}
	return rep, nil
}

// checkSchema reads the layout of the database: its version, or 0 when
// damage keeps it from being read (noted in rep).
func (f *FS) checkSchema(ctx context.Context, q querier, rep *Report) (int, error) {
	err := f.checkVersion(ctx, q)
	switch {
	case errors.Is(err, ErrCorrupt):
		rep.Problems = append(rep.Problems, err.Error())
		return 0, nil
	case err != nil:
		return 0, err
	}
	version, names, err := readVersion(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", f.path, err)
	}
	if version == 0 && len(names) == 0 {
		return 0, f.refuse(ErrNotDatabase, nil, "an empty database, not a workspace database yet")
	}
	return version, nil
}

// integrityCheck runs PRAGMA integrity_check into rep. Damage that stops
// it is a problem; any other failure is returned.
func integrityCheck(ctx context.Context, q querier, rep *Report) error {
	rows, err := q.QueryContext(ctx, `PRAGMA integrity_check`)
	if err == nil {
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var line string
			if err = rows.Scan(&line); err != nil {
				break
			}
			// A row holds the findings of one pass, a line each.
			lines = append(lines, strings.Split(line, "\n")...)
		}
		if err == nil {
			err = rows.Err()
		}
		rep.Integrity = lines
	}
	if isCorrupt(err) {
		rep.Problems = append(rep.Problems, "PRAGMA integrity_check: "+sqliteReason(err))
		return nil
	}
	return err
}

// content is what checkContent learns of one content id.
type content struct {
	path    string // the file that refers to it, "" for none
	size    int64  // that file's size
	next    int64  // the index of the next chunk expected
	total   int64  // bytes in its chunks so far
	damaged bool   // a problem was listed for it
}

// checkContent reads every chunk and checks it against its checksum and
// against the size of the file that refers to its content. Damage that
// stops it is a problem; any other failure is returned.
func checkContent(ctx context.Context, q querier, version int, rep *Report) error {
	err := scanContent(ctx, q, version, rep)
	if isCorrupt(err) {
		rep.Problems = append(rep.Problems, "reading file content: "+sqliteReason(err))
		return nil
	}
	return err
}

func scanContent(ctx context.Context, q querier, version int, rep *Report) error {
	contents := map[int64]*content{}
	rows, err := q.QueryContext(ctx, `SELECT path, size, cid FROM node WHERE type = ? AND cid IS NOT NULL`, dbFile)
	if err != nil {
		return err
	}
	for rows.Next() {
		var c content
		var cid int64
		if err := rows.Scan(&c.path, &c.size, &cid); err != nil {
			rows.Close()
			return err
		}
		c.path = "/" + c.path
		contents[cid] = &c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rep.Files = int64(len(contents))
	sum := "sum"
	if version < 2 {
		sum = "NULL"
	}
	rows, err = q.QueryContext(ctx, `SELECT cid, idx, data, `+sum+` FROM chunk ORDER BY cid, idx`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var cid, idx int64
		var data sql.RawBytes
		var sum sql.NullInt64
		if err := rows.Scan(&cid, &idx, &data, &sum); err != nil {
			return err
		}
		rep.Chunks++
		if !sum.Valid {
			rep.Unverified++
		}
		c := contents[cid]
		if c == nil {
			// Content no file refers to (yet): a write in progress or
			// garbage; its checksums still hold.
			c = &content{path: fmt.Sprintf("content %d (no file refers to it)", cid), size: -1}
			contents[cid] = c
		}
		problem := ""
		switch {
		case sum.Valid && chunkSum(data) != sum.Int64:
			problem = fmt.Sprintf("chunk %d does not match its checksum", idx)
		case c.size >= 0 && idx != c.next:
			problem = fmt.Sprintf("chunk %d is missing", c.next)
		case c.size >= 0 && int64(len(data)) != min(chunkSize, c.size-idx*chunkSize):
			problem = fmt.Sprintf("chunk %d holds %d bytes, want %d", idx, len(data), max(0, min(chunkSize, c.size-idx*chunkSize)))
		}
		if problem != "" {
			rep.Problems = append(rep.Problems, c.path+": "+problem)
			c.damaged = true
		}
		c.next = idx + 1
		c.total += int64(len(data))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var short []string
	for _, c := range contents {
		if c.size >= 0 && !c.damaged && c.total != c.size {
			short = append(short, fmt.Sprintf("%s: its chunks hold %d bytes, want %d", c.path, c.total, c.size))
		}
	}
	slices.Sort(short)
	rep.Problems = append(rep.Problems, short...)
	return nil
}

// stamp identifies a version of a file: it changes when the file is
// written (its size or modification time, kept in ns) or replaced.
type stamp struct{ fi os.FileInfo }

func stampOf(path string) (stamp, error) {
	fi, err := os.Stat(path)
	return stamp{fi}, err
}

// same reports whether a and b are one version of one file.
func (a stamp) same(b stamp) bool {
	return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
