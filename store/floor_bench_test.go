package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/answer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// BenchmarkInsertFloor is the floor under an import (docs/benchmarks.md,
// "The floor of an import"): SQLite alone writing the rows SPEC §6 asks for
// (a row per table, per column, per foreign key), through modernc's
// driver as the import does, with none of hubsnap's work around it: no
// decoding, no release file, no checksums, no secondary index, no search,
// no analysis, no lint. The rows come from storetest.Release, made before
// the timing; a column row carries the answer's JSON fragment, built in Go
// before the timing too. Statements insert 64 rows at a time, in one
// transaction, into a new index with the index's page size, cache and
// log. "bare" leaves out the answers' JSON fragment of a column: only the
// readable values SPEC §6 asks for. It reports the CPU time of the
// process (cpu-ns/op) besides the wall time, and the size of the index
// made (index-MB), also as a multiple of the snapshot document's bytes
// (x-json): the floor under the cache-size target.
func BenchmarkInsertFloor(b *testing.B) {
	for _, size := range []storetest.Size{storetest.Large, storetest.Huge} {
		snap := storetest.Release(size)
		jsonSize := documentSize(b, size)
		for _, answers := range []bool{false, true} {
			name := fmt.Sprintf("%dk/bare", size.Tables/1000)
			if answers {
				name = fmt.Sprintf("%dk/json", size.Tables/1000)
			}
			b.Run(name, func(b *testing.B) { benchmarkInsertFloor(b, snap, jsonSize, answers) })
		}
	}
}

// benchmarkInsertFloor times floorInsert of snap's rows into new indexes.
func benchmarkInsertFloor(b *testing.B, snap *snapshot.Snapshot, jsonSize int64, answers bool) {
	rows := floorRows(snap, answers)
	schema := floorSchema
	if !answers {
		schema = strings.Replace(schema, ", json TEXT NOT NULL", "", 1)
	}
	var cpu time.Duration
	var bytes int64
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "floor.db")
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=page_size(16384)&_pragma=journal_mode(WAL)"+
			"&_pragma=synchronous(NORMAL)&_pragma=cache_size(-16384)")
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(schema); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := storetest.CPUTime()
		if err := floorInsert(db, rows); err != nil {
			b.Fatal(err)
		}
		cpu += storetest.CPUTime() - cpu0
		b.StopTimer()
		db.Close() // checkpoints the log into the file
		info, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		bytes = info.Size()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(bytes)/1e6, "index-MB")
	b.ReportMetric(float64(bytes)/float64(jsonSize), "x-json")
}

// documentSize is the bytes of size's snapshot document as
// storetest.WriteRelease writes it (the file an import reads).
func documentSize(b *testing.B, size storetest.Size) int64 {
	var n countingWriter
	if err := storetest.WriteRelease(&n, size); err != nil {
		b.Fatal(err)
	}
	return int64(n)
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

const floorSchema = `
CREATE TABLE tables (id INTEGER PRIMARY KEY, connection TEXT NOT NULL, name TEXT NOT NULL,
    comment TEXT, position INTEGER NOT NULL);
CREATE TABLE columns (table_id INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
    type TEXT NOT NULL, nullable INTEGER NOT NULL, comment TEXT, default_value TEXT,
    enum_values TEXT, pk_position INTEGER, json TEXT NOT NULL,
    PRIMARY KEY (table_id, position)) WITHOUT ROWID;
CREATE TABLE foreign_keys (table_id INTEGER NOT NULL, position INTEGER NOT NULL,
    ref_connection TEXT NOT NULL, ref_table TEXT NOT NULL, columns TEXT NOT NULL,
    ref_columns TEXT NOT NULL, PRIMARY KEY (table_id, position)) WITHOUT ROWID;`

// floorRowsOf are the values of every row, flattened per statement
// column: tables 5 a row, columns 9 (10 with the JSON), foreign keys 6.
type floorRowsOf struct {
	tables, columns, keys []any
	columnWidth           int
}

func floorRows(snap *snapshot.Snapshot, answers bool) floorRowsOf {
	r := floorRowsOf{columnWidth: 9}
	if answers {
		r.columnWidth = 10
	}
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	for ti, t := range snap.Tables {
		id := int64(ti + 1)
		r.tables = append(r.tables, id, t.Connection, t.Name, null(t.Comment), int64(ti))
		for ci, c := range t.Columns {
			var pk any
			for k, name := range t.PrimaryKey {
				if name == c.Name {
					pk = int64(k + 1)
				}
			}
			var enum any
			if len(c.Enum) > 0 {
				e, _ := json.Marshal(c.Enum)
				enum = string(e)
			}
			js, _ := json.Marshal(answer.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable,
				Comment: c.Comment, Default: c.Default, Enum: c.Enum})
			nullable := int64(0)
			if c.Nullable {
				nullable = 1
			}
			r.columns = append(r.columns, id, int64(ci), c.Name, c.Type, nullable,
				null(c.Comment), null(c.Default), enum, pk)
			if answers {
				r.columns = append(r.columns, string(js))
			}
		}
		for ki, k := range t.ForeignKeys {
			cols, _ := json.Marshal(k.Columns)
			refs, _ := json.Marshal(k.RefColumns)
			r.keys = append(r.keys, id, int64(ki), k.RefConnection, k.RefTable, string(cols), string(refs))
		}
	}
	return r
}

func floorInsert(db *sql.DB, r floorRowsOf) error {
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range []struct {
		name   string
		width  int
		values []any
	}{{"tables", 5, r.tables}, {"columns", r.columnWidth, r.columns}, {"foreign_keys", 6, r.keys}} {
		if err := floorTable(ctx, tx, t.name, t.width, t.values); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// floorTable inserts values into table name, 64 rows a statement.
func floorTable(ctx context.Context, tx *sql.Tx, name string, width int, values []any) error {
	const perStatement = 64
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", width), ",") + ")"
	full, err := tx.PrepareContext(ctx, "INSERT INTO "+name+" VALUES "+
		strings.TrimSuffix(strings.Repeat(row+",", perStatement), ","))
	if err != nil {
		return err
	}
	defer full.Close()
	for len(values) >= perStatement*width {
		if _, err := full.ExecContext(ctx, values[:perStatement*width]...); err != nil {
			return err
		}
		values = values[perStatement*width:]
	}
	if len(values) > 0 {
		n := len(values) / width
		_, err := tx.ExecContext(ctx, "INSERT INTO "+name+" VALUES "+
			strings.TrimSuffix(strings.Repeat(row+",", n), ","), values...)
		return err
	}
	return nil
}
