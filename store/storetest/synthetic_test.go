package storetest

import (
	"testing"
)

func TestReleaseStats(t *testing.T) {
	snap := Release(Large)
	cols, fks, comments := 0, 0, 0
	names := map[string]bool{}
	for _, tb := range snap.Tables {
		if names[tb.Connection+"."+tb.Name] {
			t.Fatalf("duplicate %s", tb.Name)
		}
		names[tb.Connection+"."+tb.Name] = true
		cols += len(tb.Columns)
		fks += len(tb.ForeignKeys)
		for _, c := range tb.Columns {
			if c.Comment != "" {
				comments++
			}
		}
	}
	t.Logf("%d tables, %d columns, %d fks, %d comments, %d logics", len(snap.Tables), cols, fks, comments, len(snap.Logics))
}
