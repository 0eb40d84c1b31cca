package answer

// The answer of schema_diff (store/diff.go builds it).

// DiffOutput is the output of schema_diff. Absent values in a change are
// "" (a comment, a default, a description) and [] (an enum).
type DiffOutput struct {
	From   ReleaseRef  `json:"from"`
	To     ReleaseRef  `json:"to"`
	Tables *TablesDiff `json:"tables,omitempty" jsonschema:"the tables added, removed and changed; left out when the token may not read tables"`
	Logics *LogicsDiff `json:"logics,omitempty" jsonschema:"the logics added, removed and changed; left out when the token may not read logics"`
	// More is set when the answer was cut: it is complete for tables, then
	// logics, up to the first one left out.
	More bool `json:"more,omitempty" jsonschema:"some changes were left out (limit, or the answer's size): raise limit to see more"`
}

// TablesDiff is what changed among the tables: each list is left out when
// empty.
type TablesDiff struct {
	Added   []TableRef    `json:"added,omitempty"`
	Removed []TableRef    `json:"removed,omitempty"`
	Changed []TableChange `json:"changed,omitempty"`
}

// TableChange is a table present in both releases that changed. Parts
// that did not change are left out.
type TableChange struct {
	Name        string           `json:"name"`
	Connection  string           `json:"connection"`
	Comment     *TextChange      `json:"comment,omitempty"`
	Columns     *ColumnsDiff     `json:"columns,omitempty" jsonschema:"columns compared by name"`
	PrimaryKey  *KeyChange       `json:"primaryKey,omitempty"`
	ForeignKeys *ForeignKeysDiff `json:"foreignKeys,omitempty" jsonschema:"foreign keys compared whole: a changed key is removed and added"`
	Indexes     *IndexesDiff     `json:"indexes,omitempty" jsonschema:"indexes compared whole"`
	More        bool             `json:"more,omitempty" jsonschema:"this table's change is larger than the answer could hold: its lists were cut"`
}

// TextChange is a changed text.
type TextChange struct {
	From string `json:"from" jsonschema:"the text before; empty for none"`
	To   string `json:"to" jsonschema:"the text after; empty for none"`
	Cut  bool   `json:"cut,omitempty" jsonschema:"the texts are long: only the part around the change is shown, cuts marked …"`
}

// ColumnsDiff is what changed among a table's columns.
type ColumnsDiff struct {
	Added   []string       `json:"added,omitempty"`
	Removed []string       `json:"removed,omitempty"`
	Changed []ColumnChange `json:"changed,omitempty"`
}

// ColumnChange is a changed column: From and To hold only the attributes
// that changed.
type ColumnChange struct {
	Name string      `json:"name"`
	From ColumnAttrs `json:"from"`
	To   ColumnAttrs `json:"to"`
}

// ColumnAttrs are attributes of a column; only those that changed are set.
type ColumnAttrs struct {
	Type     *string   `json:"type,omitempty"`
	Nullable *bool     `json:"nullable,omitempty"`
	Default  *string   `json:"default,omitempty" jsonschema:"the default expression; empty for none"`
	Enum     *[]string `json:"enum,omitempty" jsonschema:"the allowed values; empty for none"`
	Comment  *string   `json:"comment,omitempty" jsonschema:"empty for none"`
}

// KeyChange is a changed primary key.
type KeyChange struct {
	From []string `json:"from" jsonschema:"the key's columns before; empty for no key"`
	To   []string `json:"to" jsonschema:"the key's columns after; empty for no key"`
}

// ForeignKeysDiff lists foreign keys added and removed, as
// schema_get_table shows them.
type ForeignKeysDiff struct {
	Added   []ForeignKey `json:"added,omitempty"`
	Removed []ForeignKey `json:"removed,omitempty"`
}

// IndexesDiff lists indexes added and removed.
type IndexesDiff struct {
	Added   []Index `json:"added,omitempty"`
	Removed []Index `json:"removed,omitempty"`
}

// LogicsDiff is what changed among the logics.
type LogicsDiff struct {
	Added   []string      `json:"added,omitempty"`
	Removed []string      `json:"removed,omitempty"`
	Changed []LogicChange `json:"changed,omitempty"`
	// Broken is what the newer release breaks (analysis.go).
	Broken      []BrokenLogic `json:"broken,omitempty" jsonschema:"logics of 'to' with problems they did not have in 'from', or new with problems (postgres releases)"`
	BrokenTotal int           `json:"brokenTotal,omitempty" jsonschema:"how many logics are broken, when broken lists only some"`
	// AnalysisPending is set while either release's logics are being
	// analysed: broken is not known yet.
	AnalysisPending bool `json:"analysisPending,omitempty" jsonschema:"the logics are still being analysed: broken is not known yet"`
}

// LogicChange is a logic present in both releases that changed.
type LogicChange struct {
	Name        string      `json:"name"`
	Fields      []string    `json:"fields" jsonschema:"what changed, of sql, params, auth and description, in that order"`
	SQL         *TextChange `json:"sql,omitempty"`
	Params      *ParamsDiff `json:"params,omitempty" jsonschema:"parameters compared by name"`
	Auth        *AuthChange `json:"auth,omitempty"`
	Description *TextChange `json:"description,omitempty"`
	More        bool        `json:"more,omitempty" jsonschema:"this logic's change is larger than the answer could hold: its params were cut"`
}

// ParamsDiff is what changed among a logic's parameters.
type ParamsDiff struct {
	Added   []string      `json:"added,omitempty"`
	Removed []string      `json:"removed,omitempty"`
	Changed []ParamChange `json:"changed,omitempty"`
}

// ParamChange is a changed parameter: From and To hold only the
// attributes that changed.
type ParamChange struct {
	Name string     `json:"name"`
	From ParamAttrs `json:"from"`
	To   ParamAttrs `json:"to"`
}

// ParamAttrs are attributes of a parameter; only those that changed are
// set.
type ParamAttrs struct {
	Type     *string `json:"type,omitempty"`
	Required *bool   `json:"required,omitempty"`
}

// AuthChange is a logic's auth before and after.
type AuthChange struct {
	From Auth `json:"from"`
	To   Auth `json:"to"`
}
