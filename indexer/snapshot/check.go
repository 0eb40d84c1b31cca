package snapshot

import (
	"fmt"
)

// The rules of the format that span the fields of a table or a logic,
// checked once the part is read. The rules that span parts are in
// releaseState.

// checkTable checks tables[i], which is the value being read, and records
// it for the checks of foreign keys that point at it.
func (d *decoder) checkTable(i int, t *Table) {
	key := d.rel.tableKey(t.Connection, t.Name)
	_, dup := d.rel.tables[key]
	switch {
	case t.Name == "":
		d.add("name", "empty")
	case dup:
		d.add("name", "duplicate %s in connection %s", quote(t.Name), quote(t.Connection))
	}
	cols := d.cols
	clear(cols)
	for j, c := range t.Columns {
		_, seen := cols[c.Name]
		switch {
		case c.Name == "":
			d.add(fmt.Sprintf("columns[%d].name", j), "empty")
		case seen:
			d.add(fmt.Sprintf("columns[%d].name", j), "duplicate %s", quote(c.Name))
		}
		cols[c.Name] = struct{}{}
	}
	if !dup {
		d.rel.addTable(key, t.Columns)
	}

	d.keyColumns(keyPath{"primaryKey", -1}, t.PrimaryKey, t.Name, false)
	for j, fk := range t.ForeignKeys {
		d.keyColumns(keyPath{"foreignKeys", j}, fk.Columns, t.Name, true)
		if fk.RefTable == "" {
			d.add(fmt.Sprintf("foreignKeys[%d].references.table", j), "empty")
		}
		if len(fk.RefColumns) != len(fk.Columns) {
			d.add(fmt.Sprintf("foreignKeys[%d].references.columns", j), "%d columns, but the foreign key has %d",
				len(fk.RefColumns), len(fk.Columns))
		}
		// A referenced table outside the release is kept as is; one inside
		// must have the referenced columns. It may come later.
		for m, c := range fk.RefColumns {
			if c == "" {
				d.add(fmt.Sprintf("foreignKeys[%d].references.columns[%d]", j, m), "empty")
			}
		}
		d.rel.checkRef(d, ref{table: i, fk: j, conn: fk.RefConnection, name: fk.RefTable, cols: fk.RefColumns})
	}
	for j, ix := range t.Indexes {
		d.keyColumns(keyPath{"indexes", j}, ix.Columns, t.Name, true)
	}
}

// keyPath names a key's column list for messages, without building the
// path unless there is a problem: primaryKey, foreignKeys[2].columns.
type keyPath struct {
	list  string
	index int // -1 for the primary key
}

func (k keyPath) String() string {
	if k.index < 0 {
		return k.list
	}
	return fmt.Sprintf("%s[%d].columns", k.list, k.index)
}

// keyColumns checks the columns of a key or an index: each is a column of
// the table being checked, none repeats; nonEmpty keys name at least one.
func (d *decoder) keyColumns(at keyPath, names []string, table string, nonEmpty bool) {
	if nonEmpty && len(names) == 0 {
		d.add(at.String(), "empty")
	}
	var seen map[string]struct{}
	if len(names) > 16 { // keys are short, but a hostile one may not be
		seen = make(map[string]struct{}, len(names))
	}
	for i, c := range names {
		_, ok := d.cols[c]
		switch {
		case !ok:
			d.add(fmt.Sprintf("%s[%d]", at, i), "column %s is not in table %s", quote(c), quote(table))
		case repeats(names, i, seen):
			d.add(fmt.Sprintf("%s[%d]", at, i), "duplicate %s", quote(c))
		}
		if seen != nil {
			seen[c] = struct{}{}
		}
	}
}

// repeats reports whether names[i] is among names[:i], which seen holds
// when it is not nil.
func repeats(names []string, i int, seen map[string]struct{}) bool {
	if seen != nil {
		_, ok := seen[names[i]]
		return ok
	}
	for _, n := range names[:i] {
		if n == names[i] {
			return true
		}
	}
	return false
}

// checkLogic checks the logic being read.
func (d *decoder) checkLogic(l *Logic) {
	if why := LogicNameProblem(l.Name); why != "" {
		d.add("name", "%s", why)
		d.rel.addLogic(l.Name)
	} else if !d.rel.addLogic(l.Name) {
		d.add("name", "duplicate %s", quote(l.Name))
	}
	var seen map[string]struct{}
	if len(l.Params) > 16 {
		seen = make(map[string]struct{}, len(l.Params))
	}
	for j, p := range l.Params {
		switch {
		case p.Name == "":
			d.add(fmt.Sprintf("params[%d].name", j), "empty")
		case paramRepeats(l.Params, j, seen):
			d.add(fmt.Sprintf("params[%d].name", j), "duplicate %s", quote(p.Name))
		}
		if seen != nil {
			seen[p.Name] = struct{}{}
		}
	}
}

// paramRepeats reports whether params[j]'s name is among those before it,
// which seen holds when it is not nil.
func paramRepeats(params []Param, j int, seen map[string]struct{}) bool {
	if seen != nil {
		_, ok := seen[params[j].Name]
		return ok
	}
	for _, p := range params[:j] {
		if p.Name == params[j].Name {
			return true
		}
	}
	return false
}
