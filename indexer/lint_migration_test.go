package indexer

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/store"
)

// An index written before migration 7 has no schema findings: the
// migration makes the next open index every release again from its file,
// and the findings are there, counted, for release_info and release_check.
func TestSchemaFindingsMigrationReindexes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))

	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "index.db"))+"?vfs=hubsnap") // keeping the page checksums
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(dropAnalysisTables,
		"DROP TABLE schema_findings", "DROP TABLE schema_finding_counts", "DROP TABLE release_checks",
		"DELETE FROM schema_migrations WHERE version >= 7",
	) {
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
		Findings []struct {
			Logic string `json:"logic"`
		} `json:"findings"`
		Total int `json:"total"`
	}
	answer, err = c.Store().CheckJSON(ctx, shopDev, store.CheckRequest{Codes: lint.DefaultRules()})
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(answer, &check)
	schema := 0 // release_check lists the logics' problems after the schema's
	for _, f := range check.Findings {
		if f.Logic == "" {
			schema++
		}
	}
	if info.SchemaProblems == 0 || schema != info.SchemaProblems || len(check.Findings) != check.Total {
		t.Errorf("after the migration: schemaProblems %d, %d schema findings of %d (total %d); want the same, not 0",
			info.SchemaProblems, schema, len(check.Findings), check.Total)
	}
}
