package store

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The answer of a join search: each path found, as tables, join
// conditions and a FROM clause, with the columns of its keys read for it.

// emit adds a path found, if it fits in the answer. It reports whether
// the walk should go on.
func (js *joinSearch) emit(tables []string, hops []*joinEdge) bool {
	if err := js.keyColumns(hops); err != nil {
		js.err = err
		return false
	}
	p := JoinPath{Tables: slices.Clone(tables), Joins: make([]string, len(hops))}
	var sb strings.Builder
	sb.WriteString("FROM ")
	sb.WriteString(sqlName(tables[0]))
	for i, e := range hops {
		p.Joins[i] = joinCondition(e, tables[i+1], tables[i])
		sb.WriteString(" JOIN ")
		sb.WriteString(sqlName(tables[i+1]))
		sb.WriteString(" ON ")
		sb.WriteString(p.Joins[i])
	}
	p.SQL = sb.String()
	size, _ := json.Marshal(struct {
		T []string `json:"tables"`
		J []string `json:"joins"`
		S string   `json:"sql"`
	}{p.Tables, p.Joins, p.SQL})
	if js.bytes+len(size)+1 > joinAnswerBytes {
		js.truncated = true
		return false
	}
	js.bytes += len(size) + 1
	js.paths = append(js.paths, p)
	return len(js.paths) < js.limit
}

// keyColumns reads the columns of the keys of a path that lack them.
func (js *joinSearch) keyColumns(hops []*joinEdge) error {
	var want [][2]any
	byKey := map[[2]string]*joinEdge{}
	for _, e := range hops {
		if e.cols == nil {
			want = append(want, [2]any{e.owner, e.pos})
			byKey[[2]string{e.owner, strconv.Itoa(e.pos)}] = e
		}
	}
	if len(want) == 0 {
		return nil
	}
	list, err := json.Marshal(want)
	if err != nil {
		return err
	}
	rows, err := js.tx.query(js.ctx, qJoinKeyColumns, js.rel, js.conn, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, pos, cols, refCols string
		if err := rows.Scan(&owner, &pos, &cols, &refCols); err != nil {
			return err
		}
		if e := byKey[[2]string{owner, pos}]; e != nil {
			// Written by jsonList: arrays of strings, of the same length.
			if err := json.Unmarshal([]byte(cols), &e.cols); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(refCols), &e.refCols); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

// joinCondition is the ON condition that joins table next to table prev
// through e: next's columns first, as in
// "order_items.order_id = orders.id", every column of a composite key
// joined with AND.
func joinCondition(e *joinEdge, next, prev string) string {
	nextCols, prevCols := e.refCols, e.cols // prev holds the key
	if e.owner == next {
		nextCols, prevCols = e.cols, e.refCols
	}
	conds := make([]string, min(len(nextCols), len(prevCols)))
	for i := range conds {
		conds[i] = sqlName(next) + "." + sqlName(nextCols[i]) + " = " + sqlName(prev) + "." + sqlName(prevCols[i])
	}
	return strings.Join(conds, " AND ")
}
