package indexer

import (
	"encoding/json"
	"fmt"

	"github.com/hubsnap/hubsnap/store"
)

// applyDefaults fills what the format lets a document leave out: a table's
// connection is "main", a foreign key references its own table's connection.
func (d *document) applyDefaults() {
	for i := range d.Tables {
		t := &d.Tables[i]
		if t.Connection == "" {
			t.Connection = store.DefaultConnection
		}
		for j := range t.ForeignKeys {
			if t.ForeignKeys[j].References.Connection == "" {
				t.ForeignKeys[j].References.Connection = t.Connection
			}
		}
	}
}

// validate returns every rule the document breaks, each starting with the
// path of the offending value.
func (d *document) validate() []string {
	var v validator
	switch d.FormatVersion {
	case FormatVersion:
	case 0:
		v.add("formatVersion", "missing (or 0); this hubsnap reads version %d", FormatVersion)
	default:
		v.add("formatVersion", "unsupported version %d; this hubsnap reads version %d", d.FormatVersion, FormatVersion)
	}
	v.name("release.id", d.Release.ID)
	v.name("release.project", d.Release.Project)
	v.name("release.environment", d.Release.Environment)
	if d.Release.Version < 0 {
		v.add("release.version", "negative (%d)", d.Release.Version)
	}

	conns := map[string]bool{}
	for i, c := range d.Connections {
		p := fmt.Sprintf("connections[%d].name", i)
		switch {
		case c.Name == "":
			v.add(p, "empty")
		case conns[c.Name]:
			v.add(p, "duplicate %s", quote(c.Name))
		}
		conns[c.Name] = true
	}

	// Columns of every table by connection and name, for key checks across
	// tables.
	type tableKey struct{ conn, name string }
	tables := map[tableKey]map[string]bool{}
	for i, t := range d.Tables {
		p := fmt.Sprintf("tables[%d]", i)
		k := tableKey{t.Connection, t.Name}
		switch {
		case t.Name == "":
			v.add(p+".name", "empty")
		case tables[k] != nil:
			v.add(p+".name", "duplicate %s in connection %s", quote(t.Name), quote(t.Connection))
		}
		cols := map[string]bool{}
		for j, c := range t.Columns {
			cp := fmt.Sprintf("%s.columns[%d]", p, j)
			switch {
			case c.Name == "":
				v.add(cp+".name", "empty")
			case cols[c.Name]:
				v.add(cp+".name", "duplicate %s", quote(c.Name))
			}
			cols[c.Name] = true
			if _, ok := scalarText(c.Default); !ok {
				v.add(cp+".default", "want a string, number or boolean, got %s", kindOfRaw(c.Default))
			}
			for m, e := range c.Enum {
				if _, ok := scalarText(e); !ok {
					v.add(fmt.Sprintf("%s.enum[%d]", cp, m), "want a string, number or boolean, got %s", kindOfRaw(e))
				}
			}
		}
		if tables[k] == nil {
			tables[k] = cols
		}
	}

	for i, t := range d.Tables {
		p := fmt.Sprintf("tables[%d]", i)
		cols := map[string]bool{}
		for _, c := range t.Columns {
			cols[c.Name] = true
		}
		v.keyColumns(p+".primaryKey", t.PrimaryKey, cols, t.Name, false)
		for j, fk := range t.ForeignKeys {
			fp := fmt.Sprintf("%s.foreignKeys[%d]", p, j)
			v.keyColumns(fp+".columns", fk.Columns, cols, t.Name, true)
			if fk.References.Table == "" {
				v.add(fp+".references.table", "empty")
			}
			if len(fk.References.Columns) != len(fk.Columns) {
				v.add(fp+".references.columns", "%d columns, but the foreign key has %d",
					len(fk.References.Columns), len(fk.Columns))
			}
			// A referenced table outside the release is kept as is; one
			// inside must have the referenced columns.
			refCols := tables[tableKey{fk.References.Connection, fk.References.Table}]
			for m, c := range fk.References.Columns {
				switch {
				case c == "":
					v.add(fmt.Sprintf("%s.references.columns[%d]", fp, m), "empty")
				case refCols != nil && !refCols[c]:
					v.add(fmt.Sprintf("%s.references.columns[%d]", fp, m), "column %s is not in table %s",
						quote(c), quote(fk.References.Connection+"."+fk.References.Table))
				}
			}
		}
		for j, ix := range t.Indexes {
			v.keyColumns(fmt.Sprintf("%s.indexes[%d].columns", p, j), ix.Columns, cols, t.Name, true)
		}
	}

	logics := map[string]bool{}
	for i, l := range d.Logics {
		p := fmt.Sprintf("logics[%d]", i)
		if why := checkLogicName(l.Name); why != "" {
			v.add(p+".name", "%s", why)
		} else if logics[l.Name] {
			v.add(p+".name", "duplicate %s", quote(l.Name))
		}
		logics[l.Name] = true
		params := map[string]bool{}
		for j, prm := range l.Params {
			pp := fmt.Sprintf("%s.params[%d].name", p, j)
			switch {
			case prm.Name == "":
				v.add(pp, "empty")
			case params[prm.Name]:
				v.add(pp, "duplicate %s", quote(prm.Name))
			}
			params[prm.Name] = true
		}
	}
	return v.problems
}

type validator struct{ problems []string }

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, path+": "+fmt.Sprintf(format, args...))
}

func (v *validator) name(path, s string) {
	switch {
	case s == "":
		v.add(path, "empty")
	case !ValidName(s):
		v.add(path, "%s is not valid: it must match %s", quote(s), NamePattern)
	}
}

// keyColumns checks the columns of a key or index: each is a column of the
// table, none repeats; nonEmpty keys must name at least one.
func (v *validator) keyColumns(path string, names []string, cols map[string]bool, table string, nonEmpty bool) {
	if nonEmpty && len(names) == 0 {
		v.add(path, "empty")
	}
	seen := map[string]bool{}
	for i, c := range names {
		p := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case !cols[c]:
			v.add(p, "column %s is not in table %s", quote(c), quote(table))
		case seen[c]:
			v.add(p, "duplicate %s", quote(c))
		}
		seen[c] = true
	}
}

// snapshot converts a valid, defaulted document to the domain model. An
// empty list is always nil in the model, however the document wrote it.
func (d *document) snapshot() *store.Snapshot {
	s := &store.Snapshot{
		Release: store.Release{
			ID:          d.Release.ID,
			Project:     d.Release.Project,
			Environment: d.Release.Environment,
			Version:     d.Release.Version,
			CreatedAt:   d.Release.CreatedAt,
		},
	}
	if d.Origin != nil {
		s.Origin = store.Origin{Source: d.Origin.Source, Digest: d.Origin.Digest, SyncedAt: d.Origin.SyncedAt}
	}
	for _, c := range d.Connections {
		s.Connections = append(s.Connections, store.Connection{Name: c.Name, Engine: c.Engine})
	}
	for _, t := range d.Tables {
		st := store.Table{Name: t.Name, Connection: t.Connection, Comment: t.Comment, PrimaryKey: list(t.PrimaryKey)}
		for _, c := range t.Columns {
			def, _ := scalarText(c.Default)
			col := store.Column{
				Name:     c.Name,
				Type:     c.Type,
				Nullable: c.Nullable == nil || *c.Nullable,
				Comment:  c.Comment,
				Default:  def,
			}
			for _, e := range c.Enum {
				text, _ := scalarText(e)
				col.Enum = append(col.Enum, text)
			}
			st.Columns = append(st.Columns, col)
		}
		for _, fk := range t.ForeignKeys {
			st.ForeignKeys = append(st.ForeignKeys, store.ForeignKey{
				Name:          fk.Name,
				Columns:       list(fk.Columns),
				RefConnection: fk.References.Connection,
				RefTable:      fk.References.Table,
				RefColumns:    list(fk.References.Columns),
				OnDelete:      fk.OnDelete,
			})
		}
		for _, ix := range t.Indexes {
			st.Indexes = append(st.Indexes, store.Index{Name: ix.Name, Columns: list(ix.Columns), Unique: ix.Unique})
		}
		s.Tables = append(s.Tables, st)
	}
	for _, l := range d.Logics {
		sl := store.Logic{Name: l.Name, Description: l.Description, SQL: l.SQL}
		for _, p := range l.Params {
			sl.Params = append(sl.Params, store.Param{Name: p.Name, Type: p.Type, Required: p.Required})
		}
		if l.Auth != nil {
			sl.Auth = store.Auth{Required: l.Auth.Required, Roles: list(l.Auth.Roles)}
		}
		s.Logics = append(s.Logics, sl)
	}
	return s
}

// mustJSON encodes a string as JSON.
func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// list returns names, or nil when it is empty.
func list(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	return names
}

// newDocument converts a snapshot to the JSON form of a release file, with
// every default written out.
func newDocument(s *store.Snapshot) *document {
	d := &document{
		FormatVersion: FormatVersion,
		Release: docRelease{
			ID:          s.Release.ID,
			Project:     s.Release.Project,
			Environment: s.Release.Environment,
			Version:     s.Release.Version,
			CreatedAt:   s.Release.CreatedAt,
		},
		Origin:      &docOrigin{Source: s.Origin.Source, Digest: s.Origin.Digest, SyncedAt: s.Origin.SyncedAt},
		Connections: make([]docConnection, len(s.Connections)),
		Tables:      make([]docTable, len(s.Tables)),
		Logics:      make([]docLogic, len(s.Logics)),
	}
	for i, c := range s.Connections {
		d.Connections[i] = docConnection{Name: c.Name, Engine: c.Engine}
	}
	for i, t := range s.Tables {
		dt := docTable{
			Name:        t.Name,
			Connection:  t.Connection,
			Comment:     t.Comment,
			Columns:     make([]docColumn, len(t.Columns)),
			PrimaryKey:  t.PrimaryKey,
			ForeignKeys: make([]docForeignKey, len(t.ForeignKeys)),
			Indexes:     make([]docIndex, len(t.Indexes)),
		}
		for j, c := range t.Columns {
			dt.Columns[j] = docColumn{Name: c.Name, Type: c.Type, Nullable: &c.Nullable, Comment: c.Comment,
				Default: scalarJSON(c.Default)}
			for _, e := range c.Enum {
				dt.Columns[j].Enum = append(dt.Columns[j].Enum, json.RawMessage(mustJSON(e)))
			}
		}
		for j, fk := range t.ForeignKeys {
			dt.ForeignKeys[j] = docForeignKey{
				Name:    fk.Name,
				Columns: fk.Columns,
				References: docReferences{
					Table: fk.RefTable, Connection: fk.RefConnection, Columns: fk.RefColumns,
				},
				OnDelete: fk.OnDelete,
			}
		}
		for j, ix := range t.Indexes {
			dt.Indexes[j] = docIndex{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique}
		}
		d.Tables[i] = dt
	}
	for i, l := range s.Logics {
		dl := docLogic{Name: l.Name, Description: l.Description, SQL: l.SQL,
			Params: make([]docParam, len(l.Params)),
			Auth:   &docAuth{Required: l.Auth.Required, Roles: l.Auth.Roles}}
		if dl.Auth.Roles == nil {
			dl.Auth.Roles = []string{}
		}
		for j, p := range l.Params {
			dl.Params[j] = docParam{Name: p.Name, Type: p.Type, Required: p.Required}
		}
		d.Logics[i] = dl
	}
	return d
}
