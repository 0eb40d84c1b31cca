package store

import (
	"context"
	"strings"
	"testing"
)

// TestForeignKeyJSONFromIndex checks that the statements which read a
// table's own keys take each key's JSON from the index
// foreign_keys_by_table, where migration 10 stores it, rather than from
// the row: only when foreignKeyJSON is the indexed expression, word for
// word, does SQLite read it from the index (a covering index). Otherwise
// every call would compute the JSON of each key again, or look its row up.
func TestForeignKeyJSONFromIndex(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"qTableJSON": qTableJSON.text, "qTableCut": qTableCut.text,
		"qDiffTableDocs": qDiffTableDocs.text} {
		rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+text, "p", "e", "t", "c", 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		got := strings.Join(plan, "\n")
		if !strings.Contains(got, "SEARCH foreign_keys USING COVERING INDEX foreign_keys_by_table (table_id=?)") {
			t.Errorf("%s does not read its keys from foreign_keys_by_table alone:\n%s", name, got)
		}
	}
	// And the JSON is the key's: what the row's generated json column says.
	var differ, keys int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(`+foreignKeyJSON+` IS NOT json), 0) FROM foreign_keys`).Scan(&keys, &differ); err != nil {
		t.Fatal(err)
	}
	if keys == 0 || differ != 0 {
		t.Errorf("%d of %d keys' JSON differ from foreign_keys.json", differ, keys)
	}
}
