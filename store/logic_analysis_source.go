package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// txTables is the analysis's TableSource of a release being written: its
// tables read from the transaction, as far as the analysis reads them
// (their columns and primary key; not their comments, foreign keys or
// indexes).
type txTables struct {
	ctx                    context.Context
	tx                     *sql.Tx
	release                int64
	byName, byPrefix, cols *sql.Stmt
}

func newTxTables(ctx context.Context, tx *sql.Tx, release int64) (*txTables, error) {
	t := &txTables{ctx: ctx, tx: tx, release: release}
	for _, s := range []struct {
		dst  **sql.Stmt
		text string
	}{
		{&t.byName, `SELECT id, connection, name FROM tables WHERE release = ? AND name = ? ORDER BY connection`},
		{&t.byPrefix, `SELECT id, connection, name FROM tables WHERE release = ? AND name > ? AND name < ? || char(1114111)
			ORDER BY name, connection`},
		{&t.cols, `SELECT name, type, nullable, coalesce(default_value, ''), enum_values, pk_position FROM columns
			WHERE table_id = ? ORDER BY position`},
	} {
		stmt, err := tx.PrepareContext(ctx, s.text)
		if err != nil {
			t.close()
			return nil, fmt.Errorf("prepare table lookups: %w", err)
		}
		*s.dst = stmt
	}
	return t, nil
}

func (t *txTables) close() {
	for _, s := range []*sql.Stmt{t.byName, t.byPrefix, t.cols} {
		if s != nil {
			s.Close()
		}
	}
}

// Tables implements analysis.TableSource.
func (t *txTables) Tables(name string, prefix bool) ([]snapshot.Table, error) {
	var rows *sql.Rows
	var err error
	if prefix {
		rows, err = t.byPrefix.QueryContext(t.ctx, t.release, name, name)
	} else {
		rows, err = t.byName.QueryContext(t.ctx, t.release, name)
	}
	if err != nil {
		return nil, err
	}
	type found struct {
		id int64
		t  snapshot.Table
	}
	var fs []found
	for rows.Next() {
		var f found
		if err := rows.Scan(&f.id, &f.t.Connection, &f.t.Name); err != nil {
			rows.Close()
			return nil, err
		}
		fs = append(fs, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]snapshot.Table, 0, len(fs))
	for _, f := range fs {
		if err := t.columns(f.id, &f.t); err != nil {
			return nil, err
		}
		out = append(out, f.t)
	}
	return out, nil
}

// columns reads the columns and primary key of table id into tb.
func (t *txTables) columns(id int64, tb *snapshot.Table) error {
	rows, err := t.cols.QueryContext(t.ctx, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	type keyCol struct {
		name string
		pos  int64
	}
	var keys []keyCol
	for rows.Next() {
		var c snapshot.Column
		var enum sql.NullString
		var pk sql.NullInt64
		if err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &c.Default, &enum, &pk); err != nil {
			return err
		}
		if enum.Valid {
			if err := json.Unmarshal([]byte(enum.String), &c.Enum); err != nil {
				return fmt.Errorf("enum values of column %q: %w", c.Name, err)
			}
		}
		if pk.Valid {
			keys = append(keys, keyCol{c.Name, pk.Int64})
		}
		tb.Columns = append(tb.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	tb.PrimaryKey = make([]string, len(keys))
	for _, k := range keys {
		if k.pos >= 1 && int(k.pos) <= len(keys) {
			tb.PrimaryKey[k.pos-1] = k.name
		}
	}
	return nil
}

// EnumTypes implements analysis.TableSource.
func (t *txTables) EnumTypes() ([]string, error) {
	lo, hi := idRange(t.release)
	rows, err := t.tx.QueryContext(t.ctx, `SELECT DISTINCT type FROM columns
		WHERE table_id >= ? AND table_id < ? AND enum_values IS NOT NULL`, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
