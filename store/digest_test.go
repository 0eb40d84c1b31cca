package store

import (
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// A digest changes with every attribute schema_diff compares, and with
// nothing it does not: positions of columns, keys, indexes and params.
func TestDigests(t *testing.T) {
	base := func() *snapshot.Table {
		tb := sampleTable(t, "main", "posts")
		tb.ForeignKeys = append(tb.ForeignKeys, snapshot.ForeignKey{Columns: []string{"id"}, RefTable: "x", RefColumns: []string{"id"}})
		return tb
	}
	want := tableDigest(base())
	same := map[string]func(*snapshot.Table){
		"columns reordered":              func(tb *snapshot.Table) { tb.Columns[0], tb.Columns[1] = tb.Columns[1], tb.Columns[0] },
		"keys reordered":                 func(tb *snapshot.Table) { tb.ForeignKeys[0], tb.ForeignKeys[1] = tb.ForeignKeys[1], tb.ForeignKeys[0] },
		"default connection spelled out": func(tb *snapshot.Table) { tb.ForeignKeys[0].RefConnection = tb.Connection },
	}
	for name, f := range same {
		tb := base()
		f(tb)
		if tableDigest(tb) != want {
			t.Errorf("%s: digest changed", name)
		}
	}
	changed := map[string]func(*snapshot.Table){
		"comment":        func(tb *snapshot.Table) { tb.Comment += "!" },
		"column type":    func(tb *snapshot.Table) { tb.Columns[0].Type = "uuid" },
		"nullable":       func(tb *snapshot.Table) { tb.Columns[0].Nullable = !tb.Columns[0].Nullable },
		"column comment": func(tb *snapshot.Table) { tb.Columns[0].Comment = "x" },
		"default":        func(tb *snapshot.Table) { tb.Columns[0].Default = "'x'" },
		"enum":           func(tb *snapshot.Table) { tb.Columns[0].Enum = []string{"a"} },
		"column added":   func(tb *snapshot.Table) { tb.Columns = append(tb.Columns, snapshot.Column{Name: "z", Type: "int"}) },
		"column renamed": func(tb *snapshot.Table) { tb.Columns[0].Name = "ident" },
		"primary key":    func(tb *snapshot.Table) { tb.PrimaryKey = append(tb.PrimaryKey, tb.Columns[1].Name) },
		"on delete":      func(tb *snapshot.Table) { tb.ForeignKeys[0].OnDelete = "restrict" },
		"key target":     func(tb *snapshot.Table) { tb.ForeignKeys[0].RefConnection = "other" },
		"index unique":   func(tb *snapshot.Table) { tb.Indexes[0].Unique = !tb.Indexes[0].Unique },
	}
	for name, f := range changed {
		tb := base()
		f(tb)
		if tableDigest(tb) == want {
			t.Errorf("%s: digest unchanged", name)
		}
	}

	logic := func() *snapshot.Logic {
		return &snapshot.Logic{Name: "l", Description: "d", SQL: "SELECT 1", Params: []snapshot.Param{{Name: "a", Type: "string"}, {Name: "b", Required: true}},
			Auth: snapshot.Auth{Required: true, Roles: []string{"x", "y"}}}
	}
	lwant := logicDigest(logic())
	l := logic()
	l.Params[0], l.Params[1] = l.Params[1], l.Params[0]
	l.Auth.Roles = []string{"y", "x"}
	if logicDigest(l) != lwant {
		t.Error("params or roles reordered: digest changed")
	}
	for name, f := range map[string]func(*snapshot.Logic){
		"description": func(l *snapshot.Logic) { l.Description = "" },
		"sql":         func(l *snapshot.Logic) { l.SQL += " " },
		"param type":  func(l *snapshot.Logic) { l.Params[0].Type = "int" },
		"required":    func(l *snapshot.Logic) { l.Params[0].Required = true },
		"param added": func(l *snapshot.Logic) { l.Params = append(l.Params, snapshot.Param{Name: "c"}) },
		"auth":        func(l *snapshot.Logic) { l.Auth.Required = false },
		"roles":       func(l *snapshot.Logic) { l.Auth.Roles = l.Auth.Roles[:1] },
	} {
		l := logic()
		f(l)
		if logicDigest(l) == lwant {
			t.Errorf("%s: digest unchanged", name)
		}
	}
}
