package analysis

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// analyzeCase is one logic and the exact analysis it must get.
type analyzeCase struct {
	name   string
	schema func() *snapshot.Snapshot // shopSchema when nil
	sql    string
	params []snapshot.Param
	want   snapshot.Analysis
}

// src, tableAccess, resultColumn, binding and problemAt build the parts
// of an analysis positionally, as the tables of cases write them.
func src(table, column string) *snapshot.ColumnSource {
	return &snapshot.ColumnSource{Table: table, Column: column}
}

func tableAccess(table, connection, access string) snapshot.TableAccess {
	return snapshot.TableAccess{Table: table, Connection: connection, Access: access}
}

func resultColumn(name, typ string, nullable bool, source *snapshot.ColumnSource) snapshot.ResultColumn {
	return snapshot.ResultColumn{Name: name, Type: typ, Nullable: nullable, Source: source}
}

func binding(param, table, column string) snapshot.Binding {
	return snapshot.Binding{Param: param, Table: table, Column: column}
}

func problemAt(code, message string, position int) snapshot.Problem {
	return snapshot.Problem{Code: code, Message: message, Position: position}
}

// runCases analyses each case and compares the whole Analysis.
func runCases(t *testing.T, cases []analyzeCase) {
	t.Helper()
	a := testAnalyzer(t)
	tableSets := map[string]*Tables{}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			schema, key := shopSchema, "shop"
			if tt.schema != nil {
				schema, key = tt.schema, tt.name
			}
			c := tableSets[key]
			if c == nil {
				c = NewTables(schema())
				tableSets[key] = c
			}
			got := a.Analyze(context.Background(), c, snapshot.Logic{Name: "test", SQL: tt.sql, Params: tt.params})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Analyze(%q) mismatch (-want +got):\n%s", tt.sql, diff)
			}
			// The same through Tables read from a TableSource.
			sc, _ := sourceTables(schema())
			got = a.Analyze(context.Background(), sc, snapshot.Logic{Name: "test", SQL: tt.sql, Params: tt.params})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Analyze(%q) with tables from a source mismatch (-want +got):\n%s", tt.sql, diff)
			}
		})
	}
}

// TestAnalyzeConstructs checks the exact analysis of each construct §11
// names. Names and types were checked against PostgreSQL (TestAgainstPostgres
// compares them again when a PostgreSQL is reachable).
func TestAnalyzeConstructs(t *testing.T) {
	runCases(t, constructCases)
}

var constructCases = []analyzeCase{
	{
		name: "star expands every column in order",
		sql:  `SELECT * FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("email", "varchar(255)", false, src("users", "email")),
				resultColumn("name", "text", true, src("users", "name")),
				resultColumn("created_at", "timestamptz", false, src("users", "created_at")),
				resultColumn("status", "user_status", false, src("users", "status")),
				resultColumn("settings", "jsonb", true, src("users", "settings")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "t.* and a column of another table",
		sql:  `SELECT u.*, o.id FROM users u JOIN orders o ON o.user_id = u.id`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("email", "varchar(255)", false, src("users", "email")),
				resultColumn("name", "text", true, src("users", "name")),
				resultColumn("created_at", "timestamptz", false, src("users", "created_at")),
				resultColumn("status", "user_status", false, src("users", "status")),
				resultColumn("settings", "jsonb", true, src("users", "settings")),
				resultColumn("id", "bigserial", false, src("orders", "id")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "unquoted identifiers fold to lower case",
		sql:  `SELECT EMAIL, Users.Name FROM USERS`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("email", "varchar(255)", false, src("users", "email")),
				resultColumn("name", "text", true, src("users", "name")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "a quoted identifier keeps its case",
		sql:  `SELECT "email" FROM "users"`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("email", "varchar(255)", false, src("users", "email")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "column aliases of a table alias rename the first columns",
		sql:  `SELECT a, b, created_at FROM users AS u(a, b)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("a", "integer", false, src("users", "id")),
				resultColumn("b", "varchar(255)", false, src("users", "email")),
				resultColumn("created_at", "timestamptz", false, src("users", "created_at")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "USING merges the join column, of the common type",
		sql:  `SELECT * FROM users JOIN orders USING (id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigint", false, nil),
				resultColumn("email", "varchar(255)", false, src("users", "email")),
				resultColumn("name", "text", true, src("users", "name")),
				resultColumn("created_at", "timestamptz", false, src("users", "created_at")),
				resultColumn("status", "user_status", false, src("users", "status")),
				resultColumn("settings", "jsonb", true, src("users", "settings")),
				resultColumn("user_id", "int4", false, src("orders", "user_id")),
				resultColumn("total", "numeric(10,2)", false, src("orders", "total")),
				resultColumn("note", "text", true, src("orders", "note")),
				resultColumn("placed_at", "timestamp with time zone", false, src("orders", "placed_at")),
				resultColumn("tags", "text[]", true, src("orders", "tags")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "NATURAL joins on the common names",
		sql:  `SELECT * FROM orders NATURAL JOIN items`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read"), tableAccess("items", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
				resultColumn("user_id", "int4", false, src("orders", "user_id")),
				resultColumn("total", "numeric(10,2)", false, src("orders", "total")),
				resultColumn("note", "text", true, src("orders", "note")),
				resultColumn("placed_at", "timestamp with time zone", false, src("orders", "placed_at")),
				resultColumn("tags", "text[]", true, src("orders", "tags")),
				resultColumn("order_id", "bigint", false, src("items", "order_id")),
				resultColumn("sku", "string", false, src("items", "sku")),
				resultColumn("qty", "smallint", false, src("items", "qty")),
				resultColumn("price", "numeric", true, src("items", "price")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "LEFT JOIN: the right side may be NULL",
		sql:  `SELECT u.id, o.id AS order_id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("order_id", "bigserial", true, src("orders", "id")),
				resultColumn("total", "numeric(10,2)", true, src("orders", "total")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "RIGHT JOIN: the left side may be NULL",
		sql:  `SELECT u.email, o.total FROM users u RIGHT JOIN orders o ON o.user_id = u.id`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("email", "varchar(255)", true, src("users", "email")),
				resultColumn("total", "numeric(10,2)", false, src("orders", "total")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "FULL JOIN USING: the merged column is never NULL",
		sql:  `SELECT id, email, total FROM users FULL JOIN orders USING (id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigint", false, nil),
				resultColumn("email", "varchar(255)", true, src("users", "email")),
				resultColumn("total", "numeric(10,2)", true, src("orders", "total")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "FULL JOIN USING: NULL when a side's column may be NULL",
		sql:  `SELECT user_id FROM orders FULL JOIN (SELECT nullif(id, 1) AS user_id FROM users) u USING (user_id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("user_id", "integer", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "a join alias names the join's columns",
		sql:  `SELECT j.id, j.email FROM (users JOIN orders USING (id)) AS j`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigint", false, nil),
				resultColumn("email", "varchar(255)", false, src("users", "email")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "CTE chain",
		sql:  `WITH a AS (SELECT id, email FROM users), b AS (SELECT id FROM a) SELECT b.id, a.email FROM b JOIN a USING (id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("email", "varchar(255)", false, src("users", "email")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "recursive CTE",
		sql:  `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n, n * 2 AS twice FROM r`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result: []snapshot.ResultColumn{
				resultColumn("n", "integer", false, nil),
				resultColumn("twice", "integer", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "a CTE shadows a table of the same name",
		sql:  `WITH users AS (SELECT 1 AS uid) SELECT uid FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result: []snapshot.ResultColumn{
				resultColumn("uid", "integer", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "subquery in FROM with column types kept",
		sql:  `SELECT s.total_qty FROM (SELECT sum(qty) AS total_qty FROM items) s`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("items", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("total_qty", "bigint", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "LATERAL subquery sees the items before it",
		sql:  `SELECT u.id, last.placed_at FROM users u, LATERAL (SELECT placed_at FROM orders o WHERE o.user_id = u.id ORDER BY placed_at DESC LIMIT 1) last`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("placed_at", "timestamp with time zone", false, src("orders", "placed_at")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "correlated scalar subquery, EXISTS, IN",
		sql:  `SELECT u.id, (SELECT count(*) FROM orders o WHERE o.user_id = u.id) AS n, EXISTS (SELECT 1 FROM orders o WHERE o.user_id = u.id) AS has FROM users u WHERE u.id IN (SELECT user_id FROM orders)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("n", "bigint", false, nil),
				resultColumn("has", "boolean", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "a scalar subquery of an aggregate always returns one row",
		sql:  `SELECT u.id, (SELECT count(*) FROM orders o WHERE o.user_id = u.id) AS n, (SELECT coalesce(sum(total), 0) FROM orders o WHERE o.user_id = u.id) AS spent, (SELECT max(total) FROM orders o WHERE o.user_id = u.id) AS biggest, (SELECT count(*) FROM orders o GROUP BY user_id LIMIT 1) AS grouped FROM users u`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
				resultColumn("n", "bigint", false, nil),
				resultColumn("spent", "numeric", false, nil),
				resultColumn("biggest", "numeric", true, nil),
				resultColumn("grouped", "bigint", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "set operations: names from the left, types resolved, UNION nullability",
		sql:  `SELECT id, name FROM users UNION SELECT id, note FROM orders ORDER BY name`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigint", false, nil),
				resultColumn("name", "text", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "VALUES in FROM",
		sql:  `SELECT * FROM (VALUES (1, 'a'), (2, NULL)) AS v(id, label)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, nil),
				resultColumn("label", "text", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "window functions",
		sql:  `SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY placed_at DESC) AS rn, lag(total) OVER w, sum(total) OVER w FROM orders WINDOW w AS (ORDER BY id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
				resultColumn("rn", "bigint", false, nil),
				resultColumn("lag", "numeric", true, nil),
				resultColumn("sum", "numeric", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "aggregates with GROUP BY and HAVING",
		sql:  `SELECT user_id, count(*), count(note), sum(total), avg(total), max(placed_at), min(note) FROM orders GROUP BY user_id HAVING count(*) > 1`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("user_id", "int4", false, src("orders", "user_id")),
				resultColumn("count", "bigint", false, nil),
				resultColumn("count", "bigint", false, nil),
				resultColumn("sum", "numeric", true, nil),
				resultColumn("avg", "numeric", true, nil),
				resultColumn("max", "timestamp with time zone", true, nil),
				resultColumn("min", "text", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "GROUP BY a result column's name, ORDER BY an alias",
		sql:  `SELECT sku, sum(qty) AS total_qty FROM items GROUP BY sku ORDER BY total_qty DESC`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("items", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("sku", "string", false, src("items", "sku")),
				resultColumn("total_qty", "bigint", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "ROLLUP makes grouped columns nullable",
		sql:  `SELECT user_id, count(*) FROM orders GROUP BY ROLLUP (user_id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("user_id", "int4", true, src("orders", "user_id")),
				resultColumn("count", "bigint", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "sum and avg types",
		sql:  `SELECT sum(qty), avg(qty), sum(order_id), sum(price), avg(price) FROM items`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("items", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("sum", "bigint", true, nil),
				resultColumn("avg", "numeric", true, nil),
				resultColumn("sum", "numeric", true, nil),
				resultColumn("sum", "numeric", true, nil),
				resultColumn("avg", "numeric", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "literals",
		sql:  `SELECT 1, 'x', NULL, 1.5, true, 3000000000, -2`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result: []snapshot.ResultColumn{
				resultColumn("?column?", "integer", false, nil),
				resultColumn("?column?", "text", false, nil),
				resultColumn("?column?", "text", true, nil),
				resultColumn("?column?", "numeric", false, nil),
				resultColumn("?column?", "boolean", false, nil),
				resultColumn("?column?", "bigint", false, nil),
				resultColumn("?column?", "integer", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "now() and friends",
		sql:  `SELECT now(), current_date, current_timestamp, localtimestamp, current_user`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result: []snapshot.ResultColumn{
				resultColumn("now", "timestamp with time zone", false, nil),
				resultColumn("current_date", "date", false, nil),
				resultColumn("current_timestamp", "timestamp with time zone", false, nil),
				resultColumn("localtimestamp", "timestamp without time zone", false, nil),
				resultColumn("current_user", "name", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "comparisons, boolean tests and EXISTS are boolean",
		sql:  `SELECT id = 1, name IS NULL, name = 'x', email LIKE '%@x', EXISTS (SELECT 1 FROM orders) FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("?column?", "boolean", false, nil),
				resultColumn("?column?", "boolean", false, nil),
				resultColumn("?column?", "boolean", true, nil),
				resultColumn("?column?", "boolean", false, nil),
				resultColumn("exists", "boolean", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "|| is text",
		sql:  `SELECT name || email, email || id, 'a' || 'b' FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("?column?", "text", true, nil),
				resultColumn("?column?", "text", false, nil),
				resultColumn("?column?", "text", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "casts spelled as format_type does",
		sql:  `SELECT id::text, id::int8, total::int, placed_at::date, '1'::float, 'x'::varchar(5), placed_at::timestamptz, 1::numeric(5,2), CAST(id AS smallint) FROM orders`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "text", false, nil),
				resultColumn("id", "bigint", false, nil),
				resultColumn("total", "integer", false, nil),
				resultColumn("placed_at", "date", false, nil),
				resultColumn("float8", "double precision", false, nil),
				resultColumn("varchar", "character varying(5)", false, nil),
				resultColumn("placed_at", "timestamp with time zone", false, nil),
				resultColumn("numeric", "numeric(5,2)", false, nil),
				resultColumn("id", "smallint", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "CASE: the common type, named after the ELSE column",
		sql:  `SELECT CASE WHEN total > 100 THEN 'big' ELSE 'small' END, CASE WHEN total > 1 THEN 1 ELSE total END, CASE WHEN note IS NULL THEN 0 ELSE user_id END FROM orders`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("case", "text", false, nil),
				resultColumn("total", "numeric", false, nil),
				resultColumn("user_id", "integer", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "COALESCE keeps the column's snapshot type",
		sql:  `SELECT coalesce(name, ''), coalesce(name, email), coalesce(note, 'none') AS note FROM users, orders`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("coalesce", "text", false, nil),
				resultColumn("coalesce", "text", false, nil),
				resultColumn("note", "text", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "NULLIF, GREATEST, LEAST",
		sql:  `SELECT nullif(qty, 0), greatest(price, 1), least(qty, 2) FROM items`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("items", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("nullif", "smallint", true, nil),
				resultColumn("greatest", "numeric", false, nil),
				resultColumn("least", "integer", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "JSON operators",
		sql:  `SELECT settings->'a', settings->>'theme', settings #> '{a,b}', settings #>> '{a}', settings ? 'a' FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("?column?", "jsonb", true, nil),
				resultColumn("?column?", "text", true, nil),
				resultColumn("?column?", "jsonb", true, nil),
				resultColumn("?column?", "text", true, nil),
				resultColumn("?column?", "boolean", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "array operators and subscripts",
		sql:  `SELECT tags[1], tags[1:2], tags || 'x', tags @> ARRAY['a'], array_length(tags, 1), cardinality(tags) FROM orders`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("tags", "text", true, nil),
				resultColumn("tags", "text[]", true, nil),
				resultColumn("?column?", "text[]", true, nil),
				resultColumn("?column?", "boolean", true, nil),
				resultColumn("array_length", "integer", true, nil),
				resultColumn("cardinality", "integer", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "an enum column and a comparison with it",
		sql:  `SELECT status FROM users WHERE status = 'active'`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("status", "user_status", false, src("users", "status")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "functions named as PostgreSQL names them",
		sql:  `SELECT lower(email), length(name), date_trunc('day', created_at), EXTRACT(year FROM created_at), TRIM(name), to_char(created_at, 'YYYY') FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("lower", "text", false, nil),
				resultColumn("length", "integer", true, nil),
				resultColumn("date_trunc", "timestamp with time zone", false, nil),
				resultColumn("extract", "numeric", false, nil),
				resultColumn("btrim", "text", true, nil),
				resultColumn("to_char", "text", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "set-returning functions in the result list",
		sql:  `SELECT o.id, unnest(tags) AS tag, generate_series(1, 3) AS n, jsonb_object_keys(settings) AS k FROM orders o, users u`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
				resultColumn("tag", "text", true, nil),
				resultColumn("n", "integer", true, nil),
				resultColumn("k", "text", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "unknown functions leave the type unknown, never a problem",
		sql:  `SELECT my_func(id), public.other_func() FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("my_func", "unknown", true, nil),
				resultColumn("other_func", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "INSERT ... VALUES RETURNING",
		sql:    `INSERT INTO orders (user_id, total) VALUES (:user_id, :total) RETURNING id, placed_at`,
		params: []snapshot.Param{{Name: "user_id", Type: "integer"}, {Name: "total", Type: "number"}},
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "write")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
				resultColumn("placed_at", "timestamp with time zone", false, src("orders", "placed_at")),
			},
			Bindings: []snapshot.Binding{binding("user_id", "orders", "user_id"), binding("total", "orders", "total")},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "INSERT ... SELECT",
		sql:  `INSERT INTO orders (user_id, total) SELECT id, 0 FROM users WHERE status = 'active'`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "write"), tableAccess("users", "main", "read")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{},
		},
	},
	{
		name:   "INSERT ... ON CONFLICT DO UPDATE with EXCLUDED",
		sql:    `INSERT INTO users AS u (email, name) VALUES (:email, :name) ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name WHERE u.name IS NULL RETURNING u.id`,
		params: []snapshot.Param{{Name: "email", Type: "string"}, {Name: "name", Type: "string"}},
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read_write")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
			},
			Bindings: []snapshot.Binding{binding("email", "users", "email"), binding("name", "users", "name")},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "UPDATE ... FROM",
		sql:    `UPDATE orders o SET note = u.email FROM users u WHERE u.id = o.user_id AND o.id = :id RETURNING o.id, u.email`,
		params: []snapshot.Param{{Name: "id", Type: "integer"}},
		want: snapshot.Analysis{
			Statement: "update",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read_write"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
				resultColumn("email", "varchar(255)", false, src("users", "email")),
			},
			Bindings: []snapshot.Binding{binding("id", "orders", "id")},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "UPDATE SET with a row of values",
		sql:    `UPDATE users SET (name, email) = (:name, :email) WHERE id = :id`,
		params: []snapshot.Param{{Name: "name", Type: "string"}, {Name: "email", Type: "string"}, {Name: "id", Type: "integer"}},
		want: snapshot.Analysis{
			Statement: "update",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read_write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{binding("name", "users", "name"), binding("email", "users", "email"), binding("id", "users", "id")},
			Problems:  []snapshot.Problem{},
		},
	},
	{
		name: "DELETE ... USING",
		sql:  `DELETE FROM orders o USING users u WHERE o.user_id = u.id AND u.status = 'banned' RETURNING o.id`,
		want: snapshot.Analysis{
			Statement: "delete",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read_write"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "a data-modifying CTE",
		sql:    `WITH gone AS (DELETE FROM orders WHERE placed_at < :before RETURNING user_id) SELECT count(*) FROM gone`,
		params: []snapshot.Param{{Name: "before", Type: "timestamp"}},
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read_write")},
			Result: []snapshot.ResultColumn{
				resultColumn("count", "bigint", false, nil),
			},
			Bindings: []snapshot.Binding{binding("before", "orders", "placed_at")},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "bindings: comparisons both ways, IN, BETWEEN, LIKE, ANY",
		sql:    `SELECT id FROM orders WHERE user_id = :uid AND :min <= total AND id IN (:a, :b) AND placed_at BETWEEN :from AND :to AND note LIKE :pattern AND id = ANY(:ids)`,
		params: []snapshot.Param{{Name: "uid", Type: "integer"}, {Name: "min", Type: "number"}, {Name: "a", Type: "integer"}, {Name: "b", Type: "integer"}, {Name: "from", Type: "timestamptz"}, {Name: "to", Type: "timestamptz"}, {Name: "pattern", Type: "string"}, {Name: "ids", Type: ""}},
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
			},
			Bindings: []snapshot.Binding{binding("uid", "orders", "user_id"), binding("min", "orders", "total"), binding("a", "orders", "id"), binding("b", "orders", "id"), binding("from", "orders", "placed_at"), binding("to", "orders", "placed_at"), binding("pattern", "orders", "note"), binding("ids", "orders", "id")},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "LIMIT and OFFSET placeholders bind no column",
		sql:    `SELECT id FROM users ORDER BY id LIMIT :limit OFFSET :offset`,
		params: []snapshot.Param{{Name: "limit", Type: "integer"}, {Name: "offset", Type: "integer"}},
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "system columns",
		sql:  `SELECT ctid, xmin FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("ctid", "tid", false, nil),
				resultColumn("xmin", "xid", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name: "a function in FROM",
		sql:  `SELECT o.id, t.tag FROM orders o, unnest(o.tags) AS t(tag)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
				resultColumn("tag", "text", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "MERGE: target and source, each clause's view",
		sql:    `MERGE INTO users u USING orders o ON o.user_id = u.id WHEN MATCHED AND o.total > :min THEN UPDATE SET name = :name WHEN NOT MATCHED THEN INSERT (email, name) VALUES (o.note, DEFAULT) WHEN MATCHED THEN DO NOTHING`,
		params: []snapshot.Param{{Name: "min", Type: "number"}, {Name: "name", Type: "string"}},
		want: snapshot.Analysis{
			Statement: "merge",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read_write"), tableAccess("orders", "main", "read")},
			Result:    nil,
			Bindings:  []snapshot.Binding{binding("min", "orders", "total"), binding("name", "users", "name")},
			Problems:  []snapshot.Problem{},
		},
	},
	{
		name: "generate_series",
		sql:  `SELECT g FROM generate_series(1, 10) g`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result: []snapshot.ResultColumn{
				resultColumn("g", "integer", false, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "AMBIGUOUS_TABLE: a bare name in two connections, alone",
		schema: twoConnSchema,
		sql:    `SELECT * FROM events`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeAmbiguousTable, "table \"events\" is in several connections, and the statement's other tables do not tell which", 15)},
			Unjudged:  "the columns of a row are not all known",
		},
	},
	{
		name:   "a bare name in two connections resolves to the other tables' connection",
		schema: twoConnSchema,
		sql:    `SELECT e.kind, u.email FROM events e JOIN users u ON u.id = e.user_id`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("events", "main", "read"), tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("kind", "text", false, src("events", "kind")),
				resultColumn("email", "text", false, src("users", "email")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "the other way round",
		schema: twoConnSchema,
		sql:    `SELECT e.kind FROM accounts a JOIN events e ON e.user_id = a.id`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("accounts", "analytics", "read"), tableAccess("events", "analytics", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("kind", "text", false, src("events", "kind")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "c.t picks the connection",
		schema: twoConnSchema,
		sql:    `SELECT kind FROM analytics.events`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("events", "analytics", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("kind", "text", false, src("events", "kind")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "UNKNOWN_TABLE: c.t with a table the connection does not have",
		schema: twoConnSchema,
		sql:    `SELECT * FROM main.accounts`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownTable, "relation \"main.accounts\" does not exist", 15)},
			Unjudged:  "the columns of a row are not all known",
		},
	},
	{
		name:   "a schema that is not a connection is not judged",
		schema: twoConnSchema,
		sql:    `SELECT * FROM other.events`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{},
			Unjudged:  "the columns of a row are not all known",
		},
	},
}
