package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// How a release writes its schema findings (lint_rules.go) and its
// release_checks row (migrations/0007_schema_findings.sql).

// lintState is what a ReleaseWriter keeps for the checks: the findings'
// batch and the counts of its release_checks row.
type lintState struct {
	findings                     *batch
	problems, columns, commented int64
	keys                         keyTypes
}

const (
	insertFinding = `INSERT INTO schema_findings (release, rule, table_id, item, part, code, column_name, message)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	insertReleaseChecks = `INSERT INTO release_checks (release, schema_problems, column_count, commented_count)
		VALUES (?, ?, ?, ?)`
)

// lintTable runs the rules that judge a table by itself on t, whose id is
// id, and counts its columns and comments.
func (w *ReleaseWriter) lintTable(ctx context.Context, id int64, t *Table) error {
	w.lint.columns += int64(len(t.Columns))
	if hasComment(t.Comment) {
		w.lint.commented++
	}
	for i := range t.Columns {
		if hasComment(t.Columns[i].Comment) {
			w.lint.commented++
		}
	}
	w.lint.keys.add(t)
	for _, rule := range tableRules {
		for _, f := range rule(t) {
			if err := w.addFinding(ctx, w.lint.findings, id, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasComment reports whether a comment says anything: MISSING_COMMENT
// takes a blank one (spaces, tabs, line breaks) for none, as
// qMissingCommentPage does.
func hasComment(c string) bool { return strings.Trim(c, " \t\n\r") != "" }

func (w *ReleaseWriter) addFinding(ctx context.Context, b *batch, tableID int64, f finding) error {
	w.lint.problems++
	return b.add(ctx, w.release, f.rule, tableID, f.item, f.part, f.code, nullString(f.column), f.message)
}

// qRefTypes reads, for every foreign key of release ?1 whose referenced
// table is in the release, the type of each referenced column, NULL when
// the table lacks it, with the key's table, position and the column's
// place in it: what FK_TYPE_MISMATCH compares with the key column's type
// (keyTypes). Run in the writer's transaction, once every row of the
// release is written. Per key, it seeks the referenced table, and the
// column through columns_pk when it is in the primary key (most are),
// else among the table's columns; a key of one column, most of them, is
// read without json_each. The key columns' own types come from keyTypes:
// a scan of the referencing table's columns for each took four times as
// long as all of this.
const qRefTypes = `
SELECT f.table_id, f.position, 0, coalesce(
		(SELECT type FROM columns WHERE table_id = rt.id AND pk_position IS NOT NULL AND name = f.ref_columns ->> 0),
		(SELECT type FROM columns WHERE table_id = rt.id AND name = f.ref_columns ->> 0))
FROM foreign_keys f
CROSS JOIN tables rt ON rt.release = f.release AND rt.connection = f.ref_connection AND rt.name = f.ref_table
WHERE f.release = ?1 AND json_array_length(f.ref_columns) = 1
UNION ALL
SELECT f.table_id, f.position, k.key, coalesce(
		(SELECT type FROM columns WHERE table_id = rt.id AND pk_position IS NOT NULL AND name = k.value),
		(SELECT type FROM columns WHERE table_id = rt.id AND name = k.value))
FROM foreign_keys f
CROSS JOIN tables rt ON rt.release = f.release AND rt.connection = f.ref_connection AND rt.name = f.ref_table
CROSS JOIN json_each(f.ref_columns) k
WHERE f.release = ?1 AND json_array_length(f.ref_columns) > 1`

// qKeyDetail reads what a finding of FK_TYPE_MISMATCH names of key ?2 of
// table ?1 and its column ?3.
const qKeyDetail = `
SELECT coalesce(name, ''), columns ->> ?3, ref_connection, ref_table, ref_columns ->> ?3, connection, table_name
FROM foreign_keys WHERE table_id = ?1 AND position = ?2`

// writeLint runs FK_TYPE_MISMATCH on the release's foreign keys and
// writes its release_checks row. The rows of every table must be written.
func (w *ReleaseWriter) writeLint(ctx context.Context) error {
	// The findings are written as the types are read: SQLite lets one
	// connection insert into a table while it reads others.
	b := newBatch(w.tx, insertFinding, nil)
	defer b.close()
	rows, err := w.tx.QueryContext(ctx, qRefTypes, w.release)
	if err != nil {
		return fmt.Errorf("read foreign key types: %w", err)
	}
	defer rows.Close()
	lo, _ := idRange(w.release)
	kt := &w.lint.keys
	for rows.Next() {
		p := typePair{}
		var refType sql.NullString // NULL: the referenced table lacks the column
		if err := rows.Scan(&p.tableID, &p.position, &p.part, &refType); err != nil {
			return fmt.Errorf("read foreign key types: %w", err)
		}
		p.refColumnType = refType.String
		var ok bool
		if p.columnType, ok = kt.column(int(p.tableID-lo), p.position, p.part); !ok || kt.same(p.columnType, p.refColumnType) {
			continue
		}
		if err := w.tx.QueryRowContext(ctx, qKeyDetail, p.tableID, p.position, p.part).Scan(&p.keyName, &p.column,
			&p.refConnection, &p.refTable, &p.refColumn, &p.connection, &p.tableName); err != nil {
			return fmt.Errorf("read foreign key %d of table %d: %w", p.position, p.tableID, err)
		}
		if f, ok := typeMismatch(p); ok {
			if err := w.addFinding(ctx, b, p.tableID, f); err != nil {
				return fmt.Errorf("write findings: %w", err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read foreign key types: %w", err)
	}
	if err := b.flush(ctx); err != nil {
		return fmt.Errorf("write findings: %w", err)
	}
	if _, err := w.tx.ExecContext(ctx, insertReleaseChecks, w.release, w.lint.problems, w.lint.columns,
		w.lint.commented); err != nil {
		return fmt.Errorf("write release checks: %w", err)
	}
	return nil
}

// keyTypes holds the type of every foreign-key column of a release, as
// its table states it, from the table's turn until FK_TYPE_MISMATCH
// compares it with the referenced column's type: a number per column
// standing for its type, and where each table's and key's columns start.
// That is 4 bytes a table, a key and a key column (2 MB for 100,000
// tables), whatever the names.
type keyTypes struct {
	ids     map[string]uint32 // the number of each type
	names   []string          // the type of each number
	canon   map[string]string // canonicalType, of each type compared so far
	tables  []uint32          // per table, in order: its first key in keys
	keys    []uint32          // per key, in table order: its first column in columns
	columns []uint32          // per key column: its type's number
}

// add notes the key columns' types of the release's next table.
func (k *keyTypes) add(t *Table) {
	k.tables = append(k.tables, uint32(len(k.keys)))
	if len(t.ForeignKeys) == 0 {
		return
	}
	if k.ids == nil {
		k.ids = map[string]uint32{}
	}
	var byName map[string]string
	if len(t.Columns) > 16 {
		byName = make(map[string]string, len(t.Columns))
		for _, c := range t.Columns {
			byName[c.Name] = c.Type
		}
	}
	typeOf := func(name string) string {
		if byName != nil {
			return byName[name]
		}
		for _, c := range t.Columns {
			if c.Name == name {
				return c.Type
			}
		}
		return ""
	}
	for _, fk := range t.ForeignKeys {
		k.keys = append(k.keys, uint32(len(k.columns)))
		for _, c := range fk.Columns {
			typ := typeOf(c)
			id, ok := k.ids[typ]
			if !ok {
				id = uint32(len(k.names))
				k.ids[typ] = id
				k.names = append(k.names, typ)
			}
			k.columns = append(k.columns, id)
		}
	}
}

// column returns the type of column part of key position of the table at
// position table, and whether there is one.
func (k *keyTypes) column(table, position, part int) (string, bool) {
	if table < 0 || table >= len(k.tables) {
		return "", false
	}
	key := int(k.tables[table]) + position
	end := len(k.keys)
	if table+1 < len(k.tables) {
		end = int(k.tables[table+1])
	}
	if position < 0 || key >= end {
		return "", false
	}
	col := int(k.keys[key]) + part
	last := len(k.columns)
	if key+1 < len(k.keys) {
		last = int(k.keys[key+1])
	}
	if part < 0 || col >= last {
		return "", false
	}
	return k.names[k.columns[col]], true
}

// same reports whether two types are the same (sameType), computing each
// canonicalType once.
func (k *keyTypes) same(a, b string) bool {
	if a == b || a == "" || b == "" {
		return true // equal, or not judged
	}
	if k.canon == nil {
		k.canon = map[string]string{}
	}
	canon := func(t string) string {
		c, ok := k.canon[t]
		if !ok {
			c = canonicalType(t)
			k.canon[t] = c
		}
		return c
	}
	return canon(a) == canon(b)
}
