package store

import (
	"encoding/json"
	"slices"
)

// The comparison of one changed table or logic, and the answer's shape:
// the types below marshal to the JSON of mcpserver.DiffOutput (the tests
// hold the two together). Absent values are "" (a comment, a default, a
// description) and [] (an enum): a change from or to "none" shows them so.

// tableDoc is what schema_diff compares of a table (qDiffTableDocs).
type tableDoc struct {
	Comment     string            `json:"comment"`
	Columns     []columnDoc       `json:"columns"`
	PrimaryKey  []string          `json:"primaryKey"`
	ForeignKeys []json.RawMessage `json:"foreignKeys"` // as schema_get_table shows them
	Indexes     []json.RawMessage `json:"indexes"`
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
	Description string     `json:"description"`
	SQL         string     `json:"sql"`
	Params      []paramDoc `json:"params"`
	Auth        authDoc    `json:"auth"`
}

type paramDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

type authDoc struct {
	Required bool     `json:"required"`
	Roles    []string `json:"roles"`
}

// The answer.
type (
	diffAnswer struct {
		From   diffRelease `json:"from"`
		To     diffRelease `json:"to"`
		Tables *diffTables `json:"tables,omitempty"`
		Logics *diffLogics `json:"logics,omitempty"`
		More   bool        `json:"more,omitempty"`
	}
	diffTables struct {
		Added   []diffTableRef `json:"added,omitempty"`
		Removed []diffTableRef `json:"removed,omitempty"`
		Changed []*tableChange `json:"changed,omitempty"`
	}
	diffTableRef struct {
		Name       string `json:"name"`
		Connection string `json:"connection"`
	}
	tableChange struct {
		Name        string       `json:"name"`
		Connection  string       `json:"connection"`
		Comment     *textChange  `json:"comment,omitempty"`
		Columns     *columnsDiff `json:"columns,omitempty"`
		PrimaryKey  *keyChange   `json:"primaryKey,omitempty"`
		ForeignKeys *partsDiff   `json:"foreignKeys,omitempty"`
		Indexes     *partsDiff   `json:"indexes,omitempty"`
		More        bool         `json:"more,omitempty"`
	}
	textChange struct {
		From string `json:"from"`
		To   string `json:"to"`
		Cut  bool   `json:"cut,omitempty"`
	}
	columnsDiff struct {
		Added   []string       `json:"added,omitempty"`
		Removed []string       `json:"removed,omitempty"`
		Changed []columnChange `json:"changed,omitempty"`
	}
	columnChange struct {
		Name string      `json:"name"`
		From columnAttrs `json:"from"`
		To   columnAttrs `json:"to"`
	}
	columnAttrs struct {
		Type     *string   `json:"type,omitempty"`
		Nullable *bool     `json:"nullable,omitempty"`
		Default  *string   `json:"default,omitempty"`
		Enum     *[]string `json:"enum,omitempty"`
		Comment  *string   `json:"comment,omitempty"`
	}
	keyChange struct {
		From []string `json:"from"`
		To   []string `json:"to"`
	}
	partsDiff struct {
		Added   []json.RawMessage `json:"added,omitempty"`
		Removed []json.RawMessage `json:"removed,omitempty"`
	}
	diffLogics struct {
		Added   []string       `json:"added,omitempty"`
		Removed []string       `json:"removed,omitempty"`
		Changed []*logicChange `json:"changed,omitempty"`
		// Broken, BrokenTotal and AnalysisPending: diff_broken.go.
		Broken          []brokenLogic `json:"broken,omitempty"`
		BrokenTotal     int           `json:"brokenTotal,omitempty"`
		AnalysisPending bool          `json:"analysisPending,omitempty"`
	}
	logicChange struct {
		Name        string      `json:"name"`
		Fields      []string    `json:"fields"`
		SQL         *textChange `json:"sql,omitempty"`
		Params      *paramsDiff `json:"params,omitempty"`
		Auth        *authChange `json:"auth,omitempty"`
		Description *textChange `json:"description,omitempty"`
		More        bool        `json:"more,omitempty"`
	}
	paramsDiff struct {
		Added   []string      `json:"added,omitempty"`
		Removed []string      `json:"removed,omitempty"`
		Changed []paramChange `json:"changed,omitempty"`
	}
	paramChange struct {
		Name string     `json:"name"`
		From paramAttrs `json:"from"`
		To   paramAttrs `json:"to"`
	}
	paramAttrs struct {
		Type     *string `json:"type,omitempty"`
		Required *bool   `json:"required,omitempty"`
	}
	authChange struct {
		From authDoc `json:"from"`
		To   authDoc `json:"to"`
	}
)

// compareTables returns the change from a to b, nil when nothing that
// schema_diff compares differs.
func compareTables(name, connection string, a, b *tableDoc) *tableChange {
	c := &tableChange{Name: name, Connection: connection}
	if a.Comment != b.Comment {
		c.Comment = &textChange{From: a.Comment, To: b.Comment}
	}
	old := map[string]*columnDoc{}
	for i := range a.Columns {
		old[a.Columns[i].Name] = &a.Columns[i]
	}
	cols := &columnsDiff{}
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
		c.PrimaryKey = &keyChange{From: a.PrimaryKey, To: b.PrimaryKey}
	}
	c.ForeignKeys = compareParts(a.ForeignKeys, b.ForeignKeys)
	c.Indexes = compareParts(a.Indexes, b.Indexes)
	if c.Comment == nil && c.Columns == nil && c.PrimaryKey == nil && c.ForeignKeys == nil && c.Indexes == nil {
		return nil
	}
	return c
}

// compareColumns returns the attributes of a column that changed.
func compareColumns(a, b *columnDoc) (columnChange, bool) {
	ch := columnChange{Name: b.Name}
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
func compareParts(a, b []json.RawMessage) *partsDiff {
	count := map[string]int{}
	for _, p := range a {
		count[string(p)]++
	}
	d := &partsDiff{}
	for _, p := range b {
		if count[string(p)] > 0 {
			count[string(p)]--
		} else {
			d.Added = append(d.Added, p)
		}
	}
	for _, p := range a {
		if count[string(p)] > 0 {
			count[string(p)]--
			d.Removed = append(d.Removed, p)
		}
	}
	if d.Added == nil && d.Removed == nil {
		return nil
	}
	return d
}

// compareLogics returns the change from a to b, nil when nothing that
// schema_diff compares differs. Fields names what changed, in the order
// sql, params, auth, description.
func compareLogics(name string, a, b *logicDoc) *logicChange {
	c := &logicChange{Name: name, Fields: []string{}}
	if a.SQL != b.SQL {
		c.SQL = &textChange{From: a.SQL, To: b.SQL}
		c.Fields = append(c.Fields, "sql")
	}
	if p := compareParams(a.Params, b.Params); p != nil {
		c.Params = p
		c.Fields = append(c.Fields, "params")
	}
	ra, rb := slices.Sorted(slices.Values(a.Auth.Roles)), slices.Sorted(slices.Values(b.Auth.Roles))
	if a.Auth.Required != b.Auth.Required || !slices.Equal(ra, rb) {
		c.Auth = &authChange{From: authDoc{a.Auth.Required, nonNil(a.Auth.Roles)}, To: authDoc{b.Auth.Required, nonNil(b.Auth.Roles)}}
		c.Fields = append(c.Fields, "auth")
	}
	if a.Description != b.Description {
		c.Description = &textChange{From: a.Description, To: b.Description}
		c.Fields = append(c.Fields, "description")
	}
	if len(c.Fields) == 0 {
		return nil
	}
	return c
}

// compareParams compares parameters by name; their order is not compared.
func compareParams(a, b []paramDoc) *paramsDiff {
	old := map[string]*paramDoc{}
	for i := range a {
		old[a[i].Name] = &a[i]
	}
	d := &paramsDiff{}
	for i := range b {
		np := &b[i]
		op, ok := old[np.Name]
		if !ok {
			d.Added = append(d.Added, np.Name)
			continue
		}
		delete(old, np.Name)
		ch := paramChange{Name: np.Name}
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
