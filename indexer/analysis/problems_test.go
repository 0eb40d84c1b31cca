package analysis

import (
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TestProblems checks each problem code: PostgreSQL rejects every one of
// these logics (or, for MISSING_COLUMN, every run of it), with the SQLSTATE
// the code stands for; the cases marked "no" are valid and get none.
func TestProblems(t *testing.T) {
	runCases(t, problemCases)
}

var problemCases = []analyzeCase{
	{
		name:   "SYNTAX: PostgreSQL's message, position in the original SQL",
		sql:    `SELECT * FORM users WHERE id = :id`,
		params: []snapshot.Param{{Name: "id", Type: "integer"}},
		want: snapshot.Analysis{
			Statement: "other",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeSyntax, "syntax error at or near \"FORM\"", 10)},
		},
	},
	{
		name:   "SYNTAX: position counts characters, after a placeholder",
		sql:    `SELECT 'é', :id, FROM users`,
		params: []snapshot.Param{{Name: "id", Type: "integer"}},
		want: snapshot.Analysis{
			Statement: "other",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeSyntax, "syntax error at or near \"FROM\"", 18)},
		},
	},
	{
		name: "SYNTAX: an unterminated string",
		sql:  `SELECT * FROM users WHERE name = 'abc`,
		want: snapshot.Analysis{
			Statement: "other",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeSyntax, "unterminated quoted string at or near \"'abc\"", 34)},
		},
	},
	{
		name: "UNKNOWN_TABLE: a table the release does not have",
		sql:  `SELECT * FROM userz`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownTable, "relation \"userz\" does not exist", 15)},
			Unjudged:  "the columns of a row are not all known",
		},
	},
	{
		name: "UNKNOWN_TABLE: a qualifier naming no FROM item",
		sql:  `SELECT x.id FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUnknownTable, "missing FROM-clause entry for table \"x\"", 8)},
		},
	},
	{
		name: "UNKNOWN_TABLE: a table alias hides the table's name",
		sql:  `SELECT users.id FROM users u`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUnknownTable, "invalid reference to FROM-clause entry for table \"users\"", 8)},
		},
	},
	{
		name: "UNKNOWN_TABLE: INSERT into a missing table",
		sql:  `INSERT INTO audit (id) VALUES (1)`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownTable, "relation \"audit\" does not exist", 13)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: unqualified",
		sql:  `SELECT emial FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("emial", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"emial\" does not exist", 8)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: qualified",
		sql:  `SELECT u.emial FROM users u`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("emial", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column u.emial does not exist", 8)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: a quoted identifier keeps its case",
		sql:  `SELECT "Email" FROM users`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("Email", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"Email\" does not exist", 8)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: INSERT column list",
		sql:  `INSERT INTO orders (user_id, totl) VALUES (1, 2)`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"totl\" of relation \"orders\" does not exist", 30)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: UPDATE SET target",
		sql:  `UPDATE users SET nmae = 'x' WHERE id = 1`,
		want: snapshot.Analysis{
			Statement: "update",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read_write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"nmae\" of relation \"users\" does not exist", 18)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: an alias is not visible in WHERE",
		sql:  `SELECT total AS t FROM orders WHERE t > 1`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("t", "numeric(10,2)", false, src("orders", "total")),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"t\" does not exist", 37)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: ON CONFLICT target",
		sql:  `INSERT INTO users (email) VALUES ('a') ON CONFLICT (mail) DO NOTHING`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"mail\" does not exist", 40)},
		},
	},
	{
		name: "UNKNOWN_COLUMN: USING column missing on one side",
		sql:  `SELECT * FROM users JOIN orders USING (user_id)`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"user_id\" specified in USING clause does not exist in left table", 0)},
			Unjudged:  "the columns of a row are not all known",
		},
	},
	{
		name: "UNKNOWN_COLUMN: VALUES cannot see the INSERT target",
		sql:  `INSERT INTO orders (user_id, total) VALUES (user_id, 1)`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownColumn, "column \"user_id\" does not exist", 45)},
		},
	},
	{
		name: "AMBIGUOUS_COLUMN: a name in two tables",
		sql:  `SELECT id FROM users JOIN orders ON orders.user_id = users.id`,
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read"), tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "unknown", true, nil),
			},
			Bindings: []snapshot.Binding{},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeAmbiguousColumn, "column reference \"id\" is ambiguous", 8)},
		},
	},
	{
		name: "AMBIGUOUS_COLUMN: EXCLUDED and the target both hold the name",
		sql:  `INSERT INTO users (email) VALUES ('a') ON CONFLICT (email) DO UPDATE SET name = name`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read_write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeAmbiguousColumn, "column reference \"name\" is ambiguous", 81)},
		},
	},
	{
		name:   "UNDECLARED_PARAM and UNUSED_PARAM",
		sql:    `SELECT id FROM users WHERE id = :undeclared_id`,
		params: []snapshot.Param{{Name: "unused", Type: "string"}},
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
			},
			Bindings: []snapshot.Binding{binding("undeclared_id", "users", "id")},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeUndeclaredParam, "placeholder :undeclared_id has no declared param", 33), problemAt(snapshot.CodeUnusedParam, "param \"unused\" is declared but the SQL never uses it", 0)},
		},
	},
	{
		name:   "PARAM_TYPE: a number compared with a text column",
		sql:    `SELECT id FROM users WHERE name = :id`,
		params: []snapshot.Param{{Name: "id", Type: "integer"}},
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "integer", false, src("users", "id")),
			},
			Bindings: []snapshot.Binding{binding("id", "users", "name")},
			Problems: []snapshot.Problem{problemAt(snapshot.CodeParamType, "param \"id\" is declared \"integer\" (number) but is compared with column \"name\" of type \"text\" (text)", 35)},
		},
	},
	{
		name:   "PARAM_TYPE: a string assigned to a number column",
		sql:    `UPDATE orders SET total = :email WHERE id = 1`,
		params: []snapshot.Param{{Name: "email", Type: "string"}},
		want: snapshot.Analysis{
			Statement: "update",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read_write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{binding("email", "orders", "total")},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeParamType, "param \"email\" is declared \"string\" (text) but is assigned to column \"total\" of type \"numeric(10,2)\" (number)", 27)},
		},
	},
	{
		name:   "no PARAM_TYPE: a string compared with a timestamp (strings carry times)",
		sql:    `SELECT id FROM orders WHERE placed_at > :email`,
		params: []snapshot.Param{{Name: "email", Type: "string"}},
		want: snapshot.Analysis{
			Statement: "select",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read")},
			Result: []snapshot.ResultColumn{
				resultColumn("id", "bigserial", false, src("orders", "id")),
			},
			Bindings: []snapshot.Binding{binding("email", "orders", "placed_at")},
			Problems: []snapshot.Problem{},
		},
	},
	{
		name:   "no PARAM_TYPE: a number assigned to a text column (assignment casts to text)",
		sql:    `UPDATE orders SET note = :total WHERE id = 1`,
		params: []snapshot.Param{{Name: "total", Type: "number"}},
		want: snapshot.Analysis{
			Statement: "update",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "read_write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{binding("total", "orders", "note")},
			Problems:  []snapshot.Problem{},
		},
	},
	{
		name: "MISSING_COLUMN: a NOT NULL column without default left out",
		sql:  `INSERT INTO orders (user_id) VALUES (1)`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeMissingColumn, "INSERT leaves out column \"total\", which is NOT NULL and has no default", 13)},
		},
	},
	{
		name: "MISSING_COLUMN: DEFAULT VALUES",
		sql:  `INSERT INTO items DEFAULT VALUES`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("items", "main", "write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeMissingColumn, "INSERT leaves out column \"order_id\", which is NOT NULL and has no default", 13), problemAt(snapshot.CodeMissingColumn, "INSERT leaves out column \"sku\", which is NOT NULL and has no default", 13), problemAt(snapshot.CodeMissingColumn, "INSERT leaves out column \"qty\", which is NOT NULL and has no default", 13)},
		},
	},
	{
		name: "no MISSING_COLUMN: a serial column and defaults may be left out",
		sql:  `INSERT INTO orders (user_id, total) VALUES (1, 2)`,
		want: snapshot.Analysis{
			Statement: "insert",
			Tables:    []snapshot.TableAccess{tableAccess("orders", "main", "write")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{},
		},
	},
	{
		name: "MERGE: NOT MATCHED cannot see the target",
		sql:  `MERGE INTO users u USING orders o ON o.user_id = u.id WHEN NOT MATCHED THEN INSERT (email) VALUES (u.email)`,
		want: snapshot.Analysis{
			Statement: "merge",
			Tables:    []snapshot.TableAccess{tableAccess("users", "main", "read_write"), tableAccess("orders", "main", "read")},
			Result:    nil,
			Bindings:  []snapshot.Binding{},
			Problems:  []snapshot.Problem{problemAt(snapshot.CodeUnknownTable, "missing FROM-clause entry for table \"u\"", 100)},
		},
	},
}
