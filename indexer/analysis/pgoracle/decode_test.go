package pgoracle

import (
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Every release of the corpus, base and mutated, is a snapshot hubsnap
// imports as it is: its strict decoder accepts it and keeps every table,
// column and logic with its SQL.
func TestCorpusDecodes(t *testing.T) {
	t.Parallel()
	for _, s := range corpus(t) {
		docs := map[string]*Snapshot{"base": s.Snapshot}
		for _, m := range s.Mutations {
			mu, err := m.Apply(s.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			docs[m.Name] = mu.Snapshot
		}
		for name, snap := range docs {
			got, err := snapshot.Decode(snap.Encode())
			if err != nil {
				t.Errorf("%s/%s: hubsnap rejects it: %v", s.Name, name, err)
				continue
			}
			if len(got.Tables) != len(snap.Tables) || len(got.Logics) != len(snap.Logics) {
				t.Errorf("%s/%s: hubsnap keeps %d tables and %d logics, want %d and %d",
					s.Name, name, len(got.Tables), len(got.Logics), len(snap.Tables), len(snap.Logics))
				continue
			}
			for i, l := range got.Logics {
				if l.SQL != snap.Logics[i].SQL || len(l.Params) != len(snap.Logics[i].Params) {
					t.Errorf("%s/%s: logic %s changed in decoding", s.Name, name, l.Name)
				}
			}
			for i, tb := range got.Tables {
				if len(tb.Columns) != len(snap.Tables[i].Columns) {
					t.Errorf("%s/%s: table %s has %d columns after decoding, want %d", s.Name, name, tb.Name, len(tb.Columns), len(snap.Tables[i].Columns))
				}
			}
		}
	}
}

// The corpus is as large as issue 25 asks: at least 200 logics over the
// three schemas, each with argument sets, and mutations of every kind.
func TestCorpusSize(t *testing.T) {
	t.Parallel()
	logics, ops := 0, map[string]int{}
	for _, s := range corpus(t) {
		logics += len(s.Snapshot.Logics)
		for _, l := range s.Snapshot.Logics {
			if len(s.Args[l.Name]) == 0 {
				t.Errorf("%s: logic %s has no argument set", s.Name, l.Name)
			}
		}
		for _, m := range s.Mutations {
			ops[m.Op]++
		}
	}
	if logics < 200 {
		t.Errorf("corpus has %d logics, want at least 200", logics)
	}
	for _, op := range []string{"drop_column", "drop_table", "rename_column", "rename_table", "change_type", "add_column", "misspell", "add_param", "remove_param"} {
		if ops[op] < 3 {
			t.Errorf("corpus has %d %s mutations, want at least one per schema", ops[op], op)
		}
	}
}
