package analysis

// shopSchema is the release most tests analyse logics against: a shop on
// one postgres connection.
func shopSchema() *Schema {
	return &Schema{
		Connections: []Connection{{Name: "main", Engine: "postgres"}},
		Tables: []Table{
			{Connection: "main", Name: "users", PrimaryKey: []string{"id"}, Unique: [][]string{{"email"}}, Columns: []Column{
				{Name: "id", Type: "integer", HasDefault: true},
				{Name: "email", Type: "varchar(255)"},
				{Name: "name", Type: "text", Nullable: true},
				{Name: "created_at", Type: "timestamptz", HasDefault: true},
				{Name: "status", Type: "user_status", Enum: []string{"active", "banned"}, HasDefault: true},
				{Name: "settings", Type: "jsonb", Nullable: true},
			}},
			{Connection: "main", Name: "orders", PrimaryKey: []string{"id"}, Columns: []Column{
				{Name: "id", Type: "bigserial"},
				{Name: "user_id", Type: "int4"},
				{Name: "total", Type: "numeric(10,2)"},
				{Name: "note", Type: "text", Nullable: true},
				{Name: "placed_at", Type: "timestamp with time zone", HasDefault: true},
				{Name: "tags", Type: "text[]", Nullable: true},
			}},
			{Connection: "main", Name: "items", PrimaryKey: []string{"order_id", "sku"}, Columns: []Column{
				{Name: "order_id", Type: "bigint"},
				{Name: "sku", Type: "string"},
				{Name: "qty", Type: "smallint"},
				{Name: "price", Type: "numeric", Nullable: true},
			}},
		},
	}
}

// twoConnSchema has a table in two postgres connections (events), one in
// one (users, accounts), for AMBIGUOUS_TABLE and c.t names.
func twoConnSchema() *Schema {
	events := func(conn string) Table {
		return Table{Connection: conn, Name: "events", PrimaryKey: []string{"id"}, Columns: []Column{
			{Name: "id", Type: "bigint", HasDefault: true},
			{Name: "user_id", Type: "integer"},
			{Name: "kind", Type: "text"},
		}}
	}
	return &Schema{
		Connections: []Connection{{Name: "main", Engine: "postgres"}, {Name: "analytics", Engine: "postgres"}},
		Tables: []Table{
			{Connection: "main", Name: "users", PrimaryKey: []string{"id"}, Columns: []Column{
				{Name: "id", Type: "integer", HasDefault: true},
				{Name: "email", Type: "text"},
			}},
			{Connection: "analytics", Name: "accounts", PrimaryKey: []string{"id"}, Columns: []Column{
				{Name: "id", Type: "integer", HasDefault: true},
			}},
			events("main"),
			events("analytics"),
		},
	}
}
