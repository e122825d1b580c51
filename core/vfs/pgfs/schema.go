package pgfs

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The meta rows that mark a schema agenttools as this package's.
const (
	application = "agenttools workspace store"
	schemaName  = "agenttools"
)

// schemaLock is the key of the advisory lock under which Open looks for
// the tables and creates them, so that concurrent first Opens of a
// database make one schema ("agenttoo" in ASCII).
const schemaLock = 0x6167656e74746f6f

// Node types as stored: vfs.FileType's values.
const (
	dbFile    = 0
	dbDir     = 1
	dbSymlink = 2
)

// chunkSize is the length of every chunk of a file's content but its
// last, as in sqlitefs.
const chunkSize = 64 << 10

// The mutations. Each is one statement, so one transaction of its own
// (or a step of the transaction of a large write), that first locks the
// workspace's row: the mutations of one workspace serialize on it, and
// whatever a mutation checks (under READ COMMITTED each statement of a
// plpgsql function sees what committed before it ran) still holds when
// it writes. Each returns an errno code, the empty text for success; a failure
// returns before the workspace's counter moves, so it changes nothing.
// ENOENT for the lock means the workspace was removed.
//
// missing says why a path has no node: ENOTDIR when a directory it
// names is something else, ENOENT otherwise.
var schemaSQL = `
CREATE SCHEMA agenttools;
CREATE TABLE agenttools.meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO agenttools.meta VALUES ('application', '` + application + `'), ('layout', '` + strconv.Itoa(SchemaVersion) + `');
CREATE TABLE agenttools.workspace (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name text UNIQUE NOT NULL,
	rev bigint NOT NULL,
	created bigint NOT NULL);
CREATE TABLE agenttools.node (
	ws bigint NOT NULL REFERENCES agenttools.workspace ON DELETE CASCADE,
	path bytea NOT NULL,
	parent bytea,
	name bytea NOT NULL,
	type smallint NOT NULL,
	mode integer NOT NULL,
	mtime bigint NOT NULL,
	size bigint NOT NULL,
	target bytea,
	rev bigint NOT NULL,
	cid bigint,
	PRIMARY KEY (ws, path));
CREATE INDEX node_entries ON agenttools.node (ws, parent, name);
CREATE SEQUENCE agenttools.content_id;
CREATE TABLE agenttools.chunk (
	cid bigint NOT NULL,
	idx integer NOT NULL,
	data bytea NOT NULL,
	PRIMARY KEY (cid, idx));
ALTER TABLE agenttools.chunk ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE FUNCTION agenttools.missing(a_ws bigint, a_path bytea) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE t smallint;
BEGIN
	FOR i IN 1..length(a_path) LOOP
		IF get_byte(a_path, i - 1) = 47 THEN
			SELECT n.type INTO t FROM agenttools.node n WHERE n.ws = a_ws AND n.path = substring(a_path FROM 1 FOR i - 1);
			IF NOT FOUND THEN RETURN 'ENOENT'; END IF;
			IF t <> 1 THEN RETURN 'ENOTDIR'; END IF;
		END IF;
	END LOOP;
	RETURN 'ENOENT';
END $$;

-- lock locks the workspace's row and returns its next revision (NULL:
-- there is no such workspace).
CREATE FUNCTION agenttools.lock(a_ws bigint) RETURNS bigint LANGUAGE sql AS $$
	SELECT w.rev + 1 FROM agenttools.workspace w WHERE w.id = a_ws FOR UPDATE
$$;

-- in_dir checks that a_parent, which holds a_path, is a directory: ''
-- or why not.
CREATE FUNCTION agenttools.in_dir(a_ws bigint, a_path bytea, a_parent bytea) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE t smallint;
BEGIN
	SELECT n.type INTO t FROM agenttools.node n WHERE n.ws = a_ws AND n.path = a_parent;
	IF NOT FOUND THEN RETURN agenttools.missing(a_ws, a_path); END IF;
	IF t <> 1 THEN RETURN 'ENOTDIR'; END IF;
	RETURN '';
END $$;

CREATE FUNCTION agenttools.mknode(a_ws bigint, a_path bytea, a_parent bytea, a_name bytea, a_type smallint,
	a_mode integer, a_now bigint, a_size bigint, a_target bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r bigint; e text;
BEGIN
	r := agenttools.lock(a_ws);
	IF r IS NULL THEN RETURN 'ENOENT'; END IF;
	e := agenttools.in_dir(a_ws, a_path, a_parent);
	IF e <> '' THEN RETURN e; END IF;
	INSERT INTO agenttools.node (ws, path, parent, name, type, mode, mtime, size, target, rev)
		VALUES (a_ws, a_path, a_parent, a_name, a_type, a_mode, a_now, a_size, a_target, r) ON CONFLICT DO NOTHING;
	IF NOT FOUND THEN RETURN 'EEXIST'; END IF;
	UPDATE agenttools.node n SET mtime = a_now, rev = r WHERE n.ws = a_ws AND n.path = a_parent;
	UPDATE agenttools.workspace w SET rev = r WHERE w.id = a_ws;
	RETURN '';
END $$;

-- put makes the regular file a_path hold a_size bytes: the content a_cid
-- (chunks already stored) or a_chunks (stored here under a new id), only
-- while the node is at revision a_rev_if (-1: any; 0: no node).
CREATE FUNCTION agenttools.put(a_ws bigint, a_path bytea, a_parent bytea, a_name bytea, a_mode integer,
	a_now bigint, a_size bigint, a_cid bigint, a_chunks bytea[], a_rev_if bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r bigint; e text; old_type smallint; old_rev bigint; old_cid bigint; c bigint := a_cid;
BEGIN
	r := agenttools.lock(a_ws);
	IF r IS NULL THEN RETURN 'ENOENT'; END IF;
	e := agenttools.in_dir(a_ws, a_path, a_parent);
	IF e <> '' THEN RETURN e; END IF;
	SELECT n.type, n.rev, n.cid INTO old_type, old_rev, old_cid FROM agenttools.node n WHERE n.ws = a_ws AND n.path = a_path;
	IF old_type IS NOT NULL THEN
		IF a_rev_if >= 0 AND a_rev_if <> old_rev THEN RETURN 'EAGAIN'; END IF;
		IF old_type = 1 THEN RETURN 'EISDIR'; END IF;
		IF old_type = 2 THEN RETURN 'ELOOP'; END IF;
	ELSIF a_rev_if > 0 THEN
		RETURN 'EAGAIN';
	END IF;
	IF c IS NULL AND cardinality(a_chunks) > 0 THEN
		c := nextval('agenttools.content_id');
		INSERT INTO agenttools.chunk (cid, idx, data) SELECT c, u.i - 1, u.d FROM unnest(a_chunks) WITH ORDINALITY AS u(d, i);
	END IF;
	IF old_type IS NOT NULL THEN
		IF old_cid IS NOT NULL THEN DELETE FROM agenttools.chunk k WHERE k.cid = old_cid; END IF;
		UPDATE agenttools.node n SET mode = a_mode, mtime = a_now, size = a_size, rev = r, cid = c
			WHERE n.ws = a_ws AND n.path = a_path;
	ELSE
		INSERT INTO agenttools.node (ws, path, parent, name, type, mode, mtime, size, rev, cid)
			VALUES (a_ws, a_path, a_parent, a_name, 0, a_mode, a_now, a_size, r, c);
		UPDATE agenttools.node n SET mtime = a_now, rev = r WHERE n.ws = a_ws AND n.path = a_parent;
	END IF;
	UPDATE agenttools.workspace w SET rev = r WHERE w.id = a_ws;
	RETURN '';
END $$;

-- remove removes the node a_path (with everything below it when a_all),
-- only while it is at revision a_rev_if (-1: any), and its content.
CREATE FUNCTION agenttools.remove(a_ws bigint, a_path bytea, a_parent bytea, a_all boolean, a_rev_if bigint,
	a_now bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r bigint; t smallint; old_rev bigint; old_cid bigint; lo bytea := a_path || '\x2f'::bytea; hi bytea := a_path || '\x30'::bytea;
BEGIN
	r := agenttools.lock(a_ws);
	IF r IS NULL THEN RETURN 'ENOENT'; END IF;
	IF a_path = ''::bytea THEN RETURN 'EPERM'; END IF;
	SELECT n.type, n.rev, n.cid INTO t, old_rev, old_cid FROM agenttools.node n WHERE n.ws = a_ws AND n.path = a_path;
	IF NOT FOUND THEN RETURN agenttools.missing(a_ws, a_path); END IF;
	IF a_rev_if >= 0 AND a_rev_if <> old_rev THEN RETURN 'EAGAIN'; END IF;
	IF t = 1 AND NOT a_all THEN
		PERFORM 1 FROM agenttools.node n WHERE n.ws = a_ws AND n.parent = a_path LIMIT 1;
		IF FOUND THEN RETURN 'ENOTEMPTY'; END IF;
	ELSIF t = 1 THEN
		DELETE FROM agenttools.chunk k WHERE k.cid IN (SELECT n.cid FROM agenttools.node n
			WHERE n.ws = a_ws AND n.path >= lo AND n.path < hi AND n.cid IS NOT NULL);
		DELETE FROM agenttools.node n WHERE n.ws = a_ws AND n.path >= lo AND n.path < hi;
	END IF;
	IF old_cid IS NOT NULL THEN DELETE FROM agenttools.chunk k WHERE k.cid = old_cid; END IF;
	DELETE FROM agenttools.node n WHERE n.ws = a_ws AND n.path = a_path;
	UPDATE agenttools.node n SET mtime = a_now, rev = r WHERE n.ws = a_ws AND n.path = a_parent;
	UPDATE agenttools.workspace w SET rev = r WHERE w.id = a_ws;
	RETURN '';
END $$;

CREATE FUNCTION agenttools.chmod(a_ws bigint, a_path bytea, a_mode integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r bigint; t smallint;
BEGIN
	r := agenttools.lock(a_ws);
	IF r IS NULL THEN RETURN 'ENOENT'; END IF;
	SELECT n.type INTO t FROM agenttools.node n WHERE n.ws = a_ws AND n.path = a_path;
	IF NOT FOUND THEN RETURN agenttools.missing(a_ws, a_path); END IF;
	IF t = 2 THEN RETURN 'ELOOP'; END IF;
	UPDATE agenttools.node n SET mode = a_mode, rev = r WHERE n.ws = a_ws AND n.path = a_path;
	UPDATE agenttools.workspace w SET rev = r WHERE w.id = a_ws;
	RETURN '';
END $$;
`

// The statements of the store, prepared under their names on every
// connection of the pool when it opens (see prepare), so that running
// one is one round trip from the first use on.
var statements = map[string]string{
	// The nodes at the paths $2.
	"lstat": `SELECT path, type, mode, mtime, size, target, rev FROM agenttools.node WHERE ws = $1 AND path = ANY($2::bytea[])`,
	// A directory's listing with the directory, in one statement (one
	// snapshot): the node $2 (0 first) and its entries (1 first), a page
	// of $3 entries (NULL: all) from entry $4 (dir_page), or $4 entries
	// after the name $3 (dir_after).
	"dir_page": `SELECT 0, name, type, mode, mtime, size, target, rev FROM agenttools.node WHERE ws = $1 AND path = $2
		UNION ALL (SELECT 1, name, type, mode, mtime, size, target, rev FROM agenttools.node
			WHERE ws = $1 AND parent = $2 ORDER BY name LIMIT $3 OFFSET $4)`,
	"dir_after": `SELECT 0, name, type, mode, mtime, size, target, rev FROM agenttools.node WHERE ws = $1 AND path = $2
		UNION ALL (SELECT 1, name, type, mode, mtime, size, target, rev FROM agenttools.node
			WHERE ws = $1 AND parent = $2 AND name > $3 ORDER BY name LIMIT $4)`,
	// The node $2 and its chunks [$3, $4), in one snapshot.
	"open": `SELECT n.type, n.size, n.cid, c.idx, c.data FROM agenttools.node n
		LEFT JOIN agenttools.chunk c ON c.cid = n.cid AND c.idx >= $3 AND c.idx < $4
		WHERE n.ws = $1 AND n.path = $2 ORDER BY c.idx`,
	// Chunks [$2, $3) of the content $1.
	"chunks": `SELECT idx, data FROM agenttools.chunk WHERE cid = $1 AND idx >= $2 AND idx < $3 ORDER BY idx`,
	// The node $2 and, when it is no longer than $3 bytes, all its chunks
	// (Update's read), in one snapshot.
	"read_all": `SELECT n.type, n.mode, n.mtime, n.size, n.target, n.rev, CASE WHEN n.size <= $3 THEN
		(SELECT coalesce(array_agg(c.data ORDER BY c.idx), '{}') FROM agenttools.chunk c WHERE c.cid = n.cid) END
		FROM agenttools.node n WHERE n.ws = $1 AND n.path = $2`,
	// The node $2 and the paths, kinds and sizes of those below it
	// (between $3 and $4), $5 at most, in path order; subtree_root: the
	// root and every node ($2 at most).
	"subtree": `SELECT path, type, size FROM agenttools.node WHERE ws = $1 AND path = $2
		UNION ALL (SELECT path, type, size FROM agenttools.node WHERE ws = $1 AND path > $3 AND path < $4 ORDER BY path LIMIT $5)`,
	"subtree_root": `SELECT path, type, size FROM agenttools.node WHERE ws = $1 ORDER BY path LIMIT $2 + 1`,
	// The content of those of the paths $2 that are files of one chunk at
	// most, in the order of $2, while their sizes add up to $3 at most.
	"heads": `SELECT path, size, coalesce(data, ''::bytea) FROM (SELECT n.path, n.size, c.data, sum(n.size) OVER (ORDER BY p.i) AS total
		FROM unnest($2::bytea[]) WITH ORDINALITY AS p(path, i) JOIN agenttools.node n ON n.ws = $1 AND n.path = p.path
		LEFT JOIN agenttools.chunk c ON c.cid = n.cid AND c.idx = 0
		WHERE n.type = 0 AND n.size <= ` + strconv.Itoa(chunkSize) + `) s WHERE total <= $3`,
	// A new content id, for a write copied in, whose transaction it
	// frees from the database's statement_timeout: its COPY lasts as
	// long as its reader takes (a command's output saved as it comes),
	// which a timeout meant for queries would cut.
	"next_cid": `SELECT nextval('agenttools.content_id') FROM set_config('statement_timeout', '0', true)`,
	"mknode":   `SELECT agenttools.mknode($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
	"put":      `SELECT agenttools.put($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
	"remove":   `SELECT agenttools.remove($1, $2, $3, $4, $5, $6)`,
	"chmod":    `SELECT agenttools.chmod($1, $2, $3)`,
}

// prepare prepares the statements on a new connection of the pool.
func prepare(ctx context.Context, c *pgx.Conn) error {
	for name, sql := range statements {
		if _, err := c.Prepare(ctx, name, sql); err != nil {
			return fmt.Errorf("pgfs: preparing %s: %w", name, err)
		}
	}
	return nil
}

// querier is what a pool, a connection and a transaction share.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// checkSchema reports whether the database of q holds this package's
// tables: false when there is no schema agenttools; ErrForeign when
// there is one that is not this package's, ErrNewerSchema when it is of
// a later layout. It changes nothing.
func checkSchema(ctx context.Context, q querier, db string) (bool, error) {
	var ns, meta bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1), to_regclass($1 || '.meta') IS NOT NULL`, schemaName).Scan(&ns, &meta)
	if err != nil {
		return false, queryError(db, err)
	}
	if !ns {
		return false, nil
	}
	if !meta {
		return false, fmt.Errorf("pgfs: %s: schema %s has no table meta: %w", db, schemaName, ErrForeign)
	}
	rows, err := q.Query(ctx, `SELECT key::text, value::text FROM agenttools.meta WHERE key::text IN ('application', 'layout')`)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code[:2] == "42" && pe.Code != insufficientPrivilege {
			return false, fmt.Errorf("pgfs: %s: table %s.meta is not this program's (%s): %w", db, schemaName, pe.Message, ErrForeign)
		}
		return false, queryError(db, err)
	}
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return false, queryError(db, err)
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code[:2] == "42" && pe.Code != insufficientPrivilege {
			return false, fmt.Errorf("pgfs: %s: table %s.meta is not this program's (%s): %w", db, schemaName, pe.Message, ErrForeign)
		}
		return false, queryError(db, err)
	}
	if kv["application"] != application {
		return false, fmt.Errorf("pgfs: %s: schema %s belongs to %q: %w", db, schemaName, kv["application"], ErrForeign)
	}
	layout, err := strconv.Atoi(kv["layout"])
	switch {
	case err != nil || layout < 1:
		return false, fmt.Errorf("pgfs: %s: schema %s has layout %q: %w", db, schemaName, kv["layout"], ErrForeign)
	case layout > SchemaVersion:
		return false, fmt.Errorf("pgfs: %s: layout %d, this program reads %d: %w", db, layout, SchemaVersion, ErrNewerSchema)
	}
	return true, nil
}

// insufficientPrivilege is PostgreSQL's SQLSTATE for a privilege the
// role lacks.
const insufficientPrivilege = "42501"

// grants is what a role that did not make the tables needs on them.
const grants = "a role that does not own the tables needs USAGE on schema " + schemaName +
	", SELECT, INSERT, UPDATE and DELETE on its tables and USAGE on its sequences"

// queryError is err, of a statement Open, Workspaces or RemoveWorkspace
// ran on the database db, naming db and, for a privilege the role
// lacks, which it needs.
func queryError(db string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == insufficientPrivilege {
		return fmt.Errorf("pgfs: %s: %w (%s)", db, err, grants)
	}
	return fmt.Errorf("pgfs: %s: %w", db, err)
}
