package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TestMemTablesAsTxTables: the tables memTables keeps as a release is
// written are what txTables reads back from its rows: by name (in every
// connection, by connection), by a 63-byte prefix, and the enum types.
func TestMemTablesAsTxTables(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	long := strings.Repeat("x", 63)
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_1", Project: "p", Environment: "dev"},
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}, {Name: "other", Engine: "mysql"}},
		Tables: []snapshot.Table{
			{Name: "users", Connection: "other", Columns: []snapshot.Column{{Name: "id", Type: "int"}}, PrimaryKey: []string{"id"}},
			{Name: "users", Connection: "main", Columns: []snapshot.Column{
				{Name: "id", Type: "uuid", Default: "gen_random_uuid()"},
				{Name: "state", Type: "user_state", Nullable: true, Enum: []string{"a", "b"}},
				{Name: "org", Type: "uuid"}}, PrimaryKey: []string{"org", "id"}},
			{Name: long + "_one", Connection: "main", Columns: []snapshot.Column{{Name: "a", Type: "text"}}},
			{Name: long + "_two", Connection: "main", Columns: []snapshot.Column{{Name: "b", Type: "mood", Enum: []string{"x"}}}},
			{Name: long, Connection: "main", Columns: []snapshot.Column{{Name: "c", Type: "text"}}},
		},
	}
	mem := newMemTables()
	for i := range snap.Tables {
		mem.add(&snap.Tables[i])
	}
	if err := s.PutRelease(ctx, snap, FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	src, err := newTxTables(ctx, tx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	for _, q := range []struct {
		name   string
		prefix bool
	}{{"users", false}, {"nobody", false}, {long, true}, {long, false}, {"user", true}} {
		want, err := src.Tables(q.name, q.prefix)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := mem.Tables(q.name, q.prefix)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Tables(%q, %v) (-rows +memory):\n%s", q.name, q.prefix, diff)
		}
	}
	want, _ := src.EnumTypes()
	slices.Sort(want)
	got, _ := mem.EnumTypes()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EnumTypes (-rows +memory):\n%s", diff)
	}
}

// TestMemTablesBound: what memTables keeps is bounded by the larger of
// memTablesBytes and a third of the document read so far.
func TestMemTablesBound(t *testing.T) {
	cols := make([]snapshot.Column, 50)
	for i := range cols {
		cols[i] = snapshot.Column{Name: fmt.Sprintf("column_%02d", i), Type: "text"}
	}
	fill := func(read int64, upTo int) *memTables {
		m := newMemTables()
		for i := 0; m.bytes < upTo && !m.full; i++ {
			m.read = read
			m.add(&snapshot.Table{Name: fmt.Sprintf("t%07d", i), Connection: "main", Columns: cols})
		}
		return m
	}
	if m := fill(0, 2*memTablesBytes); !m.full {
		t.Errorf("nothing read: %d bytes kept, want full past %d", m.bytes, memTablesBytes)
	}
	if m := fill(0, memTablesBytes/2); m.full {
		t.Errorf("nothing read: full at %d bytes, under %d", m.bytes, memTablesBytes)
	}
	read := int64(6 * memTablesBytes) // a document of 144 MiB: up to 48 MiB kept
	if m := fill(read, 3*memTablesBytes/2); m.full {
		t.Errorf("%d bytes read: full at %d bytes, under a third of them", read, m.bytes)
	}
	if m := fill(read, 3*memTablesBytes); !m.full {
		t.Errorf("%d bytes read: %d bytes kept, want full past a third of them", read, m.bytes)
	}
}

// A document whose connections, given before its tables, include no
// postgres one keeps no tables in memory: none of its logics is analysed.
// One with a postgres connection keeps them.
func TestMemTablesOnlyForPostgres(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		engines []string
		want    bool
	}{
		{"postgres", []string{"postgres"}, true},
		{"mysql and postgres", []string{"mysql", "postgres"}, true},
		{"mysql", []string{"mysql"}, false},
		{"mysql and clickhouse", []string{"mysql", "clickhouse"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := smallSnapshot("shop", "rel_42", "dev", 42, "t", 5)
			snap.Connections = nil
			for i, e := range c.engines {
				snap.Connections = append(snap.Connections, snapshot.Connection{Name: fmt.Sprintf("c%d", i), Engine: e})
			}
			for i := range snap.Tables {
				snap.Tables[i].Connection = "c0"
			}
			tx, err := openStore(t).BeginRelease(ctx, testAnalyzer(t))
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if err := tx.Index(decoderOf(t, snap)); err != nil {
				t.Fatal(err)
			}
			if got := tx.w.mem != nil && len(tx.w.mem.byName) > 0; got != c.want {
				t.Errorf("tables kept in memory: %v, want %v", got, c.want)
			}
		})
	}
}
