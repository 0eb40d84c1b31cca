package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// maxName bounds the names a client may ask for; no real name is longer.
const maxName = 1024

// ListTablesInput is the input of schema_list_tables.
type ListTablesInput struct {
	Connection string `json:"connection,omitempty" jsonschema:"only the tables of this database connection, e.g. main"`
}

// ListTablesOutput is the output of schema_list_tables.
type ListTablesOutput struct {
	Tables []TableRef `json:"tables" jsonschema:"every table of the release, sorted by connection, then name"`
}

// TableRef names a table.
type TableRef struct {
	Name       string `json:"name"`
	Connection string `json:"connection" jsonschema:"the database connection the table lives in"`
}

// GetTableInput is the input of schema_get_table.
type GetTableInput struct {
	Table      string `json:"table" jsonschema:"the table name; 'connection.table' also works"`
	Connection string `json:"connection,omitempty" jsonschema:"the table's database connection, needed when the name is in several"`
}

// Table is the output of schema_get_table (the shape of MCP-002).
type Table struct {
	Name       string `json:"name"`
	Connection string `json:"connection"`
	Comment    string `json:"comment,omitempty"`
	// PrimaryKey is null when the table has none.
	PrimaryKey   *Key         `json:"primaryKey" jsonschema:"the primary key, or null when the table has none"`
	Columns      []Column     `json:"columns" jsonschema:"every column, in table order"`
	ForeignKeys  []ForeignKey `json:"foreignKeys" jsonschema:"the table's foreign keys; empty when none"`
	Indexes      []Index      `json:"indexes,omitempty" jsonschema:"secondary indexes, when there are any"`
	ReferencedBy []Reference  `json:"referencedBy,omitempty" jsonschema:"foreign keys of other tables that point here, when there are any"`
}

// Key is a primary key. Name and Type are set when it has one column.
type Key struct {
	Name    string      `json:"name,omitempty" jsonschema:"the key column, when the key has one"`
	Type    string      `json:"type,omitempty" jsonschema:"its type, when the key has one column"`
	Columns []KeyColumn `json:"columns" jsonschema:"the key's columns, in key order"`
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
	Connection string   `json:"connection"`
	Name       string   `json:"name,omitempty"`
	Column     string   `json:"column,omitempty" jsonschema:"the referencing column, when the key has one"`
	Columns    []string `json:"columns" jsonschema:"the referencing columns"`
	// ReferencedColumns are columns of this table.
	ReferencedColumns []string `json:"referencedColumns" jsonschema:"the columns of this table they point at"`
}

func (s *Server) addTableTools() {
	addTool(s, &mcp.Tool{
		Name:  "schema_list_tables",
		Title: "List tables",
		Description: `List every table of the current release: name and database connection, sorted.
Use it to see what tables exist, then schema_get_table for columns and keys. In a large
schema (hundreds of tables), use schema_search to find the ones you need instead.`,
		Annotations: readOnly("List tables"),
	}, s.listTables)

	addTool(s, &mcp.Tool{
		Name:  "schema_get_table",
		Title: "Get a table",
		Description: `Get one table of the current release: every column (name, type, nullable, and
comment, default and enum values when set), the primary key, foreign keys, indexes, and
referencedBy (foreign keys of other tables pointing here). Use it before writing queries,
API or test code for that table. "table" may be "connection.table"; a name present in
several connections answers AMBIGUOUS with the qualified names to choose from.`,
		Annotations: readOnly("Get a table"),
	}, s.getTable)
}

func (s *Server) listTables(ctx context.Context, _ *mcp.CallToolRequest, in ListTablesInput) (*mcp.CallToolResult, ListTablesOutput, error) {
	if err := checkName("connection", in.Connection, false); err != nil {
		return nil, ListTablesOutput{}, s.fail(ctx, "schema_list_tables", err)
	}
	refs, err := s.store.Tables(ctx, s.target, in.Connection)
	if err != nil {
		return nil, ListTablesOutput{}, s.fail(ctx, "schema_list_tables", err)
	}
	out := ListTablesOutput{Tables: make([]TableRef, len(refs))}
	for i, r := range refs {
		out.Tables[i] = TableRef{Name: r.Name, Connection: r.Connection}
	}
	return answer(out)
}

func (s *Server) getTable(ctx context.Context, _ *mcp.CallToolRequest, in GetTableInput) (*mcp.CallToolResult, Table, error) {
	if err := checkName("table", in.Table, true); err != nil {
		return nil, Table{}, s.fail(ctx, "schema_get_table", err)
	}
	if err := checkName("connection", in.Connection, false); err != nil {
		return nil, Table{}, s.fail(ctx, "schema_get_table", err)
	}
	t, err := s.store.Table(ctx, s.target, in.Connection, in.Table)
	// A bare name that is not a table may be "connection.table".
	if store.ErrorCode(err) == store.NotFound && in.Connection == "" {
		if conn, name, ok := strings.Cut(in.Table, "."); ok && conn != "" && name != "" {
			if t2, err2 := s.store.Table(ctx, s.target, conn, name); err2 == nil || store.ErrorCode(err2) != store.NotFound {
				t, err = t2, err2
			}
		}
	}
	if err != nil {
		return nil, Table{}, s.fail(ctx, "schema_get_table", err)
	}
	return answer(tableOut(t))
}

// tableOut shapes a table as MCP-002 does, leaving out empty extras.
func tableOut(t *store.Table) Table {
	out := Table{Name: t.Name, Connection: t.Connection, Comment: t.Comment,
		Columns: make([]Column, len(t.Columns)), ForeignKeys: []ForeignKey{}}
	types := map[string]string{}
	for i, c := range t.Columns {
		types[c.Name] = c.Type
		out.Columns[i] = Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable, Comment: c.Comment,
			Default: c.Default, Enum: c.Enum}
	}
	if len(t.PrimaryKey) > 0 {
		k := &Key{Columns: make([]KeyColumn, len(t.PrimaryKey))}
		for i, c := range t.PrimaryKey {
			k.Columns[i] = KeyColumn{Name: c, Type: types[c]}
		}
		if len(k.Columns) == 1 {
			k.Name, k.Type = k.Columns[0].Name, k.Columns[0].Type
		}
		out.PrimaryKey = k
	}
	for _, fk := range t.ForeignKeys {
		f := ForeignKey{Name: fk.Name, Columns: fk.Columns, OnDelete: fk.OnDelete,
			References: References{Table: fk.RefTable, Columns: fk.RefColumns}}
		if fk.RefConnection != t.Connection {
			f.References.Connection = fk.RefConnection
		}
		if len(fk.Columns) == 1 {
			f.Column = fk.Columns[0]
		}
		if len(fk.RefColumns) == 1 {
			f.References.Column = fk.RefColumns[0]
		}
		out.ForeignKeys = append(out.ForeignKeys, f)
	}
	for _, ix := range t.Indexes {
		out.Indexes = append(out.Indexes, Index{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique})
	}
	for _, r := range t.ReferencedBy {
		ref := Reference{Table: r.Table, Connection: r.Connection, Name: r.Name, Columns: r.Columns,
			ReferencedColumns: r.RefColumns}
		if len(r.Columns) == 1 {
			ref.Column = r.Columns[0]
		}
		out.ReferencedBy = append(out.ReferencedBy, ref)
	}
	return out
}

// checkName rejects names no table, connection or logic can have.
func checkName(what, name string, required bool) error {
	switch {
	case name == "" && required:
		return invalid("%s is required", what)
	case len(name) > maxName:
		return invalid("%s is %d bytes long; names are at most %d", what, len(name), maxName)
	case strings.ContainsRune(name, 0):
		return invalid("%s holds a NUL byte", what)
	}
	return nil
}
