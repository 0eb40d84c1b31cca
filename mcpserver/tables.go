package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// maxName bounds the names a client may ask for; no real name is longer.
const maxName = 1024

// ListTablesInput is the input of schema_list_tables.
type ListTablesInput struct {
	Connection Name   `json:"connection,omitempty" jsonschema:"only the tables of this database connection, e.g. main"`
	Cursor     Cursor `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
	Limit      int    `json:"limit,omitempty" jsonschema:"the most tables in a page; 500 when left out"`
}

// ListTablesOutput is the output of schema_list_tables.
type ListTablesOutput struct {
	Tables     []answer.TableRef `json:"tables" jsonschema:"a page of the release's tables, sorted by connection, then name"`
	Total      int               `json:"total" jsonschema:"how many tables there are in all (in the connection, when one is given)"`
	NextCursor string            `json:"nextCursor,omitempty" jsonschema:"more tables follow: pass this as cursor for the next page"`
}

// GetTableInput is the input of schema_get_table.
type GetTableInput struct {
	Table      TableName `json:"table" jsonschema:"the table name; 'connection.table' also works"`
	Connection Name      `json:"connection,omitempty" jsonschema:"the table's database connection, needed when the name is in several"`
	Cursor     Cursor    `json:"cursor,omitempty" jsonschema:"the nextCursor of an answer about this table, for its next columns"`
}

func (s *Server) addTableTools() {
	list := &mcp.Tool{
		Name: "schema_list_tables",
		Description: `List the tables of the current release (name and database connection), a page of
500 at a time, sorted; "total" counts them all and "nextCursor" fetches the next page.
On a large schema, find tables with schema_search instead of paging through all of them.`,
		Annotations: readOnly("List tables"),
		InputSchema: limitSchema(schemaFor[ListTablesInput](), 1, store.MaxPageLimit),
	}
	addTool[ListTablesInput, ListTablesOutput](s, list, []access.Scope{access.TableRead}, s.listTables)

	addTool[GetTableInput, answer.Table](s, &mcp.Tool{
		Name: "schema_get_table",
		Description: `Get one table of the current release: every column (name, type, nullable, and
comment, default and enum values when set), the primary key, foreign keys, indexes, and
referencedBy (foreign keys pointing here), usedBy (logics touching it). Use it before
writing queries, API or test code for that table, or changing it. A name present in
several connections answers AMBIGUOUS with the qualified names to choose from.`,
		Annotations: readOnly("Get a table"),
	}, []access.Scope{access.TableRead}, s.getTable)
}

func (s *Server) listTables(ctx context.Context, _ *mcp.CallToolRequest, in ListTablesInput) ([]byte, error) {
	if err := checkName("connection", in.Connection, false); err != nil {
		return nil, err
	}
	return s.store.TablesPage(ctx, s.target, string(in.Connection), store.PageRequest{Cursor: string(in.Cursor), Limit: in.Limit})
}

func (s *Server) getTable(ctx context.Context, req *mcp.CallToolRequest, in GetTableInput) ([]byte, error) {
	answer, err := s.tableAnswer(ctx, in)
	return withoutUsedBy(req, answer), err // analysis_scope.go
}

func (s *Server) tableAnswer(ctx context.Context, in GetTableInput) ([]byte, error) {
	if err := checkTableName("table", in.Table); err != nil {
		return nil, err
	}
	if err := checkName("connection", in.Connection, false); err != nil {
		return nil, err
	}
	table, connection, cursor := string(in.Table), string(in.Connection), string(in.Cursor)
	if cursor != "" {
		conn, name, ok := store.CursorTable(cursor)
		if ok && (name != table && conn+"."+name != table || connection != "" && connection != conn) {
			return nil, invalid("this cursor pages the columns of table %s.%s, not of %q: call without a cursor", conn, name, table)
		}
		return s.store.TableJSONFrom(ctx, s.target, cursor)
	}
	answer, err := s.store.TableJSON(ctx, s.target, connection, table)
	// A bare name that is not a table may be "connection.table".
	if store.ErrorCode(err) == store.NotFound && connection == "" {
		if conn, name, ok := strings.Cut(table, "."); ok && conn != "" && name != "" {
			if a2, err2 := s.store.TableJSON(ctx, s.target, conn, name); err2 == nil || store.ErrorCode(err2) != store.NotFound {
				answer, err = a2, err2
			}
		}
	}
	return answer, err
}

// checkName rejects names no table, connection or logic can have.
func checkName[T ~string](what string, name T, required bool) error {
	return checkNameOf(what, string(name), required, maxName)
}

// checkTableName is checkName for a table argument, which may be
// "connection.table": two names and a dot.
func checkTableName(what string, name TableName) error {
	return checkNameOf(what, string(name), true, 2*maxName+1)
}

func checkNameOf(what, name string, required bool, max int) error {
	switch {
	case name == "" && required:
		return invalid("%s is required", what)
	case len(name) > max:
		return invalid("%s is %d bytes long; names are at most %d", what, len(name), maxName)
	case strings.ContainsRune(name, 0):
		return invalid("%s holds a NUL byte", what)
	}
	return nil
}
