package analysis

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// analyzeCase is one logic and the exact analysis it must get.
type analyzeCase struct {
	name   string
	schema func() *Schema // shopSchema when nil
	sql    string
	params []Param
	want   Analysis
}

func src(table, column string) *Source { return &Source{Table: table, Column: column} }

// runCases analyses each case and compares the whole Analysis.
func runCases(t *testing.T, cases []analyzeCase) {
	t.Helper()
	a := testAnalyzer(t)
	catalogs := map[string]*Catalog{}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			schema, key := shopSchema, "shop"
			if tt.schema != nil {
				schema, key = tt.schema, tt.name
			}
			c := catalogs[key]
			if c == nil {
				c = NewCatalog(schema())
				catalogs[key] = c
			}
			got := a.Analyze(context.Background(), c, Logic{Name: "test", SQL: tt.sql, Params: tt.params})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Analyze(%q) mismatch (-want +got):\n%s", tt.sql, diff)
			}
			// The same through a catalog read from a TableSource.
			sc, _ := sourceCatalog(schema())
			got = a.Analyze(context.Background(), sc, Logic{Name: "test", SQL: tt.sql, Params: tt.params})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Analyze(%q) with a source catalog mismatch (-want +got):\n%s", tt.sql, diff)
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
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"email", "varchar(255)", false, src("users", "email")},
				{"name", "text", true, src("users", "name")},
				{"created_at", "timestamptz", false, src("users", "created_at")},
				{"status", "user_status", false, src("users", "status")},
				{"settings", "jsonb", true, src("users", "settings")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "t.* and a column of another table",
		sql:  `SELECT u.*, o.id FROM users u JOIN orders o ON o.user_id = u.id`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"email", "varchar(255)", false, src("users", "email")},
				{"name", "text", true, src("users", "name")},
				{"created_at", "timestamptz", false, src("users", "created_at")},
				{"status", "user_status", false, src("users", "status")},
				{"settings", "jsonb", true, src("users", "settings")},
				{"id", "bigserial", false, src("orders", "id")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "unquoted identifiers fold to lower case",
		sql:  `SELECT EMAIL, Users.Name FROM USERS`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"email", "varchar(255)", false, src("users", "email")},
				{"name", "text", true, src("users", "name")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "a quoted identifier keeps its case",
		sql:  `SELECT "email" FROM "users"`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"email", "varchar(255)", false, src("users", "email")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "column aliases of a table alias rename the first columns",
		sql:  `SELECT a, b, created_at FROM users AS u(a, b)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"a", "integer", false, src("users", "id")},
				{"b", "varchar(255)", false, src("users", "email")},
				{"created_at", "timestamptz", false, src("users", "created_at")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "USING merges the join column, of the common type",
		sql:  `SELECT * FROM users JOIN orders USING (id)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigint", false, nil},
				{"email", "varchar(255)", false, src("users", "email")},
				{"name", "text", true, src("users", "name")},
				{"created_at", "timestamptz", false, src("users", "created_at")},
				{"status", "user_status", false, src("users", "status")},
				{"settings", "jsonb", true, src("users", "settings")},
				{"user_id", "int4", false, src("orders", "user_id")},
				{"total", "numeric(10,2)", false, src("orders", "total")},
				{"note", "text", true, src("orders", "note")},
				{"placed_at", "timestamp with time zone", false, src("orders", "placed_at")},
				{"tags", "text[]", true, src("orders", "tags")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "NATURAL joins on the common names",
		sql:  `SELECT * FROM orders NATURAL JOIN items`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}, {"items", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
				{"user_id", "int4", false, src("orders", "user_id")},
				{"total", "numeric(10,2)", false, src("orders", "total")},
				{"note", "text", true, src("orders", "note")},
				{"placed_at", "timestamp with time zone", false, src("orders", "placed_at")},
				{"tags", "text[]", true, src("orders", "tags")},
				{"order_id", "bigint", false, src("items", "order_id")},
				{"sku", "string", false, src("items", "sku")},
				{"qty", "smallint", false, src("items", "qty")},
				{"price", "numeric", true, src("items", "price")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "LEFT JOIN: the right side may be NULL",
		sql:  `SELECT u.id, o.id AS order_id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"order_id", "bigserial", true, src("orders", "id")},
				{"total", "numeric(10,2)", true, src("orders", "total")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "RIGHT JOIN: the left side may be NULL",
		sql:  `SELECT u.email, o.total FROM users u RIGHT JOIN orders o ON o.user_id = u.id`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"email", "varchar(255)", true, src("users", "email")},
				{"total", "numeric(10,2)", false, src("orders", "total")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "FULL JOIN USING: the merged column is never NULL",
		sql:  `SELECT id, email, total FROM users FULL JOIN orders USING (id)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigint", false, nil},
				{"email", "varchar(255)", true, src("users", "email")},
				{"total", "numeric(10,2)", true, src("orders", "total")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "FULL JOIN USING: NULL when a side's column may be NULL",
		sql:  `SELECT user_id FROM orders FULL JOIN (SELECT nullif(id, 1) AS user_id FROM users) u USING (user_id)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"user_id", "integer", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "a join alias names the join's columns",
		sql:  `SELECT j.id, j.email FROM (users JOIN orders USING (id)) AS j`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigint", false, nil},
				{"email", "varchar(255)", false, src("users", "email")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "CTE chain",
		sql:  `WITH a AS (SELECT id, email FROM users), b AS (SELECT id FROM a) SELECT b.id, a.email FROM b JOIN a USING (id)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"email", "varchar(255)", false, src("users", "email")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "recursive CTE",
		sql:  `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n, n * 2 AS twice FROM r`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result: []ResultColumn{
				{"n", "integer", false, nil},
				{"twice", "integer", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "a CTE shadows a table of the same name",
		sql:  `WITH users AS (SELECT 1 AS uid) SELECT uid FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result: []ResultColumn{
				{"uid", "integer", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "subquery in FROM with column types kept",
		sql:  `SELECT s.total_qty FROM (SELECT sum(qty) AS total_qty FROM items) s`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"items", "main", "read"}},
			Result: []ResultColumn{
				{"total_qty", "bigint", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "LATERAL subquery sees the items before it",
		sql:  `SELECT u.id, last.placed_at FROM users u, LATERAL (SELECT placed_at FROM orders o WHERE o.user_id = u.id ORDER BY placed_at DESC LIMIT 1) last`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"placed_at", "timestamp with time zone", false, src("orders", "placed_at")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "correlated scalar subquery, EXISTS, IN",
		sql:  `SELECT u.id, (SELECT count(*) FROM orders o WHERE o.user_id = u.id) AS n, EXISTS (SELECT 1 FROM orders o WHERE o.user_id = u.id) AS has FROM users u WHERE u.id IN (SELECT user_id FROM orders)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"n", "bigint", false, nil},
				{"has", "boolean", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "a scalar subquery of an aggregate always returns one row",
		sql:  `SELECT u.id, (SELECT count(*) FROM orders o WHERE o.user_id = u.id) AS n, (SELECT coalesce(sum(total), 0) FROM orders o WHERE o.user_id = u.id) AS spent, (SELECT max(total) FROM orders o WHERE o.user_id = u.id) AS biggest, (SELECT count(*) FROM orders o GROUP BY user_id LIMIT 1) AS grouped FROM users u`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
				{"n", "bigint", false, nil},
				{"spent", "numeric", false, nil},
				{"biggest", "numeric", true, nil},
				{"grouped", "bigint", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "set operations: names from the left, types resolved, UNION nullability",
		sql:  `SELECT id, name FROM users UNION SELECT id, note FROM orders ORDER BY name`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigint", false, nil},
				{"name", "text", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "VALUES in FROM",
		sql:  `SELECT * FROM (VALUES (1, 'a'), (2, NULL)) AS v(id, label)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result: []ResultColumn{
				{"id", "integer", false, nil},
				{"label", "text", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "window functions",
		sql:  `SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY placed_at DESC) AS rn, lag(total) OVER w, sum(total) OVER w FROM orders WINDOW w AS (ORDER BY id)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
				{"rn", "bigint", false, nil},
				{"lag", "numeric", true, nil},
				{"sum", "numeric", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "aggregates with GROUP BY and HAVING",
		sql:  `SELECT user_id, count(*), count(note), sum(total), avg(total), max(placed_at), min(note) FROM orders GROUP BY user_id HAVING count(*) > 1`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"user_id", "int4", false, src("orders", "user_id")},
				{"count", "bigint", false, nil},
				{"count", "bigint", false, nil},
				{"sum", "numeric", true, nil},
				{"avg", "numeric", true, nil},
				{"max", "timestamp with time zone", true, nil},
				{"min", "text", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "GROUP BY a result column's name, ORDER BY an alias",
		sql:  `SELECT sku, sum(qty) AS total_qty FROM items GROUP BY sku ORDER BY total_qty DESC`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"items", "main", "read"}},
			Result: []ResultColumn{
				{"sku", "string", false, src("items", "sku")},
				{"total_qty", "bigint", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "ROLLUP makes grouped columns nullable",
		sql:  `SELECT user_id, count(*) FROM orders GROUP BY ROLLUP (user_id)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"user_id", "int4", true, src("orders", "user_id")},
				{"count", "bigint", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "sum and avg types",
		sql:  `SELECT sum(qty), avg(qty), sum(order_id), sum(price), avg(price) FROM items`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"items", "main", "read"}},
			Result: []ResultColumn{
				{"sum", "bigint", true, nil},
				{"avg", "numeric", true, nil},
				{"sum", "numeric", true, nil},
				{"sum", "numeric", true, nil},
				{"avg", "numeric", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "literals",
		sql:  `SELECT 1, 'x', NULL, 1.5, true, 3000000000, -2`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result: []ResultColumn{
				{"?column?", "integer", false, nil},
				{"?column?", "text", false, nil},
				{"?column?", "text", true, nil},
				{"?column?", "numeric", false, nil},
				{"?column?", "boolean", false, nil},
				{"?column?", "bigint", false, nil},
				{"?column?", "integer", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "now() and friends",
		sql:  `SELECT now(), current_date, current_timestamp, localtimestamp, current_user`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result: []ResultColumn{
				{"now", "timestamp with time zone", false, nil},
				{"current_date", "date", false, nil},
				{"current_timestamp", "timestamp with time zone", false, nil},
				{"localtimestamp", "timestamp without time zone", false, nil},
				{"current_user", "name", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "comparisons, boolean tests and EXISTS are boolean",
		sql:  `SELECT id = 1, name IS NULL, name = 'x', email LIKE '%@x', EXISTS (SELECT 1 FROM orders) FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"?column?", "boolean", false, nil},
				{"?column?", "boolean", false, nil},
				{"?column?", "boolean", true, nil},
				{"?column?", "boolean", false, nil},
				{"exists", "boolean", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "|| is text",
		sql:  `SELECT name || email, email || id, 'a' || 'b' FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"?column?", "text", true, nil},
				{"?column?", "text", false, nil},
				{"?column?", "text", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "casts spelled as format_type does",
		sql:  `SELECT id::text, id::int8, total::int, placed_at::date, '1'::float, 'x'::varchar(5), placed_at::timestamptz, 1::numeric(5,2), CAST(id AS smallint) FROM orders`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "text", false, nil},
				{"id", "bigint", false, nil},
				{"total", "integer", false, nil},
				{"placed_at", "date", false, nil},
				{"float8", "double precision", false, nil},
				{"varchar", "character varying(5)", false, nil},
				{"placed_at", "timestamp with time zone", false, nil},
				{"numeric", "numeric(5,2)", false, nil},
				{"id", "smallint", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "CASE: the common type, named after the ELSE column",
		sql:  `SELECT CASE WHEN total > 100 THEN 'big' ELSE 'small' END, CASE WHEN total > 1 THEN 1 ELSE total END, CASE WHEN note IS NULL THEN 0 ELSE user_id END FROM orders`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"case", "text", false, nil},
				{"total", "numeric", false, nil},
				{"user_id", "integer", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "COALESCE keeps the column's snapshot type",
		sql:  `SELECT coalesce(name, ''), coalesce(name, email), coalesce(note, 'none') AS note FROM users, orders`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}, {"orders", "main", "read"}},
			Result: []ResultColumn{
				{"coalesce", "text", false, nil},
				{"coalesce", "text", false, nil},
				{"note", "text", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "NULLIF, GREATEST, LEAST",
		sql:  `SELECT nullif(qty, 0), greatest(price, 1), least(qty, 2) FROM items`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"items", "main", "read"}},
			Result: []ResultColumn{
				{"nullif", "smallint", true, nil},
				{"greatest", "numeric", false, nil},
				{"least", "integer", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "JSON operators",
		sql:  `SELECT settings->'a', settings->>'theme', settings #> '{a,b}', settings #>> '{a}', settings ? 'a' FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"?column?", "jsonb", true, nil},
				{"?column?", "text", true, nil},
				{"?column?", "jsonb", true, nil},
				{"?column?", "text", true, nil},
				{"?column?", "boolean", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "array operators and subscripts",
		sql:  `SELECT tags[1], tags[1:2], tags || 'x', tags @> ARRAY['a'], array_length(tags, 1), cardinality(tags) FROM orders`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"tags", "text", true, nil},
				{"tags", "text[]", true, nil},
				{"?column?", "text[]", true, nil},
				{"?column?", "boolean", true, nil},
				{"array_length", "integer", true, nil},
				{"cardinality", "integer", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "an enum column and a comparison with it",
		sql:  `SELECT status FROM users WHERE status = 'active'`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"status", "user_status", false, src("users", "status")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "functions named as PostgreSQL names them",
		sql:  `SELECT lower(email), length(name), date_trunc('day', created_at), EXTRACT(year FROM created_at), TRIM(name), to_char(created_at, 'YYYY') FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"lower", "text", false, nil},
				{"length", "integer", true, nil},
				{"date_trunc", "timestamp with time zone", false, nil},
				{"extract", "numeric", false, nil},
				{"btrim", "text", true, nil},
				{"to_char", "text", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "set-returning functions in the result list",
		sql:  `SELECT o.id, unnest(tags) AS tag, generate_series(1, 3) AS n, jsonb_object_keys(settings) AS k FROM orders o, users u`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
				{"tag", "text", true, nil},
				{"n", "integer", true, nil},
				{"k", "text", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "unknown functions leave the type unknown, never a problem",
		sql:  `SELECT my_func(id), public.other_func() FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"my_func", "unknown", true, nil},
				{"other_func", "unknown", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "INSERT ... VALUES RETURNING",
		sql:    `INSERT INTO orders (user_id, total) VALUES (:user_id, :total) RETURNING id, placed_at`,
		params: []Param{{Name: "user_id", Type: "integer"}, {Name: "total", Type: "number"}},
		want: Analysis{
			Statement: "insert",
			Tables:    []TableAccess{{"orders", "main", "write"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
				{"placed_at", "timestamp with time zone", false, src("orders", "placed_at")},
			},
			Bindings: []Binding{{"user_id", "orders", "user_id"}, {"total", "orders", "total"}},
			Problems: []Problem{},
		},
	},
	{
		name: "INSERT ... SELECT",
		sql:  `INSERT INTO orders (user_id, total) SELECT id, 0 FROM users WHERE status = 'active'`,
		want: Analysis{
			Statement: "insert",
			Tables:    []TableAccess{{"orders", "main", "write"}, {"users", "main", "read"}},
			Result:    nil,
			Bindings:  []Binding{},
			Problems:  []Problem{},
		},
	},
	{
		name:   "INSERT ... ON CONFLICT DO UPDATE with EXCLUDED",
		sql:    `INSERT INTO users AS u (email, name) VALUES (:email, :name) ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name WHERE u.name IS NULL RETURNING u.id`,
		params: []Param{{Name: "email", Type: "string"}, {Name: "name", Type: "string"}},
		want: Analysis{
			Statement: "insert",
			Tables:    []TableAccess{{"users", "main", "read_write"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
			},
			Bindings: []Binding{{"email", "users", "email"}, {"name", "users", "name"}},
			Problems: []Problem{},
		},
	},
	{
		name:   "UPDATE ... FROM",
		sql:    `UPDATE orders o SET note = u.email FROM users u WHERE u.id = o.user_id AND o.id = :id RETURNING o.id, u.email`,
		params: []Param{{Name: "id", Type: "integer"}},
		want: Analysis{
			Statement: "update",
			Tables:    []TableAccess{{"orders", "main", "read_write"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
				{"email", "varchar(255)", false, src("users", "email")},
			},
			Bindings: []Binding{{"id", "orders", "id"}},
			Problems: []Problem{},
		},
	},
	{
		name:   "UPDATE SET with a row of values",
		sql:    `UPDATE users SET (name, email) = (:name, :email) WHERE id = :id`,
		params: []Param{{Name: "name", Type: "string"}, {Name: "email", Type: "string"}, {Name: "id", Type: "integer"}},
		want: Analysis{
			Statement: "update",
			Tables:    []TableAccess{{"users", "main", "read_write"}},
			Result:    nil,
			Bindings:  []Binding{{"name", "users", "name"}, {"email", "users", "email"}, {"id", "users", "id"}},
			Problems:  []Problem{},
		},
	},
	{
		name: "DELETE ... USING",
		sql:  `DELETE FROM orders o USING users u WHERE o.user_id = u.id AND u.status = 'banned' RETURNING o.id`,
		want: Analysis{
			Statement: "delete",
			Tables:    []TableAccess{{"orders", "main", "read_write"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "a data-modifying CTE",
		sql:    `WITH gone AS (DELETE FROM orders WHERE placed_at < :before RETURNING user_id) SELECT count(*) FROM gone`,
		params: []Param{{Name: "before", Type: "timestamp"}},
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read_write"}},
			Result: []ResultColumn{
				{"count", "bigint", false, nil},
			},
			Bindings: []Binding{{"before", "orders", "placed_at"}},
			Problems: []Problem{},
		},
	},
	{
		name:   "bindings: comparisons both ways, IN, BETWEEN, LIKE, ANY",
		sql:    `SELECT id FROM orders WHERE user_id = :uid AND :min <= total AND id IN (:a, :b) AND placed_at BETWEEN :from AND :to AND note LIKE :pattern AND id = ANY(:ids)`,
		params: []Param{{Name: "uid", Type: "integer"}, {Name: "min", Type: "number"}, {Name: "a", Type: "integer"}, {Name: "b", Type: "integer"}, {Name: "from", Type: "timestamptz"}, {Name: "to", Type: "timestamptz"}, {Name: "pattern", Type: "string"}, {Name: "ids", Type: ""}},
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
			},
			Bindings: []Binding{{"uid", "orders", "user_id"}, {"min", "orders", "total"}, {"a", "orders", "id"}, {"b", "orders", "id"}, {"from", "orders", "placed_at"}, {"to", "orders", "placed_at"}, {"pattern", "orders", "note"}, {"ids", "orders", "id"}},
			Problems: []Problem{},
		},
	},
	{
		name:   "LIMIT and OFFSET placeholders bind no column",
		sql:    `SELECT id FROM users ORDER BY id LIMIT :limit OFFSET :offset`,
		params: []Param{{Name: "limit", Type: "integer"}, {Name: "offset", Type: "integer"}},
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"id", "integer", false, src("users", "id")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "system columns",
		sql:  `SELECT ctid, xmin FROM users`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"users", "main", "read"}},
			Result: []ResultColumn{
				{"ctid", "tid", false, nil},
				{"xmin", "xid", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name: "a function in FROM",
		sql:  `SELECT o.id, t.tag FROM orders o, unnest(o.tags) AS t(tag)`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"orders", "main", "read"}},
			Result: []ResultColumn{
				{"id", "bigserial", false, src("orders", "id")},
				{"tag", "text", true, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "MERGE: target and source, each clause's view",
		sql:    `MERGE INTO users u USING orders o ON o.user_id = u.id WHEN MATCHED AND o.total > :min THEN UPDATE SET name = :name WHEN NOT MATCHED THEN INSERT (email, name) VALUES (o.note, DEFAULT) WHEN MATCHED THEN DO NOTHING`,
		params: []Param{{Name: "min", Type: "number"}, {Name: "name", Type: "string"}},
		want: Analysis{
			Statement: "merge",
			Tables:    []TableAccess{{"users", "main", "read_write"}, {"orders", "main", "read"}},
			Result:    nil,
			Bindings:  []Binding{{"min", "orders", "total"}, {"name", "users", "name"}},
			Problems:  []Problem{},
		},
	},
	{
		name: "generate_series",
		sql:  `SELECT g FROM generate_series(1, 10) g`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result: []ResultColumn{
				{"g", "integer", false, nil},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "AMBIGUOUS_TABLE: a bare name in two connections, alone",
		schema: twoConnSchema,
		sql:    `SELECT * FROM events`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result:    nil,
			Bindings:  []Binding{},
			Problems:  []Problem{{"AMBIGUOUS_TABLE", "table \"events\" is in several connections, and the statement's other tables do not tell which", 15}},
			Unjudged:  "the columns of a row are not all known",
		},
	},
	{
		name:   "a bare name in two connections resolves to the other tables' connection",
		schema: twoConnSchema,
		sql:    `SELECT e.kind, u.email FROM events e JOIN users u ON u.id = e.user_id`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"events", "main", "read"}, {"users", "main", "read"}},
			Result: []ResultColumn{
				{"kind", "text", false, src("events", "kind")},
				{"email", "text", false, src("users", "email")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "the other way round",
		schema: twoConnSchema,
		sql:    `SELECT e.kind FROM accounts a JOIN events e ON e.user_id = a.id`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"accounts", "analytics", "read"}, {"events", "analytics", "read"}},
			Result: []ResultColumn{
				{"kind", "text", false, src("events", "kind")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "c.t picks the connection",
		schema: twoConnSchema,
		sql:    `SELECT kind FROM analytics.events`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{{"events", "analytics", "read"}},
			Result: []ResultColumn{
				{"kind", "text", false, src("events", "kind")},
			},
			Bindings: []Binding{},
			Problems: []Problem{},
		},
	},
	{
		name:   "UNKNOWN_TABLE: c.t with a table the connection does not have",
		schema: twoConnSchema,
		sql:    `SELECT * FROM main.accounts`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result:    nil,
			Bindings:  []Binding{},
			Problems:  []Problem{{"UNKNOWN_TABLE", "relation \"main.accounts\" does not exist", 15}},
			Unjudged:  "the columns of a row are not all known",
		},
	},
	{
		name:   "a schema that is not a connection is not judged",
		schema: twoConnSchema,
		sql:    `SELECT * FROM other.events`,
		want: Analysis{
			Statement: "select",
			Tables:    []TableAccess{},
			Result:    nil,
			Bindings:  []Binding{},
			Problems:  []Problem{},
			Unjudged:  "the columns of a row are not all known",
		},
	},
}
