package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// bigDoc builds a synthetic release of the size the project plans for:
// 10,000 tables of 20 columns, 10,000 foreign keys and 5,000 logics.
func bigDoc(tb testing.TB) []byte {
	tb.Helper()
	const tables, columns, logics = 10_000, 20, 5_000
	doc := document{
		FormatVersion: FormatVersion,
		Release:       docRelease{ID: "rel_big", Project: "big", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Connections:   []docConnection{{Name: "main", Engine: "postgres"}},
	}
	yes, no := true, false
	for i := range tables {
		t := docTable{Name: fmt.Sprintf("table_%05d", i), Comment: fmt.Sprintf("Synthetic table number %d", i),
			PrimaryKey: []string{"id"}}
		for j := range columns {
			c := docColumn{Name: fmt.Sprintf("column_%02d", j), Type: "string", Nullable: &no}
			if j > 0 {
				c.Nullable, c.Comment = &yes, fmt.Sprintf("column %d of table %d", j, i)
			}
			if j == 0 {
				c.Name = "id"
			}
			t.Columns = append(t.Columns, c)
		}
		t.ForeignKeys = []docForeignKey{{Name: fmt.Sprintf("fk_%05d", i), Columns: []string{"column_01"},
			References: docReferences{Table: fmt.Sprintf("table_%05d", (i+1)%tables), Columns: []string{"id"}}}}
		doc.Tables = append(doc.Tables, t)
	}
	for i := range logics {
		doc.Logics = append(doc.Logics, docLogic{Name: fmt.Sprintf("area_%02d/logic_%04d", i%50, i),
			Description: "Synthetic logic", SQL: fmt.Sprintf("SELECT * FROM table_%05d WHERE id = :id", i),
			Params: []docParam{{Name: "id", Type: "string", Required: true}},
			Auth:   &docAuth{Required: true, Roles: []string{"authenticated"}}})
	}
	data, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkDecode measures decoding, validating and sanitizing the big
// release.
func BenchmarkDecode(b *testing.B) {
	data := bigDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport measures the whole offline path for the big release:
// decode, write the release file atomically, index it, make it current.
func BenchmarkImport(b *testing.B) {
	data := bigDoc(b)
	file := filepath.Join(b.TempDir(), "big.json")
	writeFile(b, file, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReconcileUnchanged measures opening a cache holding the big
// release when nothing changed: what every command pays at start.
func BenchmarkReconcileUnchanged(b *testing.B) {
	data := bigDoc(b)
	file := filepath.Join(b.TempDir(), "big.json")
	writeFile(b, file, data)
	dir := b.TempDir()
	if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, err := Open(context.Background(), dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkRebuild measures rebuilding the index of the big release from its
// release file.
func BenchmarkRebuild(b *testing.B) {
	data := bigDoc(b)
	file := filepath.Join(b.TempDir(), "big.json")
	writeFile(b, file, data)
	dir := b.TempDir()
	if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		removeIndex(b, dir)
		b.StartTimer()
		c, err := Open(context.Background(), dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

func removeIndex(tb testing.TB, dir string) {
	tb.Helper()
	for _, s := range []string{"", "-wal", "-shm"} {
		_ = removeFile(filepath.Join(dir, "index.db"+s))
	}
}
