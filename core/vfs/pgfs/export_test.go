package pgfs

import (
	"bytes"
	"context"
	"time"

	"github.com/agenttools/agenttools/core/vfs"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// SetBatching sets how many nodes a subtree read in one statement may
// hold and how many bytes of small files' content one more statement
// brings, until the function it returns puts them back.
func SetBatching(nodes int, budget int64) (restore func()) {
	n, b := subtreeMax, headBudget
	subtreeMax, headBudget = nodes, budget
	return func() { subtreeMax, headBudget = n, b }
}

// SetIdleInTransaction sets how long the server lets a session of a
// store opened afterwards sit idle in a transaction, until the
// function it returns puts it back.
func SetIdleInTransaction(d string) (restore func()) {
	old := idleInTransaction
	idleInTransaction = d
	return func() { idleInTransaction = old }
}

// StallLargeWrite starts a write of name as a large write does (a
// transaction on a connection of its own, the content copied in, the
// switch made) and stops before COMMIT, as a client that vanished
// there: the workspace's row stays locked until the server ends the
// session; close closes the connection. It returns
// the switch's error.
func StallLargeWrite(ctx context.Context, f *FS, name string, data []byte) (close func(), err error) {
	c, err := f.streamConn(ctx)
	if err != nil {
		return nil, err
	}
	close = func() { c.Close(context.Background()) }
	tx, err := c.Begin(ctx)
	if err != nil {
		return close, err
	}
	var cid int64
	if err := tx.QueryRow(ctx, statements["next_cid"]).Scan(&cid); err != nil {
		return close, err
	}
	chunks, size, _, err := readChunks(bytes.NewReader(data), 1<<20)
	if err != nil {
		return close, err
	}
	src := &chunkSource{cid: cid, pending: chunks, size: size, done: true}
	if _, err := tx.CopyFrom(ctx, []string{schemaName, "chunk"}, []string{"cid", "idx", "data"}, src); err != nil {
		return close, err
	}
	return close, f.put(ctx, tx, statements["put"], name, 0o644, size, &cid, nil, anyRev)
}

// SetConnectTimeout sets the default bound of the making of a
// connection until the function it returns puts it back.
func SetConnectTimeout(d time.Duration) (restore func()) {
	old := connectTimeout
	connectTimeout = d
	return func() { connectTimeout = old }
}

// HeldHeads is how many bytes of small files' content the subtree
// listing of the handle h (of OpenDir) holds for files not opened yet.
func HeldHeads(h vfs.DirHandle) int64 {
	t := h.(*dirHandle).tree
	t.mu.Lock()
	defer t.mu.Unlock()
	n := int64(0)
	for _, data := range t.heads {
		n += int64(len(data))
	}
	return n
}

// Exec runs the statement sql on a connection of f's pool, as the store
// runs its own.
func Exec(ctx context.Context, f *FS, sql string) error {
	_, err := f.pool.Exec(ctx, sql)
	return err
}
