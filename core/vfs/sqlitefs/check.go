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
	// Layout is the database's schema version (see SchemaVersion); 0
	// when damage kept it from being read.
	Layout int
	// Nodes is how many node rows were checked, against their checksums
	// unless the layout is older than 3 (they have none).
	Nodes int64
	// Files is how many files with content were checked; Chunks how many
	// chunks of content were read, Unverified how many of those carry no
	// checksum (written by a program of layout 1) and so were checked
	// for their length only.
	Files, Chunks, Unverified int64
	// Problems lists what the workspace's own checks found, one a line:
	// a node row that does not match its checksum or holds an impossible
	// value, a directory whose count of entries is not the number of
	// nodes in it, files that share content or refer to content that is
	// not there, a counter below a number in use, a chunk that does not
	// match its checksum, a file whose chunks are missing or of the
	// wrong length, a table SQLite could not read.
	Problems []string
}

// OK reports whether the database is sound: integrity_check answered ok
// and every node and chunk passed.
func (r *Report) OK() bool {
	return len(r.Integrity) == 1 && r.Integrity[0] == "ok" && len(r.Problems) == 0
}

// Check examines the workspace database at path, changing nothing: it
// runs PRAGMA integrity_check over the whole file, then reads every node
// row, checking it against its checksum and for values the store never
// writes, every directory's count of entries against the nodes in it,
// every file's content id (one content per file, and there), the
// counters against the largest revision and content id in use, and
// every chunk of file content against its checksum, and every file's
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
	rep.Layout = version
	if err := integrityCheck(ctx, tx, rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if version > 0 {
		if err := checkRows(ctx, tx, version, rep); err != nil {
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

// content is what the check learns of one content id.
type content struct {
	path    string // the file that refers to it, "" for none
	size    int64  // that file's size
	next    int64  // the index of the next chunk expected
	total   int64  // bytes in its chunks so far
	damaged bool   // a problem was listed for it
}

// checkRows checks the nodes, the counters and the chunks. Damage that
// stops it is a problem; any other failure is returned.
func checkRows(ctx context.Context, q querier, version int, rep *Report) error {
	contents, err := checkNodes(ctx, q, version, rep)
	if isCorrupt(err) {
		rep.Problems = append(rep.Problems, "reading the nodes: "+sqliteReason(err))
		return nil
	}
	if err != nil {
		return err
	}
	err = scanContent(ctx, q, version, contents, rep)
	if isCorrupt(err) {
		rep.Problems = append(rep.Problems, "reading file content: "+sqliteReason(err))
		return nil
	}
	return err
}

// checkNodes reads every node row and checks it: its checksum (layout 3),
// its values, its place (parent and name are its path's), and then the
// count of entries of every directory, the files' content ids and the
// counters. It returns the files' contents, by content id.
func checkNodes(ctx context.Context, q querier, version int, rep *Report) (map[int64]*content, error) {
	table, extra := "tree", "entries, sum"
	if version < 3 {
		table, extra = "node", "NULL, NULL"
	}
	rows, err := q.QueryContext(ctx, `SELECT path, parent, name, type, mode, mtime, size, target, rev, cid, `+extra+` FROM `+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	unsummed := version < 3
	contents := map[int64]*content{}
	// The directories' counts of entries (-1: not to be trusted, the row
	// failed), and the nodes found in each.
	dirs := map[string]int64{}
	counted := map[string]int64{}
	var maxRev, maxCid int64
	var revAt, cidAt string
	var problems []string
	var buf []byte
	vals := make([]any, 3+nodeCols)
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		rep.Nodes++
		path, ok := vals[0].(string)
		if !ok {
			problems = append(problems, fmt.Sprintf("a node at %v (a %T): its path is not a text", vals[0], vals[0]))
			continue
		}
		shown := "/" + path
		dir, base := split(path)
		root := path == ""
		if !root {
			counted[dir]++
		}
		n, stored, ok := decodeNode(vals[3:], unsummed)
		if !ok {
			problems = append(problems, shown+": its record holds a value of the wrong type")
			continue
		}
		problem := ""
		parent, _ := vals[1].(string)
		if name, _ := vals[2].(string); name != base || root != (vals[1] == nil) || !root && parent != dir {
			problem = fmt.Sprintf("its record names another place (parent %v, name %v)", vals[1], vals[2])
		} else if !unsummed {
			var sum int64
			if buf, sum = n.sum(buf, dir, base, root); sum != stored {
				problem = "its record does not match its checksum"
			}
		}
		if problem == "" {
			problem = n.problem(root)
		}
		if problem != "" {
			problems = append(problems, shown+": "+problem)
			if n.typ == dbDir {
				dirs[path] = -1
			}
			continue
		}
		if n.typ == dbDir {
			dirs[path] = n.entries
		}
		if n.rev > maxRev {
			maxRev, revAt = n.rev, shown
		}
		if n.cid.Valid {
			if c := contents[n.cid.Int64]; c != nil {
				problems = append(problems, fmt.Sprintf("%s: its content %d is also that of %s", shown, n.cid.Int64, c.path))
				c.damaged = true
				continue
			}
			contents[n.cid.Int64] = &content{path: shown, size: n.size}
			if n.cid.Int64 > maxCid {
				maxCid, cidAt = n.cid.Int64, shown
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for dir, n := range counted {
		switch want, ok := dirs[dir]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("/%s: %d nodes are in it, and it is no directory", dir, n))
		case !unsummed && want >= 0 && n != want:
			problems = append(problems, fmt.Sprintf("/%s: %d nodes are in it, and it counts %d", dir, n, want))
		}
	}
	for dir, want := range dirs {
		if _, ok := counted[dir]; !ok && !unsummed && want > 0 {
			problems = append(problems, fmt.Sprintf("/%s: no node is in it, and it counts %d", dir, want))
		}
	}
	counters, err := checkCounters(ctx, q, contents, maxRev, revAt, maxCid, cidAt)
	if err != nil {
		return nil, err
	}
	slices.Sort(problems)
	rep.Problems = append(rep.Problems, problems...)
	rep.Problems = append(rep.Problems, counters...)
	return contents, nil
}

// checkCounters checks that the files' contents are there, as files'
// (not pending writes that garbage collection would delete), and that
// the counters are at least the largest revision (maxRev, of the node
// revAt) and content id in use.
func checkCounters(ctx context.Context, q querier, contents map[int64]*content, maxRev int64, revAt string, maxCid int64, cidAt string) ([]string, error) {
	var problems []string
	rows, err := q.QueryContext(ctx, `SELECT id, touched IS NOT NULL FROM content`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[int64]bool{}
	var maxID int64
	for rows.Next() {
		var id int64
		var pending bool
		if err := rows.Scan(&id, &pending); err != nil {
			return nil, err
		}
		found[id] = true
		maxID = max(maxID, id)
		if c := contents[id]; c != nil && pending {
			problems = append(problems, fmt.Sprintf("%s: its content %d is marked as a write in progress (it would be collected as garbage)", c.path, id))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var missing []string
	for id, c := range contents {
		if !found[id] {
			missing = append(missing, fmt.Sprintf("%s: its content %d is not in the database", c.path, id))
			c.damaged = true
		}
	}
	slices.Sort(missing)
	problems = append(problems, missing...)
	var rev, cid sql.NullInt64
	err = q.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'rev'), (SELECT value FROM meta WHERE key = 'content')`).Scan(&rev, &cid)
	if err != nil {
		return nil, err
	}
	switch {
	case !rev.Valid:
		problems = append(problems, "the change counter is missing")
	case rev.Int64 < maxRev:
		problems = append(problems, fmt.Sprintf("the change counter is %d, below the revision %d of %s", rev.Int64, maxRev, revAt))
	}
	switch {
	case !cid.Valid:
		problems = append(problems, "the content counter is missing")
	case cid.Int64 < max(maxID, maxCid):
		if maxCid > maxID {
			problems = append(problems, fmt.Sprintf("the content counter is %d, below the content id %d of %s", cid.Int64, maxCid, cidAt))
		} else {
			problems = append(problems, fmt.Sprintf("the content counter is %d, below the content id %d in use", cid.Int64, maxID))
		}
	}
	return problems, nil
}

// scanContent reads every chunk and checks it against its checksum and
// against the size of the file that refers to its content (contents).
func scanContent(ctx context.Context, q querier, version int, contents map[int64]*content, rep *Report) error {
	rep.Files = int64(len(contents))
	sum := "sum"
	if version < 2 {
		sum = "NULL"
	}
	rows, err := q.QueryContext(ctx, `SELECT cid, idx, data, `+sum+` FROM chunk ORDER BY cid, idx`)
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
