package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// A query is a read statement of the tools, prepared once on the read pool
// when the store opens. Each is declared in the file of the noun it serves
// (table.go holds the table queries), as a whole statement:
//
//	var qLogicNames = readQuery(`SELECT ... FROM logics WHERE ...`)
//
// and run in a read transaction with readTx.query or readTx.row.
type query struct {
	id   int // index into Store.stmts
	text string
}

// queries are every query, in the order readQuery made them. The list is
// fixed once the package is initialized.
var queries []*query

// readQuery declares a read statement; see query.
func readQuery(text string) *query {
	q := &query{id: len(queries), text: text}
	queries = append(queries, q)
	return q
}

// prepare prepares every query on the read pool. Statements are prepared
// before any transaction: preparing from inside one would need a second
// pooled connection, and with every connection held by a transaction
// waiting to prepare, nothing would move.
func (s *Store) prepare(ctx context.Context) error {
	s.stmts = make([]*sql.Stmt, len(queries))
	for i, q := range queries {
		stmt, err := s.r.PrepareContext(ctx, q.text)
		if err != nil {
			return classify("prepare index queries", err)
		}
		s.stmts[i] = stmt
	}
	return nil
}

// readTx is a read transaction on the read pool: every query in it sees
// the same committed state, so a reader never sees half a release.
type readTx struct {
	tx *sql.Tx
	s  *Store
}

// query runs q in the transaction.
func (r readTx) query(ctx context.Context, q *query, args ...any) (*sql.Rows, error) {
	return r.tx.StmtContext(ctx, r.s.stmts[q.id]).QueryContext(ctx, args...)
}

// row runs q, which returns at most one row, in the transaction.
func (r readTx) row(ctx context.Context, q *query, args ...any) *sql.Row {
	return r.tx.StmtContext(ctx, r.s.stmts[q.id]).QueryRowContext(ctx, args...)
}

// bounded returns ctx without its cancellation, for reads whose cost is
// bounded by the answer budget: one table, one logic, one page, one
// completion. modernc makes a statement run under a cancellable context
// interruptible, with a goroutine and a progress callback every 1,000
// steps, which costs 6-14 µs a statement: a sixth of a schema_get_table
// answer. A bounded read ends in well under a millisecond, cancelled or
// not. Search, join paths and diffs keep their context.
func bounded(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// query runs q on its own, outside a transaction: one statement reads one
// committed state of the index by itself, so an answer composed by one
// statement needs no transaction around it.
func (s *Store) query(ctx context.Context, q *query, args ...any) (*sql.Rows, error) {
	rows, err := s.stmts[q.id].QueryContext(ctx, args...)
	if err != nil {
		return nil, s.readError(err)
	}
	return rows, nil
}

// strings runs q, which returns one string column, on its own.
func (s *Store) strings(ctx context.Context, q *query, args ...any) ([]string, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, s.readError(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(err)
	}
	return out, nil
}

// view runs fn in one read transaction.
func (s *Store) view(ctx context.Context, fn func(readTx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.readError(err)
	}
	defer tx.Rollback()
	if err := fn(readTx{tx, s}); err != nil {
		if _, ok := errors.AsType[*Error](err); ok {
			return err
		}
		return s.readError(err)
	}
	return nil
}

// Hook runs inside a write transaction, after its SQL and just before it
// commits: the place for file operations that must take effect together
// with the index change, for callers that make a release in Go
// (WriteRelease, PutRelease: tests and benchmarks). Production code drives
// a ReleaseTx or a Change instead, and store calls nothing of its own. Because the transaction is immediate, hooks of
// processes that share the index never run at the same time.
//
// If the hook fails, the transaction rolls back. Otherwise finish (when not
// nil) is called once the outcome is known: committed is false when the
// commit failed, and finish must then undo what the hook did.
type Hook func() (finish func(committed bool), err error)

// write runs fn and then hook in one immediate transaction and commits.
func (s *Store) write(ctx context.Context, op string, hook Hook, fn func(*sql.Tx) error) error {
	c, err := s.begin(ctx, op, fn)
	if err != nil {
		return err
	}
	defer c.Rollback()
	var finish func(bool)
	if hook != nil {
		if finish, err = hook(); err != nil {
			return err
		}
	}
	err = c.Commit()
	if finish != nil {
		finish(err == nil)
	}
	return err
}

// batchRows is how many rows one statement of a batch inserts, at most;
// batchBytes bounds the bytes of text its rows hold, so that a batch of
// large rows (a logic's 48 KiB of SQL, a table's 4,096 column comments
// in its search row) is sent sooner.
const (
	batchRows  = 256
	batchBytes = 1 << 20
)

// A batch inserts the rows of one INSERT statement batchRows at a time:
// one call into SQLite per batch instead of one per row. insert is a whole
// single-row statement with one VALUES tuple, which the batch repeats for
// more rows: at its end,
//
//	INSERT INTO columns (table_id, position, ...) VALUES (?, ?, ...)
//
// or inside a SELECT that the rows go through (see insertForeignKey).
// With a pipeline, the statements run on the pipeline's goroutine.
type batch struct {
	tx     *sql.Tx
	insert string
	width  int               // values per row
	stmts  map[int]*sql.Stmt // prepared, by rows
	args   []any
	bytes  int       // of the text in args
	pipe   *pipeline // nil: statements run at once
}

func newBatch(tx *sql.Tx, insert string, pipe *pipeline) *batch {
	return &batch{tx: tx, insert: insert, width: strings.Count(insert, "?"), pipe: pipe, stmts: map[int]*sql.Stmt{}}
}

// add queues one row.
func (b *batch) add(ctx context.Context, values ...any) error {
	if b.pipe != nil && b.pipe.failed.Load() {
		return errPipeline
	}
	b.args = append(b.args, values...)
	for _, v := range values {
		switch v := v.(type) {
		case string:
			b.bytes += len(v)
		case []byte:
			b.bytes += len(v)
		default:
			b.bytes += 8
		}
	}
	if len(b.args) < batchRows*b.width && b.bytes < batchBytes {
		return nil
	}
	return b.send(ctx)
}

// flush writes the rows queued.
func (b *batch) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	return b.send(ctx)
}

// send runs (or has the pipeline run) the statement of the rows queued.
func (b *batch) send(ctx context.Context) error {
	args, size := b.args, b.bytes
	b.args, b.bytes = make([]any, 0, min(len(args), batchRows*b.width)), 0 // the statement keeps args until it ran
	if b.pipe != nil {
		return b.pipe.send(ctx, job{b, args, size})
	}
	return b.exec(ctx, args)
}

// exec runs the statement of rows args. Statements are prepared once for
// each number of rows: a batch sent by its bytes has fewer than
// batchRows, most often the same number again.
func (b *batch) exec(ctx context.Context, args []any) error {
	n := len(args) / b.width
	stmt := b.stmts[n]
	if stmt == nil {
		var err error
		if stmt, err = b.tx.PrepareContext(ctx, b.rows(n)); err != nil {
			return err
		}
		b.stmts[n] = stmt
	}
	_, err := stmt.ExecContext(ctx, args...)
	return err
}

func (b *batch) close() {
	for _, stmt := range b.stmts {
		stmt.Close()
	}
}

// rows returns the insert statement extended to n rows: its last VALUES
// tuple, which holds no parenthesis, repeated n times.
func (b *batch) rows(n int) string {
	i := strings.LastIndex(b.insert, "VALUES ") + len("VALUES ")
	j := i + strings.Index(b.insert[i:], ")") + 1
	tuple := b.insert[i:j]
	return b.insert[:j] + strings.Repeat(", "+tuple, n-1) + b.insert[j:]
}

// A pipeline runs the statements of batches on a goroutine of its own, in
// the order they were sent: while SQLite writes some rows, the caller
// decodes and prepares the next ones. On a machine with two cores, this
// takes the decoding, the release file and the splitting of words off the
// writer's time. The statements waiting hold at most pipelineBytes of
// text (or one statement, when it holds more): a caller faster than
// SQLite waits rather than queue a release's worth of rows.
type pipeline struct {
	jobs   chan job
	budget *semaphore.Weighted // bytes of text in the jobs queued or running
	done   chan struct{}
	err    error // the first statement's error; read once done is closed
	failed atomic.Bool
	closed bool
}

// pipelineBytes bounds the text of the statements a pipeline holds.
const pipelineBytes = 8 << 20

// job is one statement for a pipeline to run.
type job struct {
	b     *batch
	args  []any
	bytes int // of text, capped at pipelineBytes: its weight in the budget
}

// errPipeline stops a caller whose pipeline failed; wait returns the
// pipeline's own error.
var errPipeline = errors.New("an earlier statement failed")

func newPipeline(ctx context.Context) *pipeline {
	p := &pipeline{jobs: make(chan job, 16), budget: semaphore.NewWeighted(pipelineBytes), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for j := range p.jobs {
			if p.err == nil {
				if err := j.b.exec(ctx, j.args); err != nil {
					p.err = err
					p.failed.Store(true)
				}
			} // else drain: the caller will hear of it
			p.budget.Release(int64(j.bytes))
		}
	}()
	return p
}

// send queues j once the budget has room for it.
func (p *pipeline) send(ctx context.Context, j job) error {
	j.bytes = min(j.bytes, pipelineBytes)
	if err := p.budget.Acquire(ctx, int64(j.bytes)); err != nil {
		return err
	}
	p.jobs <- j
	return nil
}

// wait runs the statements still queued and returns the first error of
// all. Calling it again returns the same.
func (p *pipeline) wait() error {
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
	<-p.done
	return p.err
}
