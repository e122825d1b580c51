package sqlitefs

import (
	"context"
	"database/sql"
	"sync/atomic"
)

// querier runs statements: a pool, or a transaction on one.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// pool is a pool of connections that runs the store's statements
// (queries) prepared: compiling SQL costs more than running the small
// statements of this store. database/sql prepares each on every
// connection that runs it, once. Any other statement runs unprepared.
type pool struct {
	*sql.DB
	stmts      map[string]*sql.Stmt // read-only after newPool
	unprepared atomic.Int64         // statements run unprepared (tests)
}

// newPool prepares the store's statements on db; it needs the schema.
func newPool(ctx context.Context, db *sql.DB) (*pool, error) {
	p := &pool{DB: db, stmts: map[string]*sql.Stmt{}}
	for _, q := range queries {
		s, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		p.stmts[q] = s
	}
	return p, nil
}

func (p *pool) stmt(query string) *sql.Stmt {
	s := p.stmts[query]
	if s == nil {
		p.unprepared.Add(1)
	}
	return s
}

func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := p.stmt(query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return p.DB.ExecContext(ctx, query, args...)
}

func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := p.stmt(query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return p.DB.QueryContext(ctx, query, args...)
}

func (p *pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := p.stmt(query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return p.DB.QueryRowContext(ctx, query, args...)
}

// begin starts a transaction: BEGIN IMMEDIATE on the writing pool,
// BEGIN (deferred) on the reading one.
func (p *pool) begin(ctx context.Context) (*tx, error) {
	t, err := p.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &tx{Tx: t, p: p}, nil
}

// tx is a transaction that runs its pool's prepared statements.
type tx struct {
	*sql.Tx
	p *pool
}

func (t *tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.p.stmt(query); s != nil {
		return t.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t *tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.p.stmt(query); s != nil {
		return t.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := t.p.stmt(query); s != nil {
		return t.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
