package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// How a release writes its schema findings (lint_rules.go) and its
// release_checks row (migrations/0007_schema_findings.sql).

// lintState is what a ReleaseWriter keeps for the checks: the findings'
// batch and the counts of its release_checks row.
type lintState struct {
	findings                     *batch
	problems, columns, commented int64
	byRule                       [ruleDuplicateForeignKey + 1]int64 // findings of each stored rule
	keys                         keyTypes
}

const (
	insertFinding = `INSERT INTO schema_findings (release, rule, table_id, item, part, code, column_name, message)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	insertReleaseChecks = `INSERT INTO release_checks (release, schema_problems, column_count, commented_count)
		VALUES (?, ?, ?, ?)`
	insertFindingCount = `INSERT INTO schema_finding_counts (release, rule, code, findings) VALUES (?, ?, ?, ?)`
)

// lintTable runs the rules that judge a table by itself on t, whose id is
// id, and counts its columns and comments.
func (w *ReleaseWriter) lintTable(ctx context.Context, id int64, t *snapshot.Table) error {
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
	w.lint.byRule[f.rule]++
	return b.add(ctx, w.release, f.rule, tableID, f.item, f.part, f.code, nullString(f.column), f.message)
}

// writeLint runs FK_TYPE_MISMATCH on the release's foreign keys
// (keyTypes) and writes its release_checks row. The rows of every table
// must be written.
func (w *ReleaseWriter) writeLint(ctx context.Context) error {
	b := newBatch(w.tx, insertFinding, nil)
	defer b.close()
	lo, _ := idRange(w.release)
	err := w.lint.keys.mismatches(ctx, w.tx, w.release, lo, func(f finding, tableID int64) error {
		return w.addFinding(ctx, b, tableID, f)
	})
	if err != nil {
		return fmt.Errorf("judge foreign key types: %w", err)
	}
	if err := b.flush(ctx); err != nil {
		return fmt.Errorf("write findings: %w", err)
	}
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
