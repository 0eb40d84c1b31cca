package answer

// The answer of schema_get_table (store/table_json.go composes it) and
// the names of tables that other answers share.

// TableRef names a table.
type TableRef struct {
	Name       string `json:"name"`
	Connection string `json:"connection" jsonschema:"the database connection the table lives in"`
}

// Table is the output of schema_get_table (the shape of MCP-002).
type Table struct {
	Name       string `json:"name"`
	Connection string `json:"connection"`
	Comment    string `json:"comment,omitempty"`
	// PrimaryKey is null when the table has none.
	PrimaryKey *Key     `json:"primaryKey" jsonschema:"the primary key, or null when the table has none"`
	Columns    []Column `json:"columns" jsonschema:"every column, in table order (on a very wide table, those that fit: see columnsTotal)"`
	// ColumnsTotal and NextCursor are set when the columns did not all fit
	// in the answer (docs/tools.md).
	ColumnsTotal int          `json:"columnsTotal,omitempty" jsonschema:"how many columns the table has, when this answer lists only some"`
	NextCursor   string       `json:"nextCursor,omitempty" jsonschema:"more columns follow: call again with this as cursor"`
	ForeignKeys  []ForeignKey `json:"foreignKeys" jsonschema:"the table's foreign keys; empty when none"`
	// ForeignKeysTotal counts them all when they did not all fit.
	ForeignKeysTotal int     `json:"foreignKeysTotal,omitempty" jsonschema:"how many foreign keys the table has, when this answer lists only some"`
	Indexes          []Index `json:"indexes,omitempty" jsonschema:"secondary indexes, when there are any"`
	// IndexesTotal counts them all when they did not all fit.
	IndexesTotal int         `json:"indexesTotal,omitempty" jsonschema:"how many indexes the table has, when this answer lists only some"`
	ReferencedBy []Reference `json:"referencedBy,omitempty" jsonschema:"foreign keys of other tables that point here, when there are any; at most 100"`
	// ReferencedByTotal counts them all when there are more than listed.
	ReferencedByTotal int `json:"referencedByTotal,omitempty" jsonschema:"how many foreign keys point here, when there are more than referencedBy lists"`
	// UsedBy are the logics that touch the table (analysis.go).
	UsedBy      []TableUse `json:"usedBy,omitempty" jsonschema:"the logics that read or write this table, by name; at most 100 (postgres releases)"`
	UsedByTotal int        `json:"usedByTotal,omitempty" jsonschema:"how many logics touch it, when there are more than usedBy lists"`
}

// Key is a primary key. Name and Type are set when it has one column.
type Key struct {
	Name    string      `json:"name,omitempty" jsonschema:"the key column, when the key has one"`
	Type    string      `json:"type,omitempty" jsonschema:"its type, when the key has one column"`
	Columns []KeyColumn `json:"columns" jsonschema:"the key's columns, in key order"`
	// ColumnsTotal counts them all when they did not all fit.
	ColumnsTotal int `json:"columnsTotal,omitempty" jsonschema:"how many columns the key has, when this answer lists only some"`
}

// KeyColumn is a column of a primary key.
type KeyColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Column is a column of a table.
type Column struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Nullable bool     `json:"nullable"`
	Comment  string   `json:"comment,omitempty"`
	Default  string   `json:"default,omitempty" jsonschema:"the default expression, as written in the schema"`
	Enum     []string `json:"enum,omitempty" jsonschema:"the allowed values, when the column has a fixed set"`
	// Truncated is set on a column too long for its answer.
	Truncated bool `json:"truncated,omitempty" jsonschema:"the comment and default are cut to 500 characters and enum to its first 20 values"`
}

// ForeignKey is a foreign key of the table. Column and References.Column
// are set when it has one column.
type ForeignKey struct {
	Name       string     `json:"name,omitempty"`
	Column     string     `json:"column,omitempty" jsonschema:"the referencing column, when the key has one"`
	Columns    []string   `json:"columns"`
	References References `json:"references"`
	OnDelete   string     `json:"onDelete,omitempty"`
}

// References is the target of a foreign key. The table need not exist in
// the release.
type References struct {
	Table      string   `json:"table"`
	Connection string   `json:"connection,omitempty" jsonschema:"the target's connection, when it is not the table's own"`
	Column     string   `json:"column,omitempty"`
	Columns    []string `json:"columns"`
}

// Index is a secondary index.
type Index struct {
	Name    string   `json:"name,omitempty"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique"`
}

// Reference is a foreign key of another table that points at this one.
type Reference struct {
	Table      string   `json:"table" jsonschema:"the referencing table"`
	Connection string   `json:"connection,omitempty" jsonschema:"its connection, when it is not this table's"`
	Name       string   `json:"name,omitempty" jsonschema:"the foreign key's name, when it has one"`
	Columns    []string `json:"columns" jsonschema:"the referencing columns"`
	// ReferencedColumns are columns of this table.
	ReferencedColumns []string `json:"referencedColumns" jsonschema:"the columns of this table they point at"`
}
