package store

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/migrations"
	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// An index made by an earlier hubsnap is brought up to this schema by the
// migrations it lacks. Migration 8 leaves the parts of the answers that
// package store writes with each row (columns.json, indexes.json,
// foreign_keys.ref_json) empty and makes every release look changed, so
// that the indexer writes each release again at the next open; then every
// answer is the one a new index gives, and a table's own foreign keys are
// still read from the index foreign_keys_by_table alone. Version 7 is the
// index the landed main wrote (shipped migrations are never edited: its
// generated columns compute what main stored); version 5 also passes
// through migration 6.
func TestUpgradeReindexes(t *testing.T) {
	for _, version := range []int{5, 7} {
		t.Run("version "+strconv.Itoa(version), func(t *testing.T) { checkUpgrade(t, version) })
	}
}

func checkUpgrade(t *testing.T, version int) {
	ctx := context.Background()
	dir := t.TempDir()

	// The answers of an index written by this build.
	fresh := openStoreAt(t, filepath.Join(dir, "fresh.db"))
	put(t, fresh, sampleSnapshot(), true)
	want := map[string][]byte{}
	for _, tb := range sampleSnapshot().Tables {
		js, err := fresh.TableJSON(ctx, shopDev, tb.Connection, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		want[tb.Connection+"."+tb.Name] = js
	}

	// An index at version with the same rows: its migrations, then the
	// rows of the fresh index but for the answers' parts, which its
	// generated columns compute, and the search tables, which this test
	// does not read. foreign_keys.json is a plain column from version 6 on:
	// copied as the fresh index wrote it.
	path := filepath.Join(dir, "index.db")
	db, err := sql.Open("sqlite", dsn(path, "vfs="+cksumvfs.Name)) // with page checksums, as this hubsnap makes an index
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	fkJSON := "" // foreign_keys.json, a plain column from version 6 on
	if version >= 6 {
		fkJSON = ", json"
	}
	stmts := []string{`CREATE TABLE schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`}
	for i, name := range embeddedMigrations(t)[:version] {
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, string(body),
			"INSERT INTO schema_migrations (version, name) VALUES ("+strconv.Itoa(i+1)+", '"+name+"')")
	}
	stmts = append(stmts,
		"ATTACH DATABASE '"+filepath.ToSlash(filepath.Join(dir, "fresh.db"))+"' AS fresh",
		"INSERT INTO releases SELECT * FROM fresh.releases",
		"INSERT INTO current_releases SELECT * FROM fresh.current_releases",
		"INSERT INTO connections SELECT * FROM fresh.connections",
		`INSERT INTO tables (id, release, connection, name, comment, position, digest)
			SELECT id, release, connection, name, comment, position, digest FROM fresh.tables`,
		`INSERT INTO columns (table_id, position, name, type, nullable, comment, default_value, enum_values, pk_position)
			SELECT table_id, position, name, type, nullable, comment, default_value, enum_values, pk_position FROM fresh.columns`,
		`INSERT INTO foreign_keys (release, ref_connection, ref_table, connection, table_name, position,
				table_id, name, columns, ref_columns, on_delete`+fkJSON+`)
			SELECT release, ref_connection, ref_table, connection, table_name, position,
				table_id, name, columns, ref_columns, on_delete`+fkJSON+` FROM fresh.foreign_keys`,
		`INSERT INTO indexes (table_id, position, name, columns, is_unique)
			SELECT table_id, position, name, columns, is_unique FROM fresh.indexes`,
		`INSERT INTO logics (id, release, name, description, sql, auth_required, auth_roles, position, digest)
			SELECT id, release, name, description, sql, auth_required, auth_roles, position, digest FROM fresh.logics`,
		"INSERT INTO logic_params SELECT * FROM fresh.logic_params",
		"DETACH DATABASE fresh",
	)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("build version 5 index: %v\n%s", err, q)
		}
	}
	var keys int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM foreign_keys").Scan(&keys); err != nil || keys == 0 {
		t.Fatalf("version 5 index holds %d foreign keys, %v", keys, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openStoreAt(t, path)
	if v, err := s.SchemaVersion(ctx); err != nil || v != newestMigration(t) {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, newestMigration(t))
	}
	// Every release looks changed: the indexer writes it again.
	var unchanged int
	if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM releases WHERE file_size <> -1").Scan(&unchanged); err != nil || unchanged != 0 {
		t.Fatalf("after the migrations: %d releases look unchanged, %v; want 0", unchanged, err)
	}
	put(t, s, sampleSnapshot(), true)
	for key, js := range want {
		conn, name, _ := strings.Cut(key, ".")
		got, err := s.TableJSON(ctx, shopDev, conn, name)
		if err != nil {
			t.Fatalf("TableJSON(%s) after the upgrade: %v", key, err)
		}
		if diff := cmp.Diff(string(js), string(got)); diff != "" {
			t.Errorf("TableJSON(%s) after the upgrade (-fresh +upgraded):\n%s", key, diff)
		}
	}
	var after, covered int
	err = s.w.QueryRowContext(ctx, `SELECT count(*), count(json) FROM foreign_keys INDEXED BY foreign_keys_by_table
		WHERE table_id > 0`).Scan(&after, &covered)
	if err != nil || after != keys || covered != keys {
		t.Errorf("after the upgrade: %d keys, %d with JSON, %v; want %d", after, covered, err, keys)
	}
}
