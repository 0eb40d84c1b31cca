package store

import (
	"context"
	"regexp"
	"testing"
)

// maxColumnName bounds the name of a read query's result column. SQLite
// names a column without AS by its whole expression, and modernc copies
// that name into a Go string on every query: for an answer composed by SQL,
// kilobytes a call.
const maxColumnName = 64

// TestQueryColumnNames: every read query's result columns have short
// names (an AS where the column is an expression).
func TestQueryColumnNames(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	param := regexp.MustCompile(`\?(\d*)`)
	for _, q := range queries {
		n := 0
		for _, m := range param.FindAllStringSubmatch(q.text, -1) {
			k := 1
			if m[1] != "" {
				k = atoi(m[1])
			} else {
				k = n + 1
			}
			n = max(n, k)
		}
		args := make([]any, n) // zeros: every query runs, on no rows
		for i := range args {
			args[i] = 0
		}
		rows, err := s.r.QueryContext(ctx, q.text, args...)
		if err != nil {
			t.Errorf("query %d: %v\n%s", q.id, err, q.text)
			continue
		}
		cols, err := rows.Columns()
		rows.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			if len(c) > maxColumnName {
				t.Errorf("query %d (%.60q): a result column named by %d bytes of its expression (give it an AS name): %.60q", q.id, q.text, len(c), c)
			}
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
