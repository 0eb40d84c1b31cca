package store

import (
	"encoding/json"
	"slices"

	"github.com/hubsnap/hubsnap/store/answer"
)

// The comparison of one changed table or logic, into the types of
// answer.DiffOutput. Absent values are "" (a comment, a default, a
// description) and [] (an enum): a change from or to "none" shows them so.

// tableDoc is what schema_diff compares of a table (qDiffTableDocs).
type tableDoc struct {
	Comment     string              `json:"comment"`
	Columns     []columnDoc         `json:"columns"`
	PrimaryKey  []string            `json:"primaryKey"`
	ForeignKeys []answer.ForeignKey `json:"foreignKeys"`
	Indexes     []answer.Index      `json:"indexes"`
}

type columnDoc struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Nullable bool     `json:"nullable"`
	Comment  string   `json:"comment"`
	Default  string   `json:"default"`
	Enum     []string `json:"enum"`
}

// logicDoc is what schema_diff compares of a logic (qDiffLogicDocs).
type logicDoc struct {
	Description string      `json:"description"`
	SQL         string      `json:"sql"`
	Params      []paramDoc  `json:"params"`
	Auth        answer.Auth `json:"auth"`
}

type paramDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// compareTables returns the change from a to b, nil when nothing that
// schema_diff compares differs.
func compareTables(name, connection string, a, b *tableDoc) *answer.TableChange {
	c := &answer.TableChange{Name: name, Connection: connection}
	if a.Comment != b.Comment {
		c.Comment = &answer.TextChange{From: a.Comment, To: b.Comment}
	}
	old := map[string]*columnDoc{}
	for i := range a.Columns {
		old[a.Columns[i].Name] = &a.Columns[i]
	}
	cols := &answer.ColumnsDiff{}
	for i := range b.Columns {
		nc := &b.Columns[i]
		oc, ok := old[nc.Name]
		if !ok {
			cols.Added = append(cols.Added, nc.Name)
			continue
		}
		delete(old, nc.Name)
		if ch, ok := compareColumns(oc, nc); ok {
			cols.Changed = append(cols.Changed, ch)
		}
	}
	for _, oc := range a.Columns {
		if _, ok := old[oc.Name]; ok {
			cols.Removed = append(cols.Removed, oc.Name)
		}
	}
	if cols.Added != nil || cols.Removed != nil || cols.Changed != nil {
		c.Columns = cols
	}
	if !slices.Equal(a.PrimaryKey, b.PrimaryKey) {
		c.PrimaryKey = &answer.KeyChange{From: a.PrimaryKey, To: b.PrimaryKey}
	}
	if added, removed := compareParts(a.ForeignKeys, b.ForeignKeys); added != nil || removed != nil {
		c.ForeignKeys = &answer.ForeignKeysDiff{Added: added, Removed: removed}
	}
	if added, removed := compareParts(a.Indexes, b.Indexes); added != nil || removed != nil {
		c.Indexes = &answer.IndexesDiff{Added: added, Removed: removed}
	}
	if c.Comment == nil && c.Columns == nil && c.PrimaryKey == nil && c.ForeignKeys == nil && c.Indexes == nil {
		return nil
	}
	return c
}

// compareColumns returns the attributes of a column that changed.
func compareColumns(a, b *columnDoc) (answer.ColumnChange, bool) {
	ch := answer.ColumnChange{Name: b.Name}
	changed := false
	if a.Type != b.Type {
		ch.From.Type, ch.To.Type, changed = &a.Type, &b.Type, true
	}
	if a.Nullable != b.Nullable {
		ch.From.Nullable, ch.To.Nullable, changed = &a.Nullable, &b.Nullable, true
	}
	if a.Default != b.Default {
		ch.From.Default, ch.To.Default, changed = &a.Default, &b.Default, true
	}
	if !slices.Equal(a.Enum, b.Enum) {
		from, to := nonNil(a.Enum), nonNil(b.Enum)
		ch.From.Enum, ch.To.Enum, changed = &from, &to, true
	}
	if a.Comment != b.Comment {
		ch.From.Comment, ch.To.Comment, changed = &a.Comment, &b.Comment, true
	}
	return ch, changed
}

// compareParts compares foreign keys or indexes whole, as multisets of
// their JSON: those only in b are added, those only in a removed, each
// in its table's order.
func compareParts[T any](a, b []T) (added, removed []T) {
	key := func(p T) string {
		js, err := json.Marshal(p)
		if err != nil { // the answer's types always marshal
			panic(err)
		}
		return string(js)
	}
	count := map[string]int{}
	for _, p := range a {
		count[key(p)]++
	}
	for _, p := range b {
		if k := key(p); count[k] > 0 {
			count[k]--
		} else {
			added = append(added, p)
		}
	}
	for _, p := range a {
		if k := key(p); count[k] > 0 {
			count[k]--
			removed = append(removed, p)
		}
	}
	return added, removed
}

// compareLogics returns the change from a to b, nil when nothing that
// schema_diff compares differs. Fields names what changed, in the order
// sql, params, auth, description.
func compareLogics(name string, a, b *logicDoc) *answer.LogicChange {
	c := &answer.LogicChange{Name: name, Fields: []string{}}
	if a.SQL != b.SQL {
		c.SQL = &answer.TextChange{From: a.SQL, To: b.SQL}
		c.Fields = append(c.Fields, "sql")
	}
	if p := compareParams(a.Params, b.Params); p != nil {
		c.Params = p
		c.Fields = append(c.Fields, "params")
	}
	ra, rb := slices.Sorted(slices.Values(a.Auth.Roles)), slices.Sorted(slices.Values(b.Auth.Roles))
	if a.Auth.Required != b.Auth.Required || !slices.Equal(ra, rb) {
		c.Auth = &answer.AuthChange{From: answer.Auth{Required: a.Auth.Required, Roles: nonNil(a.Auth.Roles)},
			To: answer.Auth{Required: b.Auth.Required, Roles: nonNil(b.Auth.Roles)}}
		c.Fields = append(c.Fields, "auth")
	}
	if a.Description != b.Description {
		c.Description = &answer.TextChange{From: a.Description, To: b.Description}
		c.Fields = append(c.Fields, "description")
	}
	if len(c.Fields) == 0 {
		return nil
	}
	return c
}

// compareParams compares parameters by name; their order is not compared.
func compareParams(a, b []paramDoc) *answer.ParamsDiff {
	old := map[string]*paramDoc{}
	for i := range a {
		old[a[i].Name] = &a[i]
	}
	d := &answer.ParamsDiff{}
	for i := range b {
		np := &b[i]
		op, ok := old[np.Name]
		if !ok {
			d.Added = append(d.Added, np.Name)
			continue
		}
		delete(old, np.Name)
		ch := answer.ParamChange{Name: np.Name}
		if op.Type != np.Type {
			ch.From.Type, ch.To.Type = &op.Type, &np.Type
		}
		if op.Required != np.Required {
			ch.From.Required, ch.To.Required = &op.Required, &np.Required
		}
		if ch.From.Type != nil || ch.From.Required != nil {
			d.Changed = append(d.Changed, ch)
		}
	}
	for _, op := range a {
		if _, ok := old[op.Name]; ok {
			d.Removed = append(d.Removed, op.Name)
		}
	}
	if d.Added == nil && d.Removed == nil && d.Changed == nil {
		return nil
	}
	return d
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
