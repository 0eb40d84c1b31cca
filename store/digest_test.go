package store

import (
	"testing"
)

// A digest changes with every attribute schema_diff compares, and with
// nothing it does not: positions of columns, keys, indexes and params.
func TestDigests(t *testing.T) {
	base := func() *Table {
		tb := sampleTable(t, "main", "posts")
		tb.ForeignKeys = append(tb.ForeignKeys, ForeignKey{Columns: []string{"id"}, RefTable: "x", RefColumns: []string{"id"}})
		return tb
	}
	want := tableDigest(base())
	same := map[string]func(*Table){
		"columns reordered":              func(tb *Table) { tb.Columns[0], tb.Columns[1] = tb.Columns[1], tb.Columns[0] },
		"keys reordered":                 func(tb *Table) { tb.ForeignKeys[0], tb.ForeignKeys[1] = tb.ForeignKeys[1], tb.ForeignKeys[0] },
		"default connection spelled out": func(tb *Table) { tb.ForeignKeys[0].RefConnection = tb.Connection },
	}
	for name, f := range same {
		tb := base()
		f(tb)
		if tableDigest(tb) != want {
			t.Errorf("%s: digest changed", name)
		}
	}
	changed := map[string]func(*Table){
		"comment":        func(tb *Table) { tb.Comment += "!" },
		"column type":    func(tb *Table) { tb.Columns[0].Type = "uuid" },
		"nullable":       func(tb *Table) { tb.Columns[0].Nullable = !tb.Columns[0].Nullable },
		"column comment": func(tb *Table) { tb.Columns[0].Comment = "x" },
		"default":        func(tb *Table) { tb.Columns[0].Default = "'x'" },
		"enum":           func(tb *Table) { tb.Columns[0].Enum = []string{"a"} },
		"column added":   func(tb *Table) { tb.Columns = append(tb.Columns, Column{Name: "z", Type: "int"}) },
		"column renamed": func(tb *Table) { tb.Columns[0].Name = "ident" },
		"primary key":    func(tb *Table) { tb.PrimaryKey = append(tb.PrimaryKey, tb.Columns[1].Name) },
		"on delete":      func(tb *Table) { tb.ForeignKeys[0].OnDelete = "restrict" },
		"key target":     func(tb *Table) { tb.ForeignKeys[0].RefConnection = "other" },
		"index unique":   func(tb *Table) { tb.Indexes[0].Unique = !tb.Indexes[0].Unique },
	}
	for name, f := range changed {
		tb := base()
		f(tb)
		if tableDigest(tb) == want {
			t.Errorf("%s: digest unchanged", name)
		}
	}

	logic := func() *Logic {
		return &Logic{Name: "l", Description: "d", SQL: "SELECT 1", Params: []Param{{Name: "a", Type: "string"}, {Name: "b", Required: true}},
			Auth: Auth{Required: true, Roles: []string{"x", "y"}}}
	}
	lwant := logicDigest(logic())
	l := logic()
	l.Params[0], l.Params[1] = l.Params[1], l.Params[0]
	l.Auth.Roles = []string{"y", "x"}
	if logicDigest(l) != lwant {
		t.Error("params or roles reordered: digest changed")
	}
	for name, f := range map[string]func(*Logic){
		"description": func(l *Logic) { l.Description = "" },
		"sql":         func(l *Logic) { l.SQL += " " },
		"param type":  func(l *Logic) { l.Params[0].Type = "int" },
		"required":    func(l *Logic) { l.Params[0].Required = true },
		"param added": func(l *Logic) { l.Params = append(l.Params, Param{Name: "c"}) },
		"auth":        func(l *Logic) { l.Auth.Required = false },
		"roles":       func(l *Logic) { l.Auth.Roles = l.Auth.Roles[:1] },
	} {
		l := logic()
		f(l)
		if logicDigest(l) == lwant {
			t.Errorf("%s: digest unchanged", name)
		}
	}
}
