package analysis

import "github.com/hubsnap/hubsnap/indexer/snapshot"

// shopSchema is the release most tests analyse logics against: a shop on
// one postgres connection.
func shopSchema() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}},
		Tables: []snapshot.Table{
			{Connection: "main", Name: "users", PrimaryKey: []string{"id"}, Columns: []snapshot.Column{
				{Name: "id", Type: "integer", Default: "nextval('users_id_seq'::regclass)"},
				{Name: "email", Type: "varchar(255)"},
				{Name: "name", Type: "text", Nullable: true},
				{Name: "created_at", Type: "timestamptz", Default: "now()"},
				{Name: "status", Type: "user_status", Enum: []string{"active", "banned"}, Default: "'active'::user_status"},
				{Name: "settings", Type: "jsonb", Nullable: true},
			}, Indexes: []snapshot.Index{{Name: "users_email_key", Columns: []string{"email"}, Unique: true}}},
			{Connection: "main", Name: "orders", PrimaryKey: []string{"id"}, Columns: []snapshot.Column{
				{Name: "id", Type: "bigserial"},
				{Name: "user_id", Type: "int4"},
				{Name: "total", Type: "numeric(10,2)"},
				{Name: "note", Type: "text", Nullable: true},
				{Name: "placed_at", Type: "timestamp with time zone", Default: "now()"},
				{Name: "tags", Type: "text[]", Nullable: true},
			}},
			{Connection: "main", Name: "items", PrimaryKey: []string{"order_id", "sku"}, Columns: []snapshot.Column{
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
func twoConnSchema() *snapshot.Snapshot {
	events := func(conn string) snapshot.Table {
		return snapshot.Table{Connection: conn, Name: "events", PrimaryKey: []string{"id"}, Columns: []snapshot.Column{
			{Name: "id", Type: "bigint", Default: "nextval('events_id_seq'::regclass)"},
			{Name: "user_id", Type: "integer"},
			{Name: "kind", Type: "text"},
		}}
	}
	return &snapshot.Snapshot{
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}, {Name: "analytics", Engine: "postgres"}},
		Tables: []snapshot.Table{
			{Connection: "main", Name: "users", PrimaryKey: []string{"id"}, Columns: []snapshot.Column{
				{Name: "id", Type: "integer", Default: "nextval('users_id_seq'::regclass)"},
				{Name: "email", Type: "text"},
			}},
			{Connection: "analytics", Name: "accounts", PrimaryKey: []string{"id"}, Columns: []snapshot.Column{
				{Name: "id", Type: "integer", Default: "nextval('accounts_id_seq'::regclass)"},
			}},
			events("main"),
			events("analytics"),
		},
	}
}
