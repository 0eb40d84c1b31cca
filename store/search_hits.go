package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// What a search makes of its candidates: the hits, how they rank, and
// the excerpts they show.

// searchTable and searchLogic are what matching needs of a table or logic.
type searchTable struct {
	connection, name, comment string
	nameWords, commentWords   []string
	columns                   []searchColumn // nil until columnsOf reads them
	commentsRead              bool           // columnsOf read the columns' comments
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

// candidates runs a search query and returns the ids of the rows it found,
// in release order, letting scan keep each row's data.
func (sr *searcher) candidates(ctx context.Context, q *query, args []any, scan func(scanner) (int64, error)) ([]int64, error) {
	rows, err := sr.tx.query(ctx, q, args...)
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

// columnsOf reads the columns of table id into tb, once per search: their
// names, and their comments only when comments is true (a comment step),
// since most searches end before one runs. One statement reads what is
// missing.
func (sr *searcher) columnsOf(ctx context.Context, id int64, tb *searchTable, comments bool) error {
	readNames, readComments := tb.columns == nil, comments && !tb.commentsRead
	if !readNames && !readComments {
		return nil
	}
	var names, texts sql.NullString
	var err error
	switch {
	case readNames && readComments:
		err = sr.tx.row(ctx, qSearchColumns, id).Scan(&names, &texts)
	case readNames:
		err = sr.tx.row(ctx, qSearchColumnNames, id).Scan(&names)
	default:
		err = sr.tx.row(ctx, qSearchColumnComments, id).Scan(&texts)
	}
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if readNames {
		list, ok := splitCounted(names.String)
		if !ok {
			return fmt.Errorf("search: columns of table %d: bad list", id)
		}
		tb.columns = make([]searchColumn, len(list))
		for i, name := range list {
			tb.columns[i] = searchColumn{name: name, nameWords: words(name)}
		}
	}
	if readComments {
		list, ok := splitCounted(texts.String)
		if !ok || len(list) != len(tb.columns) {
			return fmt.Errorf("search: column comments of table %d: bad list", id)
		}
		for i, text := range list {
			tb.columns[i].comment, tb.columns[i].commentWords = text, sr.commentWords(text)
		}
		tb.commentsRead = true
	}
	return nil
}

// commentWords returns the words of a column's comment, or none when no
// term of the search can start one of them: a term that starts a word
// is part of the comment in lower case, so a comment without any term
// is not split (most comments a comment step reads are not). Either way,
// the hits the comment gives are the same.
func (sr *searcher) commentWords(text string) []string {
	lower := strings.ToLower(text)
	for _, t := range sr.terms {
		if strings.Contains(lower, t) {
			return words(text)
		}
	}
	return nil
}

// splitCounted splits a list that SQL wrote as each item's length in
// bytes, a colon and the item ("5:email2:id"): any text may be an item, and
// reading it copies nothing. "" is the empty list.
func splitCounted(s string) ([]string, bool) {
	var list []string
	for s != "" {
		colon := strings.IndexByte(s, ':')
		n, err := strconv.Atoi(s[:max(colon, 0)])
		if colon < 0 || err != nil || n < 0 || n > len(s)-colon-1 {
			return nil, false
		}
		list = append(list, s[colon+1:colon+1+n])
		s = s[colon+1+n:]
	}
	return list, true
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
	rows, err := sr.tx.query(ctx, qSearchParams, id)
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
