package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind is what a search hit is.
type Kind string

// Kinds of search hits.
const (
	KindTable  Kind = "table"
	KindColumn Kind = "column"
	KindLogic  Kind = "logic"
)

// Kinds lists every Kind, in the order hits of equal rank are given.
var Kinds = []Kind{KindTable, KindColumn, KindLogic}

// Fields a search hit can match in; see Hit.Matched.
const (
	MatchName        = "name"        // the name; a column's together with its table's
	MatchParam       = "param"       // a logic's parameter names
	MatchComment     = "comment"     // a table's or column's comment
	MatchDescription = "description" // a logic's description
	MatchSQL         = "sql"         // a logic's SQL
)

// Search limits.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 100
	maxQueryBytes      = 1024
	maxQueryWords      = 16
	// A step of a search reads matching tables or logics a page at a
	// time, in release order, and stops once the search has more hits
	// than it needs or it has examined searchBudget of them. A word found
	// in thousands of tables is not ranked over all of them: that keeps a
	// search over a 10,000-table release near a millisecond whatever the
	// query.
	searchPage   = 32
	searchBudget = 4 * searchPage
	// minPrefix is the shortest ASCII word that matches as a prefix;
	// shorter ones ("id", "at") match whole words only, as prefixes of
	// one or two letters match most of a schema and say little.
	minPrefix = 3
	// excerptRunes is about how long an excerpt of a comment,
	// description or SQL is.
	excerptRunes = 100
)

// SearchQuery is a search over the names, comments, descriptions and SQL
// of a release.
type SearchQuery struct {
	// Text is plain text, never query syntax: its words (split as in
	// wordSpans) must all match, each as a prefix of a word.
	Text string
	// Kinds limits the hits to these kinds; all when empty.
	Kinds []Kind
	// Limit is the most hits to return: DefaultSearchLimit when 0, at
	// most MaxSearchLimit.
	Limit int
}

// Hit is one thing a search found.
type Hit struct {
	Kind       Kind
	Connection string // of the table, for table and column hits
	Table      string // table and column hits
	Column     string // column hits
	Logic      string // logic hits
	// Matched says where the words were found, one of the Match
	// constants: every word was in the name (MatchName), or it took the
	// param names, comment, description or SQL too.
	Matched string
	// Text is what matched beyond the name: an excerpt of the comment,
	// description or SQL, or the matching param names; "" for MatchName.
	Text string
}

// SearchResult is the answer to a search.
type SearchResult struct {
	Hits []Hit
	// More is set when there are more hits than the limit, or matches
	// that were not examined.
	More bool
}

// Search finds tables, columns and logics of t's current release.
//
// Every word of the query must match a word of one table, column or logic
// (see isPrefix): of its name (a column's words include its table's, so
// "users email" finds users.email), then its param names, comment or
// description, and last its SQL.
//
// Tables and logics whose whole name is the query's words come first.
// Then hits are ranked by where they matched (names of tables, logics,
// columns; then params; table comments, column comments, descriptions;
// then SQL), then by how many query words are whole words of the name
// rather than prefixes, then by shorter names, then by kind and name. See
// searchBudget for queries that match thousands of things.
func (s *Store) Search(ctx context.Context, t Target, q SearchQuery) (SearchResult, error) {
	terms, kinds, limit, err := q.check()
	if err != nil {
		return SearchResult{}, err
	}
	var res SearchResult
	err = s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		if len(terms) == 0 {
			return nil // only punctuation: nothing can match
		}
		sr := &searcher{tx: tx, release: rel, terms: terms, kinds: kinds, limit: limit, seen: map[hitKey]bool{},
			phrase: strings.Join(words(q.Text), " "),
			tables: map[int64]*searchTable{}, logics: map[int64]*searchLogic{}}
		if found, err := sr.expand(ctx); err != nil || !found {
			return err
		}
		return sr.search(ctx, &res)
	})
	return res, err
}

// search runs the search and fills res.
//
// It first asks for every table (and every logic) the query matches at
// all. When there are at most searchPage of them, every step runs over
// them in memory: two queries answer the search, ranked over all its
// matches. Otherwise the steps run one by one, each a query of its own
// that reads a page of candidates at a time, so a common word costs a few
// pages rather than thousands of rows.
func (sr *searcher) search(ctx context.Context, res *SearchResult) error {
	if err := sr.exactNames(ctx); err != nil {
		return err
	}
	complete := map[bool]bool{} // by step.logics
	for _, logics := range []bool{false, true} {
		if !slices.ContainsFunc(steps, func(st step) bool { return st.logics == logics && sr.wants(st) }) {
			continue
		}
		ids, err := sr.page(ctx, logics, allColumns, nil, sr.first(logics), searchPage+1)
		if err != nil {
			return err
		}
		if len(ids) > searchPage {
			continue
		}
		complete[logics] = true
		for i, st := range steps {
			if st.logics == logics && sr.wants(st) {
				if err := sr.hitsIn(ctx, i, st, ids); err != nil {
					return err
				}
			}
		}
	}
	for i, st := range steps {
		if complete[st.logics] || !sr.wants(st) {
			continue
		}
		if sr.better(i) > sr.limit {
			res.More = true // the steps left could only add worse hits
			break
		}
		if err := sr.run(ctx, i, st); err != nil {
			return err
		}
	}
	slices.SortFunc(sr.hits, compareHits)
	if len(sr.hits) > sr.limit {
		sr.hits, res.More = sr.hits[:sr.limit], true
	}
	res.More = res.More || sr.truncated
	res.Hits = make([]Hit, len(sr.hits))
	for i, h := range sr.hits {
		res.Hits[i] = h.Hit
	}
	return nil
}

// check validates q and returns its words, wanted kinds and limit.
func (q SearchQuery) check() (terms []string, kinds map[Kind]bool, limit int, err error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, nil, 0, Errorf(InvalidArgument, "query is empty: give words to look for, e.g. \"user email\"")
	}
	if len(q.Text) > maxQueryBytes {
		return nil, nil, 0, Errorf(InvalidArgument, "query is %d bytes long; at most %d", len(q.Text), maxQueryBytes)
	}
	if !utf8.ValidString(q.Text) {
		return nil, nil, 0, Errorf(InvalidArgument, "query is not valid UTF-8")
	}
	terms = slices.Compact(slices.Sorted(slices.Values(words(q.Text))))
	if len(terms) > maxQueryWords {
		return nil, nil, 0, Errorf(InvalidArgument, "query has %d different words; at most %d", len(terms), maxQueryWords)
	}
	limit = q.Limit
	switch {
	case limit == 0:
		limit = DefaultSearchLimit
	case limit < 1 || limit > MaxSearchLimit:
		return nil, nil, 0, Errorf(InvalidArgument, "limit must be between 1 and %d, got %d", MaxSearchLimit, limit)
	}
	kinds = map[Kind]bool{}
	for _, k := range q.Kinds {
		if !slices.Contains(Kinds, k) {
			return nil, nil, 0, Errorf(InvalidArgument, "unknown kind %q; kinds are table, column and logic", short(string(k)))
		}
		kinds[k] = true
	}
	if len(kinds) == 0 {
		for _, k := range Kinds {
			kinds[k] = true
		}
	}
	return terms, kinds, limit, nil
}

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
const (
	qSearchTables = `SELECT t.id, t.connection, t.name, t.comment FROM search s JOIN tables t ON t.id = s.rowid
		WHERE search MATCH ? AND s.rowid >= ? AND s.rowid < ? ORDER BY s.rowid LIMIT ?`
	qSearchLogics = `SELECT l.id, l.name, l.description, l.sql FROM search s JOIN logics l ON l.id = s.rowid - ?
		WHERE search MATCH ? AND s.rowid >= ? AND s.rowid < ? ORDER BY s.rowid LIMIT ?`
	qSearchNames = `SELECT row FROM search_names WHERE release = ? AND name = ? ORDER BY row LIMIT ?`
	qSearchTable = `SELECT id, connection, name, comment FROM tables WHERE id = ?`
	qSearchLogic = `SELECT id, name, description, sql FROM logics WHERE id = ?`
	qSearchWords = `SELECT word, columns FROM search_words WHERE release = ? AND word >= ? AND word < ?
		ORDER BY word LIMIT ?`
	qSearchColumns = `SELECT detail FROM tables WHERE id = ?`
	qSearchParams  = `SELECT name FROM logic_params WHERE logic_id = ? ORDER BY position`
)

// searchTable and searchLogic are what matching needs of a table or logic.
type searchTable struct {
	connection, name, comment string
	nameWords, commentWords   []string
	columns                   []searchColumn
}

type searchColumn struct {
	name, comment           string
	nameWords, commentWords []string
}

type searchLogic struct {
	name, description, sql                  string
	nameWords, descriptionWords, paramWords []string
	params                                  []string
	sqlWords                                []string
}

// hitKey identifies a table (column -1), a column or a logic.
type hitKey struct {
	logic  bool
	id     int64
	column int
}

// rankedHit is a hit with what ranks it.
type rankedHit struct {
	Hit
	step  int // which step found it: where it matched
	exact int // query words that are whole words of the name
	words int // words in the name
}

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
	rows, err := sr.tx.QueryContext(ctx, qSearchNames, sr.release, sr.phrase, MaxSearchLimit+1)
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
			if _, err := sr.scanTable(sr.tx.QueryRowContext(ctx, qSearchTable, row)); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			sr.tableHit(exactStep, steps[0], row, sr.tables[row])
			continue
		}
		if !sr.kinds[KindLogic] {
			continue
		}
		id := row - logicRows
		if _, err := sr.scanLogic(sr.tx.QueryRowContext(ctx, qSearchLogic, id)); err != nil {
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

// expand finds the words of the release each term matches. It returns
// false when a term matches none: then nothing can match the query.
func (sr *searcher) expand(ctx context.Context) (bool, error) {
	sr.expanded = make([]term, len(sr.terms))
	for i, t := range sr.terms {
		et := term{text: t}
		hi := t + "\x00" // just the word itself
		if isPrefix(t) {
			hi = t + "\xff" // every word starting with t: no UTF-8 byte is 0xff
		}
		rows, err := sr.tx.QueryContext(ctx, qSearchWords, sr.release, t, hi, maxExpansions+1)
		if err != nil {
			return false, fmt.Errorf("search: %w", err)
		}
		for rows.Next() {
			var w string
			var bits uint16
			if err := rows.Scan(&w, &bits); err != nil {
				rows.Close()
				return false, fmt.Errorf("search: %w", err)
			}
			et.words, et.bits = append(et.words, w), append(et.bits, bits)
		}
		if err := rows.Close(); err != nil {
			return false, fmt.Errorf("search: %w", err)
		}
		if len(et.words) == 0 {
			return false, nil
		}
		if len(et.words) > maxExpansions {
			et.open, et.words, et.bits = true, nil, nil
		}
		sr.expanded[i] = et
	}
	return true, nil
}

// match returns the FTS5 query for the terms in columns of tables' or
// logics' rows: every term, as the words of the release it matches that
// occur in those columns. It returns false when a term has no such word:
// then nothing can match there.
func (sr *searcher) match(logics bool, columns, own []int) (string, bool) {
	var sb strings.Builder
	sb.WriteString("(" + columnFilter(columns) + " : (")
	mask := columnMask(logics, columns)
	for i, t := range sr.expanded {
		if i > 0 {
			sb.WriteString(" AND ") // FTS5 wants it between parentheses
		}
		sb.WriteString("(")
		if !t.write(&sb, mask) {
			return "", false
		}
		sb.WriteString(")")
	}
	sb.WriteString("))")
	if len(own) > 0 {
		// And some term in own.
		sb.WriteString(" AND (" + columnFilter(own) + " : (")
		mask, n := columnMask(logics, own), 0
		for _, t := range sr.expanded {
			if n > 0 {
				sb.WriteString(" OR ")
			}
			if t.write(&sb, mask) {
				n++
			}
		}
		sb.WriteString("))")
		if n == 0 {
			return "", false
		}
	}
	return sb.String(), true
}

// write writes t as an FTS5 query, "a" OR "b", with the words that occur
// in the columns of mask. It returns false, having written nothing, when
// there are none.
func (t term) write(sb *strings.Builder, mask uint16) bool {
	if t.open {
		sb.WriteString(quote(t.text) + "*")
		return true
	}
	n := 0
	for i, w := range t.words {
		if t.bits[i]&mask == 0 {
			continue
		}
		if n > 0 {
			sb.WriteString(" OR ")
		}
		sb.WriteString(quote(w))
		n++
	}
	return n > 0
}

// columnFilter is an FTS5 column filter for columns: {name cols}.
func columnFilter(columns []int) string {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = columnNames[c]
	}
	return "{" + strings.Join(names, " ") + "}"
}

// columnMask is columns as bits of search_words.columns.
func columnMask(logics bool, columns []int) uint16 {
	var mask uint16
	for _, c := range columns {
		mask |= columnBit(logics, c)
	}
	return mask
}

// quote makes s an FTS5 string: plain text, never an operator.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
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
		tb, err := sr.table(ctx, id)
		if err != nil {
			return err
		}
		if sr.kinds[KindTable] && slices.Contains(st.kinds, KindTable) {
			sr.tableHit(i, st, id, tb)
		}
		if sr.kinds[KindColumn] && slices.Contains(st.kinds, KindColumn) {
			sr.columnHits(i, st, id, tb)
		}
	}
	return nil
}

// candidates runs a search query and returns the ids of the rows it found,
// in release order, letting scan keep each row's data.
func (sr *searcher) candidates(ctx context.Context, q string, args []any, scan func(scanner) (int64, error)) ([]int64, error) {
	rows, err := sr.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		id, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return ids, nil
}

type scanner interface{ Scan(...any) error }

func (sr *searcher) scanTable(row scanner) (int64, error) {
	var id int64
	var tb searchTable
	if err := row.Scan(&id, &tb.connection, &tb.name, &tb.comment); err != nil {
		return 0, err
	}
	if _, ok := sr.tables[id]; !ok {
		tb.nameWords, tb.commentWords = words(tb.name), words(tb.comment)
		sr.tables[id] = &tb
	}
	return id, nil
}

func (sr *searcher) scanLogic(row scanner) (int64, error) {
	var id int64
	var l searchLogic
	if err := row.Scan(&id, &l.name, &l.description, &l.sql); err != nil {
		return 0, err
	}
	if _, ok := sr.logics[id]; !ok {
		// Params and SQL words are read on first use: most searches end
		// before they are needed.
		l.nameWords, l.descriptionWords = words(l.name), words(l.description)
		sr.logics[id] = &l
	}
	return id, nil
}

// table returns table id's data, reading its columns on first use.
func (sr *searcher) table(ctx context.Context, id int64) (*searchTable, error) {
	tb := sr.tables[id]
	if tb.columns != nil {
		return tb, nil
	}
	var detail []byte
	if err := sr.tx.QueryRowContext(ctx, qSearchColumns, id).Scan(&detail); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	cols, err := detailColumns(detail)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for i := range cols {
		cols[i].nameWords, cols[i].commentWords = words(cols[i].name), words(cols[i].comment)
	}
	tb.columns = cols
	return tb, nil
}

func (sr *searcher) tableHit(step int, st step, id int64, tb *searchTable) {
	key := hitKey{id: id, column: -1}
	if sr.seen[key] {
		return
	}
	fields := [][]string{tb.nameWords}
	if st.matched == MatchComment {
		fields = append(fields, tb.commentWords)
	}
	if !covers(sr.terms, fields...) {
		return
	}
	sr.seen[key] = true
	h := rankedHit{Hit: Hit{Kind: KindTable, Connection: tb.connection, Table: tb.name, Matched: st.matched},
		step: step, exact: exact(sr.terms, tb.nameWords), words: len(tb.nameWords)}
	if st.matched == MatchComment {
		h.Text = excerpt(tb.comment, sr.terms)
	}
	sr.hits = append(sr.hits, h)
}

func (sr *searcher) columnHits(step int, st step, id int64, tb *searchTable) {
	for pos, c := range tb.columns {
		key := hitKey{id: id, column: pos}
		if sr.seen[key] {
			continue
		}
		// The column itself must take part: "users" alone finds the
		// table, not each of its columns.
		own := [][]string{c.nameWords}
		if st.matched == MatchComment {
			own = append(own, c.commentWords)
		}
		if !anyPrefix(sr.terms, own...) || !covers(sr.terms, append(own, tb.nameWords)...) {
			continue
		}
		sr.seen[key] = true
		h := rankedHit{Hit: Hit{Kind: KindColumn, Connection: tb.connection, Table: tb.name, Column: c.name,
			Matched: st.matched}, step: step, exact: exact(sr.terms, c.nameWords), words: len(c.nameWords)}
		if st.matched == MatchComment {
			h.Text = excerpt(c.comment, sr.terms)
		}
		sr.hits = append(sr.hits, h)
	}
}

func (sr *searcher) logicHit(ctx context.Context, step int, st step, id int64) error {
	key := hitKey{logic: true, id: id}
	if sr.seen[key] {
		return nil
	}
	l := sr.logics[id]
	fields := [][]string{l.nameWords}
	if st.matched != MatchName {
		if l.params == nil {
			if err := sr.readParams(ctx, id, l); err != nil {
				return err
			}
		}
		fields = append(fields, l.paramWords)
	}
	switch st.matched {
	case MatchDescription:
		fields = append(fields, l.descriptionWords)
	case MatchSQL:
		if l.sqlWords == nil {
			l.sqlWords = words(l.sql)
		}
		fields = append(fields, l.descriptionWords, l.sqlWords)
	}
	if !covers(sr.terms, fields...) {
		return nil
	}
	sr.seen[key] = true
	h := rankedHit{Hit: Hit{Kind: KindLogic, Logic: l.name, Matched: st.matched},
		step: step, exact: exact(sr.terms, l.nameWords), words: len(l.nameWords)}
	switch st.matched {
	case MatchParam:
		var names []string
		for _, p := range l.params {
			if anyPrefix(sr.terms, words(p)) {
				names = append(names, p)
			}
		}
		h.Text = strings.Join(names, ", ")
	case MatchDescription:
		h.Text = excerpt(l.description, sr.terms)
	case MatchSQL:
		h.Text = excerpt(l.sql, sr.terms)
	}
	sr.hits = append(sr.hits, h)
	return nil
}

func (sr *searcher) readParams(ctx context.Context, id int64, l *searchLogic) error {
	rows, err := sr.tx.QueryContext(ctx, qSearchParams, id)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	l.params = []string{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		l.params = append(l.params, name)
		l.paramWords = append(l.paramWords, words(name)...)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

// isPrefix tells whether term matches as a prefix of words, rather than
// only as a whole word; see minPrefix.
func isPrefix(term string) bool {
	if len(term) >= minPrefix {
		return true
	}
	for _, r := range term {
		if r >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// matches tells whether word matches term; see isPrefix.
func matches(word, term string) bool {
	if isPrefix(term) {
		return strings.HasPrefix(word, term)
	}
	return word == term
}

// covers tells whether every term is a prefix of a word in fields.
func covers(terms []string, fields ...[]string) bool {
	for _, t := range terms {
		if !anyPrefix([]string{t}, fields...) {
			return false
		}
	}
	return true
}

// anyPrefix tells whether some term is a prefix of some word in fields.
func anyPrefix(terms []string, fields ...[]string) bool {
	for _, f := range fields {
		for _, w := range f {
			for _, t := range terms {
				if matches(w, t) {
					return true
				}
			}
		}
	}
	return false
}

// exact counts the terms that are whole words of name.
func exact(terms, name []string) int {
	n := 0
	for _, t := range terms {
		if slices.Contains(name, t) {
			n++
		}
	}
	return n
}

// compareHits orders hits best first; see Store.Search.
func compareHits(a, b rankedHit) int {
	return cmp.Or(
		cmp.Compare(a.step, b.step),
		-cmp.Compare(a.exact, b.exact),
		cmp.Compare(a.words, b.words),
		cmp.Compare(slices.Index(Kinds, a.Kind), slices.Index(Kinds, b.Kind)),
		cmp.Compare(a.Connection, b.Connection),
		cmp.Compare(a.Table, b.Table),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Logic, b.Logic),
	)
}

// excerpt returns text, or about excerptRunes of it around the first word
// a term matches, cut at spaces, with its white space collapsed.
func excerpt(text string, terms []string) string {
	text = strings.Join(strings.Fields(text), " ")
	rs := []rune(text)
	if len(rs) <= excerptRunes {
		return text
	}
	at := 0 // the match, in runes
	for _, sp := range wordSpans(text) {
		if anyPrefix(terms, []string{sp.word}) {
			at = utf8.RuneCountInString(text[:sp.start])
			break
		}
	}
	// A few words before the match, the rest after; near the end, fill
	// the window backwards.
	start := min(max(0, at-excerptRunes/4), len(rs)-excerptRunes)
	end := start + excerptRunes
	if start > 0 {
		if i := slices.Index(rs[start:at], ' '); i >= 0 {
			start += i + 1
		}
	}
	if end < len(rs) {
		if i := lastIndex(rs[at:end], ' '); i > 0 {
			end = at + i
		}
	}
	out := string(rs[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(rs) {
		out += "…"
	}
	return out
}

func lastIndex(rs []rune, r rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == r {
			return i
		}
	}
	return -1
}
