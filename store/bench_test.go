package store

import (
	"context"
	"fmt"
	"testing"
)

// The size of the synthetic release of the benchmarks: 10,000 tables of 20
// columns, one foreign key per table (10,000) and 5,000 logics.
const (
	benchTables  = 10_000
	benchColumns = 20
	benchLogics  = 5_000
)

// bigSnapshot builds the synthetic release. Every table has a key, a
// foreign key to another table, an index and some commented, defaulted and
// enumerated columns; every logic has three params and auth.
func bigSnapshot() *Snapshot {
	snap := &Snapshot{
		Release:     Release{ID: "rel_big", Project: "shop", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      Origin{Source: SourceHub, Digest: "sha256:" + fmt.Sprintf("%064d", 0), SyncedAt: "2026-11-01T10:00:01Z"},
		Connections: []Connection{{Name: "main", Engine: "postgres"}},
		Tables:      make([]Table, benchTables),
		Logics:      make([]Logic, benchLogics),
	}
	for i := range snap.Tables {
		t := &snap.Tables[i]
		t.Name = fmt.Sprintf("table_%05d", i)
		t.Connection = "main"
		t.Comment = fmt.Sprintf("Synthetic table number %d", i)
		t.Columns = make([]Column, benchColumns)
		for j := range t.Columns {
			c := &t.Columns[j]
			c.Name = fmt.Sprintf("column_%02d", j)
			c.Type = []string{"string", "integer", "timestamp", "boolean"}[j%4]
			c.Nullable = j%3 == 0
			if j%5 == 0 {
				c.Comment = fmt.Sprintf("column %d of table %d", j, i)
			}
			if j%7 == 0 {
				c.Default = "0"
			}
			if j == 3 {
				c.Enum = []string{"new", "active", "closed"}
			}
		}
		t.Columns[0].Name = "id"
		t.Columns[1].Name = "ref_id"
		t.PrimaryKey = []string{"id"}
		t.ForeignKeys = []ForeignKey{{
			Name: t.Name + "_ref_fk", Columns: []string{"ref_id"}, RefConnection: "main",
			RefTable: fmt.Sprintf("table_%05d", (i*7+1)%benchTables), RefColumns: []string{"id"}, OnDelete: "cascade",
		}}
		t.Indexes = []Index{{Name: t.Name + "_ref_idx", Columns: []string{"ref_id"}}}
	}
	for i := range snap.Logics {
		snap.Logics[i] = Logic{
			Name:        fmt.Sprintf("group_%02d/logic_%05d", i%50, i),
			Description: fmt.Sprintf("Synthetic logic number %d", i),
			SQL:         fmt.Sprintf("SELECT * FROM table_%05d WHERE id = :id AND column_02 > :since LIMIT :limit", i),
			Params: []Param{
				{Name: "id", Type: "string", Required: true},
				{Name: "since", Type: "timestamp"},
				{Name: "limit", Type: "integer"},
			},
			Auth: Auth{Required: true, Roles: []string{"authenticated"}},
		}
	}
	return snap
}

func BenchmarkPutRelease(b *testing.B) {
	snap := bigSnapshot()
	s := openStore(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		// Replaces the release after the first run, as a re-sync does.
		if err := s.PutRelease(ctx, snap, FileState{}, true, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchTables*b.N)/b.Elapsed().Seconds(), "tables/s")
}

// openBig opens an index holding the synthetic release as current. With
// optimize, it runs Store.Optimize afterwards as the indexer does, which
// gives SQLite's planner statistics.
func openBig(b *testing.B, optimize bool) *Store {
	b.Helper()
	s := openStore(b)
	ctx := context.Background()
	if err := s.PutRelease(ctx, bigSnapshot(), FileState{}, true, nil); err != nil {
		b.Fatal(err)
	}
	if optimize {
		if err := s.Optimize(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkTable is one schema_get_table lookup by bare name: the table, its
// columns, keys, indexes and the keys pointing at it. "unoptimized" is the
// index right after PutRelease, before any ANALYZE statistics exist.
func BenchmarkTable(b *testing.B) {
	for _, optimize := range []bool{true, false} {
		name := "optimized"
		if !optimize {
			name = "unoptimized"
		}
		b.Run(name, func(b *testing.B) {
			s := openBig(b, optimize)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				t, err := s.Table(ctx, shopDev, "", "table_05000")
				if err != nil {
					b.Fatal(err)
				}
				if len(t.Columns) != benchColumns || len(t.ReferencedBy) == 0 {
					b.Fatalf("table_05000: %d columns, %d references", len(t.Columns), len(t.ReferencedBy))
				}
			}
		})
	}
}

// BenchmarkTables lists every table of the release (schema_list_tables).
func BenchmarkTables(b *testing.B) {
	s := openBig(b, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tables, err := s.Tables(ctx, shopDev, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(tables) != benchTables {
			b.Fatalf("%d tables, want %d", len(tables), benchTables)
		}
	}
}

// BenchmarkLogic is one logic_get lookup with its params.
func BenchmarkLogic(b *testing.B) {
	s := openBig(b, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Logic(ctx, shopDev, "group_00/logic_02500"); err != nil {
			b.Fatal(err)
		}
	}
}
