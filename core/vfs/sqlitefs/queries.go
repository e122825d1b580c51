package sqlitefs

// The statements of the store. Each is registered with query, and every
// pool prepares them all when it opens: preparing one later could wait
// for a connection that a transaction needing it holds.
var queries []string

func query(s string) string {
	queries = append(queries, s)
	return s
}

const nodeColumns = `type, mode, mtime, size, target, rev, cid`

var (
	qNode       = query(`SELECT ` + nodeColumns + ` FROM node WHERE path = ?`)
	qReadDir    = query(`SELECT name, ` + nodeColumns + ` FROM node WHERE parent = ? ORDER BY name LIMIT ? OFFSET ?`)
	qHasEntry   = query(`SELECT 1 FROM node WHERE parent = ? LIMIT 1`)
	qBump       = query(`UPDATE meta SET value = value + 1 WHERE key = 'rev' RETURNING value`)
	qAddNode    = query(`INSERT INTO node (path, parent, name, type, mode, mtime, size, target, rev, cid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qStampDir   = query(`UPDATE node SET mtime = ?, rev = ? WHERE path = ?`)
	qChmod      = query(`UPDATE node SET mode = ?, rev = ? WHERE path = ?`)
	qSetContent = query(`UPDATE node SET mode = ?, mtime = ?, size = ?, rev = ?, cid = ? WHERE path = ?`)
	qDelNode    = query(`DELETE FROM node WHERE path = ?`)

	// RemoveAll, over the range [?1, ?2) of the paths below a directory
	// (?1 is its path and "/", ?2 its path and "0", '/'+1).
	qDelChunksBelow  = query(`DELETE FROM chunk WHERE cid IN (SELECT cid FROM node WHERE path >= ?1 AND path < ?2 AND cid IS NOT NULL)`)
	qDelContentBelow = query(`DELETE FROM content WHERE id IN (SELECT cid FROM node WHERE path >= ?1 AND path < ?2 AND cid IS NOT NULL)`)
	qDelNodesBelow   = query(`DELETE FROM node WHERE path >= ?1 AND path < ?2`)

	qChunk        = query(`SELECT data, sum FROM chunk WHERE cid = ? AND idx = ?`)
	qChunks       = query(`SELECT idx, data, sum FROM chunk WHERE cid = ? ORDER BY idx`)
	qAddChunk     = query(`INSERT INTO chunk (cid, idx, data, sum) VALUES (?, ?, ?, ?)`)
	qNodeContent  = query(`SELECT cid FROM node WHERE path = ?`)
	qNextContent  = query(`UPDATE meta SET value = value + 1 WHERE key = 'content' RETURNING value`)
	qNewContent   = query(`INSERT INTO content (id, created, touched) VALUES (?, ?, ?)`)
	qTouchContent = query(`UPDATE content SET touched = ? WHERE id = ? AND touched IS NOT NULL`)
	qDelChunks    = query(`DELETE FROM chunk WHERE cid = ?`)
	qDelContent   = query(`DELETE FROM content WHERE id = ?`)
	// A failed write's content, unless a file refers to it after all.
	qDelOrphanChunks  = query(`DELETE FROM chunk WHERE cid = ?1 AND EXISTS (SELECT 1 FROM content WHERE id = ?1 AND touched IS NOT NULL)`)
	qDelOrphanContent = query(`DELETE FROM content WHERE id = ? AND touched IS NOT NULL`)

	// Content no file refers to, untouched since ?: what failed or
	// killed writes left.
	qDelGarbageChunks  = query(`DELETE FROM chunk WHERE cid IN (SELECT id FROM content WHERE touched IS NOT NULL AND touched <= ?)`)
	qDelGarbageContent = query(`DELETE FROM content WHERE touched IS NOT NULL AND touched <= ?`)
)
