package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Change is a write transaction whose SQL has run, left for its caller to
// end, as a ReleaseTx is: between the Begin... call that made it and
// Commit, the caller does the file operations that must take effect
// together with the index change (a .current pointer written, a release
// file removed). Because the transaction is immediate, the file
// operations of processes that share the index never run at the same
// time. Nothing in store calls back into its caller: data flows one way.
type Change struct {
	s    *Store
	op   string
	tx   *sql.Tx
	done bool
}

// begin runs fn in a new immediate transaction and returns it uncommitted.
func (s *Store) begin(ctx context.Context, op string, fn func(*sql.Tx) error) (*Change, error) {
	if s.readOnly {
		return nil, fmt.Errorf("%s: %w", op, s.why)
	}
	tx, err := s.w.BeginTx(ctx, nil) // immediate: _txlock=immediate in the DSN
	if err != nil {
		return nil, classify(op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		if _, ok := errors.AsType[*Error](err); ok {
			return nil, err
		}
		return nil, classify(op, err)
	}
	return &Change{s: s, op: op, tx: tx}, nil
}

// Commit ends the change, writing it.
func (c *Change) Commit() error {
	c.done = true
	if err := c.tx.Commit(); err != nil {
		return classify(c.op, err)
	}
	c.s.restamp()
	return nil
}

// Rollback ends the change without writing, unless Commit ended it
// already: a deferred Rollback is always safe.
func (c *Change) Rollback() {
	if c.done {
		return
	}
	c.done = true
	c.tx.Rollback()
}
