package store

import (
	"context"
	"fmt"
	"slices"
)

// How a search runs: the query's terms, the steps it takes in rank order,
// and the FTS5 queries of each step, read a page of candidates at a time.

// The columns of the search table, in order (see
// migrations/0002_search.sql).
const (
	colName = iota
	colCols
	colComment
	colNotes
	colBody
	numColumns
)

var columnNames = [numColumns]string{"name", "cols", "comment", "notes", "body"}

// columnBit is search column col of a table's (or a logic's) row as a bit
// of search_words.columns.
func columnBit(logics bool, col int) uint16 {
	if logics {
		col += numColumns
	}
	return 1 << col
}

// allColumns is every search column.
var allColumns = []int{colName, colCols, colComment, colNotes, colBody}

// A step looks for the query in some columns of the search index, in the
// rows of tables or of logics, and turns what it finds into hits matched
// in one field. Steps run in rank order, so a search can stop once it has
// more hits than it needs.
type step struct {
	columns []int  // every term must be in these
	own     []int  // and some term in these, when set
	logics  bool   // logic rows rather than table rows
	kinds   []Kind // the hits it can make
	matched string
}

var steps = []step{
	{[]int{colName}, nil, false, []Kind{KindTable}, MatchName},
	{[]int{colName}, nil, true, []Kind{KindLogic}, MatchName},
	// A column's words include its table's, but one must be its own.
	{[]int{colName, colCols}, []int{colCols}, false, []Kind{KindColumn}, MatchName},
	{[]int{colName, colCols}, nil, true, []Kind{KindLogic}, MatchParam},
	{[]int{colName, colComment}, nil, false, []Kind{KindTable}, MatchComment},
	{[]int{colName, colCols, colComment, colNotes}, []int{colCols, colNotes}, false, []Kind{KindColumn}, MatchComment},
	{[]int{colName, colCols, colComment}, nil, true, []Kind{KindLogic}, MatchDescription},
	{[]int{colName, colCols, colComment, colBody}, nil, true, []Kind{KindLogic}, MatchSQL},
}

// maxExpansions is how many words of a release a prefix may stand for
// before the search hands the prefix to FTS5 rather than the words.
const maxExpansions = 64

// term is a word of the query with the words of the release it matches.
type term struct {
	text  string
	words []string // nil when open
	bits  []uint16 // the columns each word occurs in (see columnBit)
	open  bool     // more than maxExpansions words: match text as a prefix
}

// Search queries, one per kind of row; the column filter and terms are in
// the MATCH argument.
var (
	qSearchTables = readQuery(`SELECT t.id, t.connection, t.name, coalesce(t.comment, '')
FROM search s JOIN tables t ON t.id = s.rowid
WHERE search MATCH ? AND s.rowid >= ? AND s.rowid < ? ORDER BY s.rowid LIMIT ?`)
	qSearchLogics = readQuery(`SELECT l.id, l.name, coalesce(l.description, ''), l.sql
FROM search s JOIN logics l ON l.id = s.rowid - ?
WHERE search MATCH ? AND s.rowid >= ? AND s.rowid < ? ORDER BY s.rowid LIMIT ?`)
	qSearchNames = readQuery(`SELECT row FROM search_names WHERE release = ? AND name = ? ORDER BY row LIMIT ?`)
	qSearchTable = readQuery(`SELECT id, connection, name, coalesce(comment, '') FROM tables WHERE id = ?`)
	qSearchLogic = readQuery(`SELECT id, name, coalesce(description, ''), sql FROM logics WHERE id = ?`)
	qSearchWords = readQuery(`SELECT word, columns FROM search_words WHERE release = ? AND word >= ? AND word < ?
ORDER BY word LIMIT ?`)
	// qSearchColumns, qSearchColumnNames and qSearchColumnComments are a
	// table's column names and comments, both or one, each as one value
	// read (rather than one per column), written for splitCounted: each
	// item's length in bytes, a colon, the item. NULL for no columns. The
	// rows come in position order from the primary key: an ORDER BY inside
	// the aggregates would sort them again.
	qSearchColumns = readQuery(`SELECT group_concat(octet_length(name) || ':' || name, '') AS names,
	group_concat(octet_length(coalesce(comment, '')) || ':' || coalesce(comment, ''), '') AS comments
FROM (SELECT name, comment FROM columns WHERE table_id = ? ORDER BY position)`)
	qSearchColumnNames = readQuery(`SELECT group_concat(octet_length(name) || ':' || name, '') AS names
FROM (SELECT name FROM columns WHERE table_id = ? ORDER BY position)`)
	qSearchColumnComments = readQuery(`SELECT group_concat(octet_length(coalesce(comment, '')) || ':' || coalesce(comment, ''), '') AS comments
FROM (SELECT comment FROM columns WHERE table_id = ? ORDER BY position)`)
	qSearchParams = readQuery(`SELECT name FROM logic_params WHERE logic_id = ? ORDER BY position`)
)

type searcher struct {
	tx        readTx
	release   int64
	terms     []string
	kinds     map[Kind]bool
	limit     int
	phrase    string // the query's words in order, joined by spaces
	expanded  []term
	hits      []rankedHit
	seen      map[hitKey]bool
	truncated bool
	tables    map[int64]*searchTable
	logics    map[int64]*searchLogic
}

// exactStep is the step of exact-name hits: before every step of steps.
const exactStep = -1

// exactNames adds the tables and logics whose name is the query's words,
// in order ("order lines" finds order_lines and OrderLines): the best hits
// there are, found at once, beyond any candidate budget.
func (sr *searcher) exactNames(ctx context.Context) error {
	rows, err := sr.tx.query(ctx, qSearchNames, sr.release, sr.phrase, MaxSearchLimit+1)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	var found []int64
	for rows.Next() {
		var row int64
		if err := rows.Scan(&row); err != nil {
			rows.Close()
			return fmt.Errorf("search: %w", err)
		}
		found = append(found, row)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for _, row := range found {
		if row < sr.first(true) { // a table
			if !sr.kinds[KindTable] {
				continue
			}
			if _, err := sr.scanTable(sr.tx.row(ctx, qSearchTable, row)); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			sr.tableHit(exactStep, steps[0], row, sr.tables[row])
			continue
		}
		if !sr.kinds[KindLogic] {
			continue
		}
		id := row - logicRows
		if _, err := sr.scanLogic(sr.tx.row(ctx, qSearchLogic, id)); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		if err := sr.logicHit(ctx, exactStep, steps[1], id); err != nil {
			return err
		}
	}
	return nil
}

// wants tells whether step st can make hits of a kind the search wants.
func (sr *searcher) wants(st step) bool {
	return slices.ContainsFunc(st.kinds, func(k Kind) bool { return sr.kinds[k] })
}

// better counts the hits found by step i or an earlier one.
func (sr *searcher) better(i int) int {
	n := 0
	for _, h := range sr.hits {
		if h.step <= i {
			n++
		}
	}
	return n
}

// first returns the first rowid of the release's tables or logics.
func (sr *searcher) first(logics bool) int64 {
	lo, _ := idRange(sr.release)
	if logics {
		return lo + logicRows
	}
	return lo
}

// page returns up to n ids of tables or logics whose search rows match the
// query in columns, from rowid from on, in release order.
func (sr *searcher) page(ctx context.Context, logics bool, columns, own []int, from int64, n int) ([]int64, error) {
	match, ok := sr.match(logics, columns, own)
	if !ok {
		return nil, nil
	}
	end := sr.first(logics) + logicRows
	if logics {
		return sr.candidates(ctx, qSearchLogics, []any{logicRows, match, from, end, n}, sr.scanLogic)
	}
	return sr.candidates(ctx, qSearchTables, []any{match, from, end, n}, sr.scanTable)
}

// run runs step st (number i of steps), a page of candidates at a time,
// until the search has more hits than its limit or the step has examined
// searchBudget candidates.
func (sr *searcher) run(ctx context.Context, i int, st step) error {
	from := sr.first(st.logics)
	for examined := 0; ; {
		if examined >= searchBudget || sr.better(i) > sr.limit {
			sr.truncated = true
			return nil
		}
		ids, err := sr.page(ctx, st.logics, st.columns, st.own, from, searchPage)
		if err != nil {
			return err
		}
		if err := sr.hitsIn(ctx, i, st, ids); err != nil {
			return err
		}
		if len(ids) < searchPage {
			return nil // no more candidates
		}
		examined += len(ids)
		from = ids[len(ids)-1] + 1
		if st.logics {
			from += logicRows
		}
	}
}

// hitsIn adds the hits of step st (number i) in tables or logics ids.
func (sr *searcher) hitsIn(ctx context.Context, i int, st step, ids []int64) error {
	for _, id := range ids {
		if st.logics {
			if err := sr.logicHit(ctx, i, st, id); err != nil {
				return err
			}
			continue
		}
		tb := sr.tables[id]
		if sr.kinds[KindTable] && slices.Contains(st.kinds, KindTable) {
			sr.tableHit(i, st, id, tb)
		}
		if sr.kinds[KindColumn] && slices.Contains(st.kinds, KindColumn) {
			if err := sr.columnsOf(ctx, id, tb, st.matched == MatchComment); err != nil {
				return err
			}
			sr.columnHits(i, st, id, tb)
		}
	}
	return nil
}
