package indexer

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/store"
)

// An index written before migration 7 has no schema findings: the
// migration makes the next open index every release again from its file,
// and the findings are there, counted, for release_info and release_check.
func TestSchemaFindingsMigrationReindexes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))

	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "index.db")))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"DROP TABLE schema_findings", "DROP TABLE schema_finding_counts", "DROP TABLE release_checks",
		"DELETE FROM schema_migrations WHERE version >= 7",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	c := openCache(t, dir)
	var info struct {
		SchemaProblems int `json:"schemaProblems"`
	}
	answer, err := c.Store().ReleaseJSON(ctx, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(answer, &info)
	var check struct {
		Findings []json.RawMessage `json:"findings"`
		Total    int               `json:"total"`
	}
	answer, err = c.Store().CheckJSON(ctx, shopDev, store.CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(answer, &check)
	if info.SchemaProblems == 0 || check.Total != info.SchemaProblems || len(check.Findings) != check.Total {
		t.Errorf("after the migration: schemaProblems %d, total %d, %d findings; want the same, not 0",
			info.SchemaProblems, check.Total, len(check.Findings))
	}
}
