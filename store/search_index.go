package store

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// How a release is written into the search index (see
// migrations/0004_relational.sql): one row per table and per logic, the
// distinct words of the release, and each name as words.

const (
	insertSearchRow  = `INSERT INTO search (rowid, name, cols, comment, notes, body) VALUES (?, ?, ?, ?, ?, ?)`
	insertSearchName = `INSERT INTO search_names (release, name, row) VALUES (?, ?, ?)`
	insertSearchWord = `INSERT INTO search_words (release, word, columns) VALUES (?, ?, ?)`
)

// searchTable adds the search row and name of table t, whose id is id.
func (w *ReleaseWriter) searchTable(ctx context.Context, id int64, t *Table) error {
	names := make([]string, 0, len(t.Columns))
	var comments []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
		if c.Comment != "" {
			comments = append(comments, c.Comment)
		}
	}
	name := w.words.text(false, colName, t.Name)
	if err := w.search.add(ctx, id, name, w.words.text(false, colCols, names...),
		w.words.text(false, colComment, t.Comment), w.words.text(false, colNotes, comments...), ""); err != nil {
		return err
	}
	w.nameRows = append(w.nameRows, nameRow{name, id})
	return nil
}

// searchLogic adds the search row and name of logic l, whose id is id.
func (w *ReleaseWriter) searchLogic(ctx context.Context, id int64, l *Logic) error {
	names := make([]string, 0, len(l.Params))
	for _, p := range l.Params {
		names = append(names, p.Name)
	}
	name := w.words.text(true, colName, l.Name)
	if err := w.search.add(ctx, id+logicRows, name, w.words.text(true, colCols, names...),
		w.words.text(true, colComment, l.Description), "", w.words.text(true, colBody, l.SQL)); err != nil {
		return err
	}
	w.nameRows = append(w.nameRows, nameRow{name, id + logicRows})
	return nil
}

// A nameRow is a row of search_names waiting to be written.
type nameRow struct {
	name string
	row  int64
}

// writeNames writes the names of the release's search rows, sorted as
// search_names is, so the rows are appended to its b-tree.
func (w *ReleaseWriter) writeNames(ctx context.Context) error {
	slices.SortFunc(w.nameRows, func(a, b nameRow) int {
		return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(a.row, b.row))
	})
	for _, n := range w.nameRows {
		if err := w.names.add(ctx, w.release, n.name, n.row); err != nil {
			return fmt.Errorf("search name %q: %w", n.name, err)
		}
	}
	w.nameRows = nil
	return nil
}

// writeWords writes the distinct words of the release's search rows.
func (w *ReleaseWriter) writeWords(ctx context.Context) error {
	words := newBatch(w.tx, insertSearchWord, nil)
	defer words.close()
	// In order, so the rows go into the table's b-tree in order.
	for _, word := range slices.Sorted(maps.Keys(w.words)) {
		if err := words.add(ctx, w.release, word, w.words[word]); err != nil {
			return fmt.Errorf("search word %q: %w", word, err)
		}
	}
	return words.flush(ctx)
}

// wordSet collects the distinct words of a release's search rows, each
// with the columns it occurs in (see columnBit).
type wordSet map[string]uint16

// text returns parts as search column col of a table's or logic's row
// holds them, and notes their words.
func (ws wordSet) text(logics bool, col int, parts ...string) string {
	bit := columnBit(logics, col)
	var sb strings.Builder
	for _, p := range parts {
		for _, sp := range wordSpans(p) {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(sp.word)
			ws[sp.word] |= bit
		}
	}
	return sb.String()
}
