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
)

// TestMigration6KeepsForeignKeys opens an index at schema version 5 that
// holds the sample release and checks that migration 6, which makes
// foreign_keys.json a plain column, keeps every key: each table's answer
// is the one a new index gives, and the index holds the keys' JSON.
func TestMigration6KeepsForeignKeys(t *testing.T) {
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

	// A version 5 index with the same rows: migrations 1 to 5, then the
	// rows of the fresh index but for their generated columns (and the
	// search tables, which this test does not read).
	path := filepath.Join(dir, "index.db")
	db, err := sql.Open("sqlite", dsn(path, "vfs="+checksumVFSName)) // with page checksums, as this hubsnap makes an index
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	stmts := []string{`CREATE TABLE schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`}
	for i, name := range embeddedMigrations(t)[:5] {
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
		"INSERT INTO tables SELECT * FROM fresh.tables",
		`INSERT INTO columns (table_id, position, name, type, nullable, comment, default_value, enum_values, pk_position)
			SELECT table_id, position, name, type, nullable, comment, default_value, enum_values, pk_position FROM fresh.columns`,
		`INSERT INTO foreign_keys (release, ref_connection, ref_table, connection, table_name, position,
				table_id, name, columns, ref_columns, on_delete)
			SELECT release, ref_connection, ref_table, connection, table_name, position,
				table_id, name, columns, ref_columns, on_delete FROM fresh.foreign_keys`,
		`INSERT INTO indexes (table_id, position, name, columns, is_unique)
			SELECT table_id, position, name, columns, is_unique FROM fresh.indexes`,
		"INSERT INTO logics SELECT * FROM fresh.logics",
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
	for key, js := range want {
		conn, name, _ := strings.Cut(key, ".")
		got, err := s.TableJSON(ctx, shopDev, conn, name)
		if err != nil {
			t.Fatalf("TableJSON(%s) after migration 6: %v", key, err)
		}
		if diff := cmp.Diff(string(js), string(got)); diff != "" {
			t.Errorf("TableJSON(%s) after migration 6 (-fresh +migrated):\n%s", key, diff)
		}
	}
	var after, covered int
	err = s.w.QueryRowContext(ctx, `SELECT count(*), count(json) FROM foreign_keys INDEXED BY foreign_keys_by_table
		WHERE table_id > 0`).Scan(&after, &covered)
	if err != nil || after != keys || covered != keys {
		t.Errorf("after migration 6: %d keys, %d with JSON, %v; want %d", after, covered, err, keys)
	}
}
