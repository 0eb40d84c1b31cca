package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMemTablesAsTxTables: the tables memTables keeps as a release is
// written are what txTables reads back from its rows: by name (in every
// connection, by connection), by a 63-byte prefix, and the enum types.
func TestMemTablesAsTxTables(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	long := strings.Repeat("x", 63)
	snap := &Snapshot{
		Release:     Release{ID: "rel_1", Project: "p", Environment: "dev"},
		Connections: []Connection{{Name: "main", Engine: "postgres"}, {Name: "other", Engine: "mysql"}},
		Tables: []Table{
			{Name: "users", Connection: "other", Columns: []Column{{Name: "id", Type: "int"}}, PrimaryKey: []string{"id"}},
			{Name: "users", Connection: "main", Columns: []Column{
				{Name: "id", Type: "uuid", Default: "gen_random_uuid()"},
				{Name: "state", Type: "user_state", Nullable: true, Enum: []string{"a", "b"}},
				{Name: "org", Type: "uuid"}}, PrimaryKey: []string{"org", "id"}},
			{Name: long + "_one", Connection: "main", Columns: []Column{{Name: "a", Type: "text"}}},
			{Name: long + "_two", Connection: "main", Columns: []Column{{Name: "b", Type: "mood", Enum: []string{"x"}}}},
			{Name: long, Connection: "main", Columns: []Column{{Name: "c", Type: "text"}}},
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
