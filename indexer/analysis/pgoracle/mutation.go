package pgoracle

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// Mutation is one change to a schema's base release, as mutations.json
// states it. Op is one of
//
//	drop_column    table, column
//	drop_table     table
//	rename_column  table, column, to
//	rename_table   table, to
//	change_type    table, column, type (and enum when the new type is
//	               one; default to replace the default, "" to drop it;
//	               fill when a seeded value does not cast to the type)
//	add_column     table, add (a column), fill (SQL giving the seeded rows
//	               a value, when the column is NOT NULL without default)
//	misspell       logic, word, to: the first whole-word word of the
//	               logic's SQL becomes to
//	add_param      logic, param: a declared param the SQL does not use
//	remove_param   logic, param (its name): a param the SQL uses
//
// A schema change takes along what PostgreSQL's DROP ... CASCADE or
// RENAME would: keys and indexes over a dropped column, foreign keys to a
// dropped table, renamed names in keys.
type Mutation struct {
	Name   string   `json:"name"`
	Op     string   `json:"op"`
	Note   string   `json:"note,omitempty"`
	Table  string   `json:"table,omitempty"`
	Column string   `json:"column,omitempty"`
	To     string   `json:"to,omitempty"`
	Type   string   `json:"type,omitempty"`
	Enum   []string `json:"enum,omitempty"`
	// Default, on change_type, replaces the column's default.
	Default *string `json:"default,omitempty"`
	Add     *Column `json:"add,omitempty"`
	Fill    string  `json:"fill,omitempty"`
	Logic   string  `json:"logic,omitempty"`
	Word    string  `json:"word,omitempty"`
	Param   *Param  `json:"param,omitempty"`
}

// Mutated is a mutated release and where its rows come from.
type Mutated struct {
	Snapshot *Snapshot
	// tableFrom maps a table to the base table its rows are copied from.
	tableFrom map[string]string
	// columnFrom maps table -> column -> the base column it is copied
	// from; a column missing here is new.
	columnFrom map[string]map[string]string
	// fill maps table -> column -> the SQL (over the base table's row)
	// that gives the seeded rows a value in the column.
	fill map[string]map[string]string
}

// Apply returns the base release with the mutation's one change.
func (m *Mutation) Apply(base *Snapshot) (*Mutated, error) {
	s := base.Clone()
	s.Release.ID += "-" + m.Name
	s.Release.Version++
	out := &Mutated{Snapshot: s, tableFrom: map[string]string{}, columnFrom: map[string]map[string]string{},
		fill: map[string]map[string]string{}}
	for _, t := range s.Tables {
		out.tableFrom[t.Name] = t.Name
		cols := map[string]string{}
		for _, c := range t.Columns {
			cols[c.Name] = c.Name
		}
		out.columnFrom[t.Name] = cols
	}
	var t *Table
	if m.Table != "" {
		if t = s.Table(m.Table); t == nil {
			return nil, fmt.Errorf("no table %s", m.Table)
		}
	}
	var c *Column
	if m.Column != "" {
		if t == nil {
			return nil, fmt.Errorf("column %s without a table", m.Column)
		}
		if c = t.Column(m.Column); c == nil {
			return nil, fmt.Errorf("no column %s.%s", m.Table, m.Column)
		}
	}
	var l *Logic
	if m.Logic != "" {
		if l = s.Logic(m.Logic); l == nil {
			return nil, fmt.Errorf("no logic %s", m.Logic)
		}
	}
	need := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("%s needs %s", m.Op, what)
		}
		return nil
	}
	var err error
	switch m.Op {
	case "drop_column":
		if err = need(c != nil, "table and column"); err == nil {
			dropColumn(s, t, m.Column)
			delete(out.columnFrom[t.Name], m.Column)
		}
	case "drop_table":
		if err = need(t != nil, "table"); err == nil {
			name := t.Name
			s.Tables = slices.DeleteFunc(s.Tables, func(x Table) bool { return x.Name == name })
			for i := range s.Tables {
				s.Tables[i].ForeignKeys = slices.DeleteFunc(s.Tables[i].ForeignKeys, func(fk ForeignKey) bool { return fk.References.Table == name })
			}
			delete(out.tableFrom, name)
		}
	case "rename_column":
		if err = need(c != nil && m.To != "", "table, column and to"); err == nil {
			renameColumn(s, t, m.Column, m.To)
			out.columnFrom[t.Name][m.To] = m.Column
			delete(out.columnFrom[t.Name], m.Column)
		}
	case "rename_table":
		if err = need(t != nil && m.To != "", "table and to"); err == nil {
			old := t.Name
			t.Name = m.To
			for i := range s.Tables {
				for j := range s.Tables[i].ForeignKeys {
					if s.Tables[i].ForeignKeys[j].References.Table == old {
						s.Tables[i].ForeignKeys[j].References.Table = m.To
					}
				}
			}
			out.tableFrom[m.To] = old
			out.columnFrom[m.To] = out.columnFrom[old]
			delete(out.tableFrom, old)
			delete(out.columnFrom, old)
		}
	case "change_type":
		if err = need(c != nil && m.Type != "", "table, column and type"); err == nil {
			c.Type, c.Enum = m.Type, m.Enum
			if m.Default != nil {
				c.Default = nil
				if *m.Default != "" {
					c.Default, _ = json.Marshal(*m.Default)
				}
			}
			if m.Fill != "" {
				out.fill[t.Name] = map[string]string{c.Name: m.Fill}
			}
		}
	case "add_column":
		if err = need(t != nil && m.Add != nil, "table and add"); err == nil {
			if t.Column(m.Add.Name) != nil {
				return nil, fmt.Errorf("column %s.%s exists", t.Name, m.Add.Name)
			}
			t.Columns = append(t.Columns, *m.Add)
			if m.Fill != "" {
				out.fill[t.Name] = map[string]string{m.Add.Name: m.Fill}
			}
		}
	case "misspell":
		if err = need(l != nil && m.Word != "" && m.To != "", "logic, word and to"); err == nil {
			re := regexp.MustCompile(`\b` + regexp.QuoteMeta(m.Word) + `\b`)
			loc := re.FindStringIndex(l.SQL)
			if loc == nil {
				return nil, fmt.Errorf("logic %s has no word %s", l.Name, m.Word)
			}
			l.SQL = l.SQL[:loc[0]] + m.To + l.SQL[loc[1]:]
		}
	case "add_param":
		if err = need(l != nil && m.Param != nil, "logic and param"); err == nil {
			if slices.ContainsFunc(l.Params, func(p Param) bool { return p.Name == m.Param.Name }) {
				return nil, fmt.Errorf("logic %s has a param %s", l.Name, m.Param.Name)
			}
			l.Params = append(l.Params, *m.Param)
		}
	case "remove_param":
		if err = need(l != nil && m.Param != nil, "logic and param"); err == nil {
			n := len(l.Params)
			l.Params = slices.DeleteFunc(l.Params, func(p Param) bool { return p.Name == m.Param.Name })
			if len(l.Params) == n {
				return nil, fmt.Errorf("logic %s has no param %s", l.Name, m.Param.Name)
			}
		}
	default:
		err = fmt.Errorf("unknown op %q", m.Op)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dropColumn removes a column with the keys and indexes over it, and the
// foreign keys that reference it, as DROP COLUMN ... CASCADE does.
func dropColumn(s *Snapshot, t *Table, col string) {
	t.Columns = slices.DeleteFunc(t.Columns, func(c Column) bool { return c.Name == col })
	if slices.Contains(t.PrimaryKey, col) {
		t.PrimaryKey = nil
	}
	t.Indexes = slices.DeleteFunc(t.Indexes, func(ix Index) bool { return slices.Contains(ix.Columns, col) })
	t.ForeignKeys = slices.DeleteFunc(t.ForeignKeys, func(fk ForeignKey) bool { return slices.Contains(fk.Columns, col) })
	for i := range s.Tables {
		s.Tables[i].ForeignKeys = slices.DeleteFunc(s.Tables[i].ForeignKeys, func(fk ForeignKey) bool {
			return fk.References.Table == t.Name && slices.Contains(fk.References.Columns, col)
		})
	}
}

// renameColumn renames a column everywhere the release names it.
func renameColumn(s *Snapshot, t *Table, from, to string) {
	rename := func(names []string) {
		for i, n := range names {
			if n == from {
				names[i] = to
			}
		}
	}
	t.Column(from).Name = to
	rename(t.PrimaryKey)
	for i := range t.Indexes {
		rename(t.Indexes[i].Columns)
	}
	for i := range t.ForeignKeys {
		rename(t.ForeignKeys[i].Columns)
	}
	for i := range s.Tables {
		for j := range s.Tables[i].ForeignKeys {
			if fk := &s.Tables[i].ForeignKeys[j]; fk.References.Table == t.Name {
				rename(fk.References.Columns)
			}
		}
	}
}
