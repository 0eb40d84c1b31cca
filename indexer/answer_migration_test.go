package indexer

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Migration 8 leaves the parts of the answers that store writes with each
// row (columns.json, indexes.json, foreign_keys.ref_json) empty and makes
// every release look changed: the next open indexes each release again
// from its file, and every schema_get_table answer is whole again.
func TestAnswerPartsMigrationReindexes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	tables := []struct{ connection, name string }{
		{"main", "users"}, {"main", "posts"}, {"main", "items"}, {"main", "purchases"},
		{"main", "order_lines"}, {"analytics", "users"},
	}
	answers := func() map[string]string {
		c := openCache(t, dir)
		defer c.Close()
		out := map[string]string{}
		for _, tb := range tables {
			answer, err := c.Store().TableJSON(ctx, shopDev, tb.connection, tb.name)
			if err != nil {
				t.Fatalf("%s.%s: %v", tb.connection, tb.name, err)
			}
			out[tb.connection+"."+tb.name] = string(answer)
		}
		return out
	}
	want := answers()

	// The index as it was before migration 8 ran: the next open runs it.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "index.db"))+"?vfs=hubsnap") // keeping the page checksums
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(dropAnalysisTables, "DELETE FROM schema_migrations WHERE version >= 8") {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	if diff := cmp.Diff(want, answers()); diff != "" {
		t.Errorf("schema_get_table after migration 8 (-before +after):\n%s", diff)
	}
}

// dropAnalysisTables undoes migration 9 (the logic analysis tables), for a
// test that makes an index of an older version.
var dropAnalysisTables = []string{
	"DROP TABLE logic_analysis", "DROP TABLE logic_results", "DROP TABLE logic_tables",
	"DROP TABLE logic_bindings", "DROP TABLE logic_problems", "DROP TABLE release_analysis",
}
