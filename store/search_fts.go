package store

import (
	"context"
	"fmt"
	"strings"
)

// The FTS5 queries of a search: each term expanded to the words of the
// release it matches, and written as a MATCH argument for the columns of
// a step.

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
		rows, err := sr.tx.query(ctx, qSearchWords, sr.release, t, hi, maxExpansions+1)
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
