package storetest

import (
	"bytes"
	"encoding/json"
	"strings"
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

// WriteRelease writes the document of Release, tiers of names included.
func TestWriteReleaseIsRelease(t *testing.T) {
	size := Size{Tables: 10_050, Logics: 30}
	var buf bytes.Buffer
	if err := WriteRelease(&buf, size); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Name        string `json:"name"`
			ForeignKeys []struct {
				References struct {
					Table string `json:"table"`
				} `json:"references"`
			} `json:"foreignKeys"`
		} `json:"tables"`
		Logics []struct {
			Name string `json:"name"`
		} `json:"logics"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	snap := Release(size)
	if len(doc.Tables) != len(snap.Tables) || len(doc.Logics) != len(snap.Logics) {
		t.Fatalf("%d tables, %d logics; want %d and %d", len(doc.Tables), len(doc.Logics), len(snap.Tables), len(snap.Logics))
	}
	names := map[string]bool{}
	for i, tb := range doc.Tables {
		if tb.Name != snap.Tables[i].Name || names[tb.Name] {
			t.Fatalf("table %d: %s, want %s once", i, tb.Name, snap.Tables[i].Name)
		}
		names[tb.Name] = true
	}
	// Keys of the second tier point into the second tier.
	last := doc.Tables[len(doc.Tables)-1]
	if !strings.HasPrefix(last.Name, "t1_") || len(last.ForeignKeys) == 0 || !strings.HasPrefix(last.ForeignKeys[0].References.Table, "t1_") {
		t.Errorf("last table %+v, want a t1_ table pointing at t1_ tables", last)
	}
	for i, l := range doc.Logics {
		if l.Name != snap.Logics[i].Name {
			t.Fatalf("logic %d: %s, want %s", i, l.Name, snap.Logics[i].Name)
		}
	}
}
