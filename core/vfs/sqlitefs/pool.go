package sqlitefs

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
)

// querier runs statements: a pool, or a transaction on one.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// source is a querier that runs the store's statements: a pool, or a
// transaction on one. unsummed reports whether its statements read a
// database of layout 1 or 2 (read-only), whose node rows carry neither
// checksums nor counts of entries, so rows are read unverified.
type source interface {
	querier
	unsummed() bool
}

// pool is a pool of connections that runs the store's statements
// (queries) prepared: compiling SQL costs more than running the small
// statements of this store. database/sql prepares each on every
// connection that runs it, once. Any other statement runs unprepared.
//
// A read-only FS that reads an immutable snapshot of the file replaces
// the pool's connections when the file changes (see FS.fresh); the
// connections it replaced stay open, for the transactions still using
// them, until the pool is closed.
type pool struct {
	cur        atomic.Pointer[conns]
	unprepared atomic.Int64 // statements run unprepared (tests)
	statements atomic.Int64 // statements run (tests)
	txs        atomic.Int64 // transactions begun (tests)

	mu      sync.Mutex
	retired []*conns
}

// conns is a database handle and the store's statements prepared on it.
type conns struct {
	db       *sql.DB
	stmts    map[string]*sql.Stmt // read-only after prepare
	unsummed bool                 // see source
}

// newPool prepares the store's statements on db (the ones that change
// the database too when writes is true); it needs the schema of this
// layout.
func newPool(ctx context.Context, db *sql.DB, writes bool) (*pool, error) {
	c, err := prepare(ctx, db, writes, nil)
	if err != nil {
		return nil, err
	}
	p := &pool{}
	p.cur.Store(c)
	return p, nil
}

// prepare prepares the store's statements on db, those that change the
// database only when writes is true. A database of an older layout
// (read-only) is read with the statements of old in place of the store's
// (see layout2): its rows are then read unsummed.
func prepare(ctx context.Context, db *sql.DB, writes bool, old map[string]string) (*conns, error) {
	c := &conns{db: db, stmts: map[string]*sql.Stmt{}, unsummed: old != nil}
	for _, q := range queries {
		if changes[q] && !writes {
			continue
		}
		text, ok := old[q]
		if !ok {
			text = q
		}
		s, err := db.PrepareContext(ctx, text)
		if err != nil {
			return nil, err
		}
		c.stmts[q] = s
	}
	return c, nil
}

// swap makes c the pool's connections.
func (p *pool) swap(c *conns) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retired = append(p.retired, p.cur.Swap(c))
}

// Close closes the pool's connections; nil for no pool.
func (p *pool) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := []error{p.cur.Load().db.Close()}
	for _, c := range p.retired {
		errs = append(errs, c.db.Close())
	}
	return errors.Join(errs...)
}

func (p *pool) unsummed() bool { return p.cur.Load().unsummed }

// db is the pool's current database handle.
func (p *pool) db() *sql.DB { return p.cur.Load().db }

func (p *pool) stmt(c *conns, query string) *sql.Stmt {
	p.statements.Add(1)
	s := c.stmts[query]
	if s == nil {
		p.unprepared.Add(1)
	}
	return s
}

// quiet is the context a statement of the store runs with: ctx without
// its cancellation once it is checked not done. A statement that can be
// cancelled costs the driver a goroutine that watches the context (and
// database/sql another, for its rows); the store's statements are short
// (a lookup, a page of a listing, at most 16 chunks), so ctx is honoured
// between them; a change runs its statements once its transaction holds
// the write lock, so they never wait for another. Waits for a lock (the
// writing pool's BEGIN IMMEDIATE, with its busy timeout) keep ctx.
func quiet(ctx context.Context) context.Context {
	if ctx.Done() == nil || ctx.Err() != nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = quiet(ctx)
	c := p.cur.Load()
	if s := p.stmt(c, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return c.db.ExecContext(ctx, query, args...)
}

func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = quiet(ctx)
	c := p.cur.Load()
	if s := p.stmt(c, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (p *pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = quiet(ctx)
	c := p.cur.Load()
	if s := p.stmt(c, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

// begin starts a transaction: BEGIN IMMEDIATE on the writing pool,
// BEGIN (deferred) on the reading one.
func (p *pool) begin(ctx context.Context) (*tx, error) {
	c := p.cur.Load()
	p.txs.Add(1)
	t, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &tx{Tx: t, p: p, c: c}, nil
}

// tx is a transaction that runs its pool's prepared statements.
type tx struct {
	*sql.Tx
	p *pool
	c *conns // the connections it began on
}

func (t *tx) unsummed() bool { return t.c.unsummed }

func (t *tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = quiet(ctx)
	if s := t.p.stmt(t.c, query); s != nil {
		return t.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t *tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = quiet(ctx)
	if s := t.p.stmt(t.c, query); s != nil {
		return t.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = quiet(ctx)
	if s := t.p.stmt(t.c, query); s != nil {
		return t.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
