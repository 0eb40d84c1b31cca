package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// JoinPathInput is the input of schema_join_path.
type JoinPathInput struct {
	From    TableName `json:"from" jsonschema:"the table to start from; 'connection.table' also works"`
	To      TableName `json:"to" jsonschema:"the table to reach; 'connection.table' also works"`
	MaxHops int       `json:"maxHops,omitempty" jsonschema:"the most joins in a path, 1 to 6; 4 when left out"`
	Limit   int       `json:"limit,omitempty" jsonschema:"the most paths, 1 to 10; 3 when left out"`
}

// JoinPathOutput is the output of schema_join_path.
type JoinPathOutput struct {
	Paths []JoinPath `json:"paths" jsonschema:"the join paths, fewest joins first; empty when no foreign keys join the tables within maxHops"`
	// Truncated is set when the search stopped at one of its work bounds
	// (around a table that very many keys point at) or a path did not fit
	// in the answer, before it had limit paths or had ruled out every
	// other path of up to maxHops joins (store.JoinPaths.Truncated).
	Truncated bool `json:"truncated,omitempty" jsonschema:"the search was cut short: the paths given are the first in order, none is missing before the last one, but more may exist after it (as many joins or more); paths of 1 and 2 joins are always searched whole"`
}

// JoinPath is one way to join two tables.
type JoinPath struct {
	Tables []string `json:"tables" jsonschema:"the tables joined, from 'from' to 'to'"`
	Joins  []string `json:"joins" jsonschema:"the condition of each join in turn, e.g. order_items.order_id = orders.id"`
	SQL    string   `json:"sql" jsonschema:"a FROM clause joining them all, ready to use"`
}

// joinPathInputSchema is the input schema of schema_join_path, with the
// bounds of maxHops and limit.
func joinPathInputSchema() *jsonschema.Schema {
	in := limitSchema(schemaFor[JoinPathInput](), 1, store.MaxJoinPaths)
	lo, hi := 1.0, float64(store.MaxJoinHops)
	in.Properties["maxHops"].Minimum, in.Properties["maxHops"].Maximum = &lo, &hi
	return in
}

func (s *Server) addJoinTool() {
	addTool[JoinPathInput, JoinPathOutput](s, &mcp.Tool{
		Name: "schema_join_path",
		Description: `Find how to join two tables: the shortest chains of foreign keys between them, in
either direction, each with its join conditions and a ready FROM ... JOIN ... ON clause
(composite keys join on all their columns; names that need it are double-quoted).
Use it before writing SQL or API code that spans tables, instead of guessing join columns.`,
		Annotations: readOnly("How to join two tables"),
		InputSchema: joinPathInputSchema(),
	}, []access.Scope{access.TableRead}, s.joinPath)
}

func (s *Server) joinPath(ctx context.Context, _ *mcp.CallToolRequest, in JoinPathInput) ([]byte, error) {
	if err := checkTableName("from", in.From); err != nil {
		return nil, err
	}
	if err := checkTableName("to", in.To); err != nil {
		return nil, err
	}
	jp, err := s.store.JoinPaths(ctx, s.target, store.JoinPathRequest{From: string(in.From), To: string(in.To), MaxHops: in.MaxHops, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	out := JoinPathOutput{Paths: make([]JoinPath, len(jp.Paths)), Truncated: jp.Truncated}
	for i, p := range jp.Paths {
		out.Paths[i] = JoinPath{Tables: p.Tables, Joins: p.Joins, SQL: p.SQL}
	}
	return plainJSON(out)
}

// plainJSON marshals an answer built in Go as SQLite writes the others:
// without escaping <, > and &, which SQL is full of.
func plainJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
