package snapshot

import (
	"github.com/go-json-experiment/json/jsontext"
)

// tables reads the "tables" array, one table at a time.
func (d *decoder) tables() error {
	return d.array("tables", true, maxTopLevel, "tables", func(i int) error {
		return d.table(i)
	})
}

// table reads tables[i] into the scratch table, checks it and hands it out.
func (d *decoder) table(i int) error {
	t := &d.t
	*t = Table{
		Columns:     t.Columns[:0],
		PrimaryKey:  t.PrimaryKey[:0],
		ForeignKeys: t.ForeignKeys[:0],
		Indexes:     t.Indexes[:0],
	}
	d.bad = false
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			t.Name, err = d.str("name", maxName, uniqueName)
		case "connection":
			t.Connection, err = d.str("connection", maxName, commonName)
		case "comment":
			t.Comment, err = d.str("comment", maxComment, freeText)
		case "columns":
			err = d.columns(t)
		case "primaryKey":
			t.PrimaryKey, err = d.names("primaryKey", t.PrimaryKey, maxColumns, "columns")
		case "foreignKeys":
			err = d.foreignKeys(t)
		case "indexes":
			err = d.indexes(t)
		default: // not in the format: dropped
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad {
		return err
	}
	if t.Connection == "" {
		t.Connection = DefaultConnection
	}
	for j := range t.ForeignKeys {
		if t.ForeignKeys[j].RefConnection == "" {
			t.ForeignKeys[j].RefConnection = t.Connection
		}
	}
	d.checkTable(i, t)
	if d.failed {
		return nil
	}
	v := &d.tv
	*v = *t
	v.Columns, v.PrimaryKey, v.ForeignKeys, v.Indexes = list(v.Columns), list(v.PrimaryKey), list(v.ForeignKeys), list(v.Indexes)
	return d.hand(Part{Kind: KindTable, Index: i, Table: v})
}

func (d *decoder) columns(t *Table) error {
	return d.array("columns", false, maxColumns, "columns", func(_ int) error {
		var c *Column
		t.Columns, c = grow(t.Columns)
		*c = Column{Nullable: true, Enum: c.Enum[:0]} // a missing nullable means nullable, as in SQL
		return d.column(c)
	})
}

func (d *decoder) column(c *Column) error {
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			c.Name, err = d.str("name", maxName, commonName)
		case "type":
			c.Type, err = d.str("type", maxName, commonName)
		case "nullable":
			var v, set bool
			if v, set, err = d.boolean("nullable"); set {
				c.Nullable = v
			}
		case "comment":
			c.Comment, err = d.str("comment", maxComment, freeText)
		case "default":
			d.push("default")
			c.Default, err = d.scalar(maxDefault, freeText)
			d.pop()
		case "enum":
			err = d.enum(c)
		default:
			err = d.skip()
		}
		return err
	})
	if len(c.Enum) == 0 {
		c.Enum = nil
	}
	return err
}

func (d *decoder) enum(c *Column) error {
	c.Enum = c.Enum[:0]
	return d.array("enum", false, maxEnum, "values", func(int) error {
		s, err := d.scalar(maxName, commonName)
		c.Enum = append(c.Enum, s)
		return err
	})
}

func (d *decoder) foreignKeys(t *Table) error {
	return d.array("foreignKeys", false, maxList, "foreign keys", func(_ int) error {
		var fk *ForeignKey
		t.ForeignKeys, fk = grow(t.ForeignKeys)
		*fk = ForeignKey{Columns: fk.Columns, RefColumns: fk.RefColumns}
		return d.foreignKey(fk)
	})
}

func (d *decoder) foreignKey(fk *ForeignKey) error {
	cols, refCols := fk.Columns, fk.RefColumns // storage to reuse
	fk.Columns, fk.RefColumns = nil, nil
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			fk.Name, err = d.str("name", maxName, uniqueName)
		case "columns":
			fk.Columns, err = d.names("columns", cols, maxList, "columns")
		case "references":
			d.push("references")
			err = d.references(fk, refCols)
			d.pop()
		case "onDelete":
			fk.OnDelete, err = d.str("onDelete", maxName, commonName)
		default:
			err = d.skip()
		}
		return err
	})
	return err
}

func (d *decoder) references(fk *ForeignKey, refCols []string) error {
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "table":
			fk.RefTable, err = d.str("table", maxName, commonName)
		case "connection":
			fk.RefConnection, err = d.str("connection", maxName, commonName)
		case "columns":
			fk.RefColumns, err = d.names("columns", refCols, maxList, "columns")
		default:
			err = d.skip()
		}
		return err
	})
	return err
}

func (d *decoder) indexes(t *Table) error {
	return d.array("indexes", false, maxList, "indexes", func(_ int) error {
		var ix *Index
		t.Indexes, ix = grow(t.Indexes)
		cols := ix.Columns
		*ix = Index{}
		return d.index(ix, cols)
	})
}

func (d *decoder) index(ix *Index, cols []string) error {
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			ix.Name, err = d.str("name", maxName, uniqueName)
		case "columns":
			ix.Columns, err = d.names("columns", cols, maxList, "columns")
		case "unique":
			ix.Unique, _, err = d.boolean("unique")
		default:
			err = d.skip()
		}
		return err
	})
	return err
}

// grow extends s by one element, reusing a previous element's storage, and
// returns it with a pointer to the new element.
func grow[T any](s []T) ([]T, *T) {
	if len(s) < cap(s) {
		s = s[:len(s)+1]
	} else {
		var zero T
		s = append(s, zero)
	}
	return s, &s[len(s)-1]
}

// list returns s, or nil when it is empty.
func list[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
