package indexer

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An index written before migration 10 stores each foreign key's json in
// its row and again in foreign_keys_by_table. The migration drops the
// row's copy (json becomes a VIRTUAL generated column) and indexes the
// expression instead, keeping the rows: every schema_get_table answer,
// with its foreignKeys and referencedBy, is byte for byte what it was, and
// no release is indexed again.
func TestForeignKeyJSONMigration(t *testing.T) {
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

	// The index as migration 9 left it: json stored in the row, with the
	// values it had, and held by foreign_keys_by_table.
	path := "file:" + filepath.ToSlash(filepath.Join(dir, "index.db"))
	db, err := sql.Open("sqlite", path+"?vfs=hubsnap") // keeping the page checksums
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE foreign_keys ADD COLUMN json_stored TEXT",
		"UPDATE foreign_keys SET json_stored = json",
		"DROP INDEX foreign_keys_by_table",
		"ALTER TABLE foreign_keys DROP COLUMN json",
		"ALTER TABLE foreign_keys RENAME COLUMN json_stored TO json",
		"CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position, json)",
		"DELETE FROM schema_migrations WHERE version >= 10",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var keys, stored int
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(json) + count(ref_json) FROM foreign_keys`).Scan(&keys, &stored); err != nil {
		t.Fatal(err)
	}
	if keys == 0 || stored != 2*keys {
		t.Fatalf("before the migration: %d keys, %d stored values, want %d", keys, stored, 2*keys)
	}
	db.Close()

	if diff := cmp.Diff(want, answers()); diff != "" {
		t.Errorf("schema_get_table after migration 10 (-before +after):\n%s", diff)
	}

	db, err = sql.Open("sqlite", path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var table, index string
	var reindexed int
	if err := db.QueryRowContext(ctx, `SELECT
			(SELECT sql FROM sqlite_schema WHERE name = 'foreign_keys'),
			(SELECT sql FROM sqlite_schema WHERE name = 'foreign_keys_by_table'),
			(SELECT count(*) FROM releases WHERE file_size < 0)`).Scan(&table, &index, &reindexed); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "json TEXT GENERATED ALWAYS AS (") || !strings.Contains(table, ") VIRTUAL") {
		t.Errorf("foreign_keys.json is not a VIRTUAL generated column after migration 10:\n%s", table)
	}
	if !strings.HasPrefix(index, "CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position, '{' ||") {
		t.Errorf("foreign_keys_by_table does not index the keys' JSON expression:\n%s", index)
	}
	if reindexed != 0 {
		t.Errorf("%d releases marked for indexing again, want none", reindexed)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM foreign_keys`).Scan(&n); err != nil || n != keys {
		t.Errorf("after the migration: %d keys (%v), want %d", n, err, keys)
	}
}
