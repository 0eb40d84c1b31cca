package indexer

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/store"
)

// An index written before migration 5 has no digests: the migration makes
// the next open index every release again from its file, with digests,
// and schema_diff then sees the change between them.
func TestDigestMigrationReindexes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, func(d map[string]any) {
		d["tables"] = d["tables"].([]any)[1:]
	}))

	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "index.db"))+"?vfs=hubsnap") // keeping the page checksums
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE tables DROP COLUMN digest",
		"ALTER TABLE logics DROP COLUMN digest",
		// What migration 7 made, which runs again too.
		"DROP TABLE schema_findings", "DROP TABLE schema_finding_counts", "DROP TABLE release_checks",
		// And migration 9 (logic analysis).
		"DROP TABLE logic_analysis", "DROP TABLE logic_results", "DROP TABLE logic_tables",
		"DROP TABLE logic_bindings", "DROP TABLE logic_problems", "DROP TABLE release_analysis",
		"DELETE FROM schema_migrations WHERE version >= 5", // 6 runs again: it copies what it finds
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	c := openCache(t, dir)
	db, err = sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "index.db"))+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var missing, file int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM tables WHERE digest IS NULL) + (SELECT count(*) FROM logics WHERE digest IS NULL),
		(SELECT count(*) FROM releases WHERE file_size < 0)`).Scan(&missing, &file); err != nil {
		t.Fatal(err)
	}
	if missing != 0 || file != 0 {
		t.Errorf("after the migration: %d rows without a digest, %d releases not indexed again", missing, file)
	}
	out, err := c.Store().DiffJSON(ctx, shopDev, store.DiffRequest{Tables: true, Logics: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"from":{"id":"rel_41","version":41},"to":{"id":"rel_42","version":42},"tables":{"removed":[{"name":"users","connection":"main"}]},"logics":{}}`
	if string(out) != want {
		t.Errorf("diff = %s\nwant %s", out, want)
	}
}
