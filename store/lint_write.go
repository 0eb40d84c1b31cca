package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// How a release writes the findings of the schema rules and its
// release_checks row (migrations/0007_schema_findings.sql). The rules are
// package indexer/lint's, run by the writer's caller, who hands the
// findings over as rows: with each table (Parts.Findings, or
// ReleaseWriter.Findings), and, for FK_TYPE_MISMATCH, which needs the
// referenced tables, after Finish (ReleaseTx.Findings), from the column
// types and keys it reads back (ReleaseTx.ColumnTypes, ForeignKey).

// The stored rules, in the order their findings are listed: the rule
// column of schema_findings.
const (
	ruleNoPrimaryKey        = 1
	ruleFKWithoutIndex      = 2
	ruleFKTypeMismatch      = 3
	ruleDuplicateForeignKey = 4
)

// storedRules are the codes of the stored rules, by rule.
var storedRules = map[int]string{ruleNoPrimaryKey: snapshot.CodeNoPrimaryKey, ruleFKWithoutIndex: snapshot.CodeFKWithoutIndex,
	ruleFKTypeMismatch: snapshot.CodeFKTypeMismatch, ruleDuplicateForeignKey: snapshot.CodeDuplicateForeignKey}

// storedRule returns the rule of a finding's code.
func storedRule(code string) (int, error) {
	switch code {
	case snapshot.CodeNoPrimaryKey:
		return ruleNoPrimaryKey, nil
	case snapshot.CodeFKWithoutIndex:
		return ruleFKWithoutIndex, nil
	case snapshot.CodeFKTypeMismatch:
		return ruleFKTypeMismatch, nil
	case snapshot.CodeDuplicateForeignKey:
		return ruleDuplicateForeignKey, nil
	}
	return 0, fmt.Errorf("finding of code %q: not a rule whose findings are stored", code)
}

// lintState is what a ReleaseWriter keeps for the checks: the findings'
// batch and the counts of its release_checks row.
type lintState struct {
	findings                     *batch
	problems, columns, commented int64
	byRule                       [ruleDuplicateForeignKey + 1]int64 // findings of each stored rule
}

const (
	insertFinding = `INSERT INTO schema_findings (release, rule, table_id, item, part, code, column_name, message)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	insertReleaseChecks = `INSERT INTO release_checks (release, schema_problems, column_count, commented_count)
		VALUES (?, ?, ?, ?)`
	insertFindingCount = `INSERT INTO schema_finding_counts (release, rule, code, findings) VALUES (?, ?, ?, ?)`

	// What findings given after Finish add to the counts.
	addReleaseChecks = `UPDATE release_checks SET schema_problems = schema_problems + ?2 WHERE release = ?1`
	addFindingCount  = `UPDATE schema_finding_counts SET findings = findings + ?3 WHERE release = ?1 AND rule = ?2`
)

// countComments counts the columns of t, and those of t and its columns
// that have a comment, for MISSING_COMMENT's count and commentCoverage.
func (w *ReleaseWriter) countComments(t *snapshot.Table) {
	w.lint.columns += int64(len(t.Columns))
	if hasComment(t.Comment) {
		w.lint.commented++
	}
	for i := range t.Columns {
		if hasComment(t.Columns[i].Comment) {
			w.lint.commented++
		}
	}
}

// hasComment reports whether a comment says anything: MISSING_COMMENT
// takes a blank one (spaces, tabs, line breaks) for none, as
// qMissingCommentPage does.
func hasComment(c string) bool { return strings.Trim(c, " \t\n\r") != "" }

// Findings adds findings of the schema rules (indexer/lint) about tables
// of the release already given to Table, by their place.
func (w *ReleaseWriter) Findings(fs []snapshot.Finding) error {
	for i := range fs {
		if err := w.addFinding(w.ctx, w.lint.findings, &fs[i]); err != nil {
			return err
		}
	}
	return nil
}

// addFinding writes a finding with b and counts it.
func (w *ReleaseWriter) addFinding(ctx context.Context, b *batch, f *snapshot.Finding) error {
	lo, _ := idRange(w.release)
	if f.Table < 0 || int64(f.Table) >= w.nextTable-lo {
		return fmt.Errorf("finding %s of table %d: the release has %d tables so far", f.Code, f.Table, w.nextTable-lo)
	}
	rule, err := storedRule(f.Code)
	if err != nil {
		return err
	}
	w.lint.problems++
	w.lint.byRule[rule]++
	if err := b.add(ctx, w.release, rule, lo+int64(f.Table), f.Item, f.Part, f.Code, nullString(f.Column), f.Message); err != nil {
		return fmt.Errorf("findings of table %d: %w", f.Table, err)
	}
	return nil
}

// writeChecks writes the release's release_checks row and the counts of
// its findings by rule.
func (w *ReleaseWriter) writeChecks(ctx context.Context) error {
	if _, err := w.tx.ExecContext(ctx, insertReleaseChecks, w.release, w.lint.problems, w.lint.columns,
		w.lint.commented); err != nil {
		return fmt.Errorf("write release checks: %w", err)
	}
	for rule, code := range storedRules {
		if _, err := w.tx.ExecContext(ctx, insertFindingCount, w.release, rule, code, w.lint.byRule[rule]); err != nil {
			return fmt.Errorf("write release checks: %w", err)
		}
	}
	return nil
}

// errNotFinished is the error of a read of the written release before
// Finish has written it.
var errNotFinished = errors.New("the release is not finished: its rows are written by Finish")

// Findings writes findings of the schema rules about the release's tables,
// by their place: before Finish, with the release's other rows; after it
// (FK_TYPE_MISMATCH, judged from the rows written), at once, adding to the
// counts Finish wrote.
func (t *ReleaseTx) Findings(fs []snapshot.Finding) error {
	if !t.finished {
		return t.w.Findings(fs)
	}
	b := newBatch(t.tx, insertFinding, nil)
	defer b.close()
	var problems int64
	before := t.w.lint.byRule
	for i := range fs {
		if err := t.w.addFinding(t.ctx, b, &fs[i]); err != nil {
			return classify(opRelease, err)
		}
		problems++
	}
	if err := b.flush(t.ctx); err != nil {
		return classify(opRelease, fmt.Errorf("write findings: %w", err))
	}
	if _, err := t.tx.ExecContext(t.ctx, addReleaseChecks, t.w.release, problems); err != nil {
		return classify(opRelease, fmt.Errorf("write release checks: %w", err))
	}
	for rule := range storedRules {
		if n := t.w.lint.byRule[rule] - before[rule]; n > 0 {
			if _, err := t.tx.ExecContext(t.ctx, addFindingCount, t.w.release, rule, n); err != nil {
				return classify(opRelease, fmt.Errorf("write release checks: %w", err))
			}
		}
	}
	return nil
}

// The types of a table's columns, read in the writer's transaction: those
// of its primary key first, from the covering index columns_pk (most keys
// reference a primary key), then, when a column asked for is not among
// them, all of them.
const (
	qRefKeyTypes = `SELECT c.name, c.type FROM tables t
CROSS JOIN columns c ON c.table_id = t.id AND c.pk_position IS NOT NULL
WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3`
	qRefColumnTypes = `SELECT c.name, c.type FROM tables t
CROSS JOIN columns c ON c.table_id = t.id
WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3`
)

// ColumnTypes reads, after Finish, the types of the named columns of the
// release's table connection.table, in their order: "" for a column the
// table lacks, every one "" when the release has no such table. It reads
// the table's primary key first, then, when a column is not in it, every
// column.
func (t *ReleaseTx) ColumnTypes(connection, table string, columns []string) ([]string, error) {
	if !t.finished {
		return nil, errNotFinished
	}
	out := make([]string, len(columns))
	missing, err := t.readTypes(&t.keyTypes, qRefKeyTypes, connection, table, columns, out)
	if err == nil && missing {
		_, err = t.readTypes(&t.columnTypes, qRefColumnTypes, connection, table, columns, out)
	}
	if err != nil {
		return nil, classify(opRelease, fmt.Errorf("read column types: %w", err))
	}
	return out, nil
}

// readTypes runs q (prepared once in *stmt) for the table, setting the
// type of each of columns it returns in out; missing reports whether a
// column is still without one.
func (t *ReleaseTx) readTypes(stmt **sql.Stmt, q, connection, table string, columns, out []string) (missing bool, err error) {
	if *stmt == nil {
		if *stmt, err = t.tx.PrepareContext(t.ctx, q); err != nil {
			return false, err
		}
	}
	rows, err := (*stmt).QueryContext(t.ctx, t.w.release, connection, table)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return false, err
		}
		for i, c := range columns {
			if c == name {
				out[i] = typ
			}
		}
	}
	for _, typ := range out {
		missing = missing || typ == ""
	}
	return missing, rows.Err()
}

// qForeignKey reads key ?2 of table ?1 as ForeignKey gives it.
const qForeignKey = `
SELECT coalesce(name, ''), columns, ref_connection, ref_table, ref_columns, connection
FROM foreign_keys WHERE table_id = ?1 AND position = ?2`

// ForeignKey reads, after Finish, the foreign key at position of the
// release's table at place table (from 0), its RefConnection given, and
// that table's connection.
func (t *ReleaseTx) ForeignKey(table, position int) (snapshot.ForeignKey, string, error) {
	if !t.finished {
		return snapshot.ForeignKey{}, "", errNotFinished
	}
	lo, _ := idRange(t.w.release)
	var fk snapshot.ForeignKey
	var columns, refColumns, connection string
	err := t.tx.QueryRowContext(t.ctx, qForeignKey, lo+int64(table), position).Scan(&fk.Name, &columns,
		&fk.RefConnection, &fk.RefTable, &refColumns, &connection)
	if err == nil {
		err = json.Unmarshal([]byte(columns), &fk.Columns)
	}
	if err == nil {
		err = json.Unmarshal([]byte(refColumns), &fk.RefColumns)
	}
	if err != nil {
		return fk, "", classify(opRelease, fmt.Errorf("read foreign key %d of table %d: %w", position, table, err))
	}
	return fk, connection, nil
}
