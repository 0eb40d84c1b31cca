package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
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
func (w *ReleaseWriter) searchTable(ctx context.Context, id int64, t *snapshot.Table) error {
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
	return w.addName(name, id)
}

// searchLogic adds the search row and name of logic l, whose id is id.
func (w *ReleaseWriter) searchLogic(ctx context.Context, id int64, l *snapshot.Logic) error {
	names := make([]string, 0, len(l.Params))
	for _, p := range l.Params {
		names = append(names, p.Name)
	}
	name := w.words.text(true, colName, l.Name)
	if err := w.search.add(ctx, id+logicRows, name, w.words.text(true, colCols, names...),
		w.words.text(true, colComment, l.Description), "", w.words.text(true, colBody, l.SQL)); err != nil {
		return err
	}
	return w.addName(name, id+logicRows)
}

// addName buffers a row of search_names for writeNames, and spills the
// words when they fill their buffer. The record is the row's key: the
// name, then the row.
func (w *ReleaseWriter) addName(name string, row int64) error {
	if err := w.words.spillIfFull(); err != nil {
		return err
	}
	b := appendKey(w.rec[:0], name)
	b = binary.BigEndian.AppendUint64(b, uint64(row))
	w.rec = b
	return w.names.add(b)
}

// writeNames writes the names of the release's search rows, sorted as
// search_names is, so the rows are appended to its b-tree.
func (w *ReleaseWriter) writeNames(ctx context.Context) error {
	return w.names.each(func(rec []byte) error {
		r := keyReader(rec)
		name, row := r.key(), int64(r.uint64())
		if err := w.searchNames.add(ctx, w.release, name, row); err != nil {
			return fmt.Errorf("search name %q: %w", name, err)
		}
		return nil
	})
}

// writeWords writes the distinct words of the release's search rows, in
// order, so the rows go into the table's b-tree in order.
func (w *ReleaseWriter) writeWords(ctx context.Context) error {
	words := newBatch(w.tx, insertSearchWord, nil)
	defer words.close()
	if err := w.words.spillAll(); err != nil {
		return err
	}
	// A word spilled more than once comes once from each run, with the
	// columns it was seen in since the run before.
	var last string
	var cols uint16
	flush := func() error {
		if last == "" {
			return nil
		}
		if err := words.add(ctx, w.release, last, cols); err != nil {
			return fmt.Errorf("search word %q: %w", last, err)
		}
		return nil
	}
	err := w.words.spill.each(func(rec []byte) error {
		r := keyReader(rec)
		word, bits := r.key(), r.uint16()
		if word == last {
			cols |= bits
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		last, cols = word, bits
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	return words.flush(ctx)
}

// wordSet collects the distinct words of a release's search rows, each
// with the columns it occurs in (see columnBit). It holds up to
// spillBytes of them; spillIfFull then moves them, sorted, into a spill,
// and writeWords merges what the spill and the set hold.
type wordSet struct {
	m     map[string]uint16
	bytes int // an estimate of what m holds
	spill *spill
	rec   []byte
}

// wordBytes is what a word costs in a wordSet besides its bytes: the
// map's slot, its share of the control bytes and free slots, and the
// string's header.
const wordBytes = 48

func newWordSet(s *spill) *wordSet { return &wordSet{m: map[string]uint16{}, spill: s} }

// text returns parts as search column col of a table's or logic's row
// holds them, and notes their words.
func (ws *wordSet) text(logics bool, col int, parts ...string) string {
	bit := columnBit(logics, col)
	var sb strings.Builder
	for _, p := range parts {
		for _, sp := range wordSpans(p) {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(sp.word)
			old, ok := ws.m[sp.word]
			if !ok {
				ws.bytes += wordBytes + len(sp.word)
			}
			ws.m[sp.word] = old | bit
		}
	}
	return sb.String()
}

// spillIfFull moves the words into the spill when they fill their
// buffer.
func (ws *wordSet) spillIfFull() error {
	if ws.bytes < ws.spill.limit {
		return nil
	}
	if err := ws.spillAll(); err != nil {
		return err
	}
	return ws.spill.flush()
}

// spillAll moves the words into the spill: each a record of the word's
// key and its columns.
func (ws *wordSet) spillAll() error {
	for word, cols := range ws.m { // the spill sorts them
		b := appendKey(ws.rec[:0], word)
		b = binary.BigEndian.AppendUint16(b, cols)
		ws.rec = b
		if err := ws.spill.add(b); err != nil {
			return err
		}
	}
	clear(ws.m)
	ws.bytes = 0
	return nil
}
