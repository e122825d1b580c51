package sqlitefs

import (
	"strconv"
	"strings"
)

// The statements of the store. Each is registered with query (or change,
// for one only a write transaction runs), and every pool prepares them
// all when it opens (a reading pool those of query only): preparing one
// later could wait for a connection that a transaction needing it holds.
var (
	queries []string
	changes = map[string]bool{}
)

func query(s string) string {
	queries = append(queries, s)
	return s
}

// slots is the parameter list ?1, ?2, ... ?n.
func slots(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?" + strconv.Itoa(i+1))
	}
	return b.String()
}

// pathSlots is how many paths qPath looks up at once: a path as deep as
// most are in one statement.
const pathSlots = 16

func change(s string) string {
	changes[s] = true
	return query(s)
}

// nodeColumns are the columns of a node row the store reads; see
// rowScanner.node.
const nodeColumns = `type, mode, mtime, size, target, rev, cid, entries, sum`

// nodeColumnsOf are nodeColumns of the table named t.
func nodeColumnsOf(t string) string {
	return t + "." + strings.ReplaceAll(nodeColumns, ", ", ", "+t+".")
}

// sumOf recomputes the stored row's checksum (in an UPDATE, from the
// values before it).
const sumOf = sumFunc + `(` + nodeSumArgs + `)`

// Every statement that changes a node row sets its checksum from the
// values it stores, and changes only a row that matches its checksum
// (so damage is never sealed under a new checksum) and whose revision is
// below the new one (so revisions never repeat): an UPDATE that changes
// no row met damage (see wtx.changed).
var (
	qNode = query(`SELECT ` + nodeColumns + ` FROM tree WHERE path = ?`)
	// The nodes at up to pathSlots paths (?1 to ?16, NULL for none), with
	// their paths and the change counter (see revColumn), in one snapshot
	// (see FS.LstatPath).
	qPath = query(`SELECT path, ` + nodeColumns + `, ` + revColumn + ` FROM tree WHERE path IN (` + slots(pathSlots) + `)`)
	// The node ?1 and chunk ?2 of its content, copied into sink ?3 (see
	// chunkInto), in one snapshot: the chunk's length and checksum (NULL,
	// NULL when there is none).
	qNodeChunk = query(`SELECT ` + nodeColumnsOf("t") + `, ` + chunkInto + `(?3, c.idx, c.data), c.sum FROM tree AS t LEFT JOIN chunk AS c ON c.cid = t.cid AND c.idx = ?2 WHERE t.path = ?1`)
	// A directory's listing with the directory, in one statement (one
	// snapshot): the node ?1 (0 first) and its entries (1 first), a page
	// of ?2 entries from entry ?3 (qDirPage) or ?3 entries after the name
	// ?2 (qDirAfter).
	qDirPage = query(`SELECT 0, name, ` + nodeColumns + ` FROM tree WHERE path = ?1 UNION ALL
		SELECT * FROM (SELECT 1, name, ` + nodeColumns + ` FROM tree WHERE parent = ?1 ORDER BY name LIMIT ?2 OFFSET ?3)`)
	qDirAfter = query(`SELECT 0, name, ` + nodeColumns + ` FROM tree WHERE path = ?1 UNION ALL
		SELECT * FROM (SELECT 1, name, ` + nodeColumns + ` FROM tree WHERE parent = ?1 AND name > ?2 ORDER BY name LIMIT ?3)`)
	// The change counter, which every change to the tree moves (see
	// listings).
	qRev      = query(`SELECT value FROM meta WHERE key = 'rev'`)
	qHasEntry = change(`SELECT 1 FROM tree WHERE parent = ? LIMIT 1`)
	qBump     = change(`UPDATE meta SET value = value + 1 WHERE key = 'rev' RETURNING value`)
	// ?1 path, ?2 parent, ?3 name, ?4 type, ?5 mode, ?6 mtime, ?7 size,
	// ?8 target, ?9 rev, ?10 cid.
	qAddNode = change(`INSERT INTO tree (path, parent, name, type, mode, mtime, size, target, rev, cid, entries, sum)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ` + sumFunc + `(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0))`)
	// The directory ?4 whose entries changed by ?3: mtime ?1, rev ?2.
	qStampDir = change(`UPDATE tree SET mtime = ?1, rev = ?2, entries = entries + ?3,
		sum = ` + sumFunc + `(path, parent, name, type, mode, ?1, size, target, ?2, cid, entries + ?3)
		WHERE path = ?4 AND type = ` + strconv.Itoa(dbDir) + ` AND entries + ?3 >= 0 AND rev < ?2 AND sum = ` + sumOf)
	// The node ?3 gets mode ?1, rev ?2.
	qChmod = change(`UPDATE tree SET mode = ?1, rev = ?2,
		sum = ` + sumFunc + `(path, parent, name, type, ?1, mtime, size, target, ?2, cid, entries)
		WHERE path = ?3 AND rev < ?2 AND sum = ` + sumOf)
	// The file ?6 gets mode ?1, mtime ?2, size ?3, rev ?4, content ?5.
	qSetContent = change(`UPDATE tree SET mode = ?1, mtime = ?2, size = ?3, rev = ?4, cid = ?5,
		sum = ` + sumFunc + `(path, parent, name, type, ?1, ?2, ?3, target, ?4, ?5, entries)
		WHERE path = ?6 AND rev < ?4 AND sum = ` + sumOf)
	qDelNode = change(`DELETE FROM tree WHERE path = ?`)

	// RemoveAll, over the range [?1, ?2) of the paths below a directory
	// (?1 is its path and "/", ?2 its path and "0", '/'+1). qBadBelow
	// finds a row there that does not match its checksum (whose content
	// id, say, may be another file's).
	qBadBelow        = change(`SELECT 1 FROM tree WHERE path >= ?1 AND path < ?2 AND sum IS NOT ` + sumOf + ` LIMIT 1`)
	qDelChunksBelow  = change(`DELETE FROM chunk WHERE cid IN (SELECT cid FROM tree WHERE path >= ?1 AND path < ?2 AND cid IS NOT NULL)`)
	qDelContentBelow = change(`DELETE FROM content WHERE id IN (SELECT cid FROM tree WHERE path >= ?1 AND path < ?2 AND cid IS NOT NULL)`)
	qDelNodesBelow   = change(`DELETE FROM tree WHERE path >= ?1 AND path < ?2`)

	// The chunks of content ?1 (qChunks), or chunks [?2, ?3) of it
	// (qChunkRange), copied into the sink ?2 or ?4 (see chunkInto): each
	// chunk's index, length and checksum.
	qChunks     = query(`SELECT idx, ` + chunkInto + `(?2, idx, data), sum FROM chunk WHERE cid = ?1 ORDER BY idx`)
	qChunkRange = query(`SELECT idx, ` + chunkInto + `(?4, idx, data), sum FROM chunk WHERE cid = ?1 AND idx >= ?2 AND idx < ?3 ORDER BY idx`)
	qAddChunk   = change(`INSERT INTO chunk (cid, idx, data, sum) VALUES (?, ?, ?, ?)`)
	// The next content id, only while the counter is not behind any id in
	// use (no row: it is, damage).
	qNextContent  = change(`UPDATE meta SET value = value + 1 WHERE key = 'content' AND value >= (SELECT coalesce(max(id), 0) FROM content) RETURNING value`)
	qNewContent   = change(`INSERT INTO content (id, created, touched) VALUES (?, ?, ?)`)
	qTouchContent = change(`UPDATE content SET touched = ? WHERE id = ? AND touched IS NOT NULL`)
	qDelChunks    = change(`DELETE FROM chunk WHERE cid = ?`)
	qDelContent   = change(`DELETE FROM content WHERE id = ?`)
	// A failed write's content, unless a file refers to it after all.
	qDelOrphanChunks  = change(`DELETE FROM chunk WHERE cid = ?1 AND EXISTS (SELECT 1 FROM content WHERE id = ?1 AND touched IS NOT NULL)`)
	qDelOrphanContent = change(`DELETE FROM content WHERE id = ? AND touched IS NOT NULL`)

	// Content no file refers to, untouched since ?: what failed or
	// killed writes left. A file's content marked so by damage is kept:
	// the files' content ids are read (one scan of the nodes) only when
	// there is such content at all.
	qDelGarbageChunks  = change(`DELETE FROM chunk WHERE cid IN (SELECT id FROM content WHERE touched IS NOT NULL AND touched <= ?1 AND id NOT IN (SELECT cid FROM tree WHERE cid IS NOT NULL))`)
	qDelGarbageContent = change(`DELETE FROM content WHERE touched IS NOT NULL AND touched <= ?1 AND id NOT IN (SELECT cid FROM tree WHERE cid IS NOT NULL)`)
)

// revColumn is the change counter, read in a lookup's own statement (one
// snapshot), so that what the lookup read can be kept (see listings).
const revColumn = `(SELECT value FROM meta WHERE key = 'rev')`

// qNodeRev is qNode with the change counter's value as its last column.
var qNodeRev = query(`SELECT ` + nodeColumns + `, ` + revColumn + ` FROM tree WHERE path = ?`)
