package analysis

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The tests here compare the analysis with a real PostgreSQL: the names and
// types of result columns (psql's \gdesc), the errors it raises (PREPARE
// with the declared param types), and the NULLs a query returns on seeded
// rows. They use HUBSNAP_TEST_PGHOST (a socket folder of a running server)
// when set, else start a private cluster when PostgreSQL's binaries are
// installed, else skip.

// psql runs SQL with psql and returns its output.
func psql(tb testing.TB, host, db, sql string) (string, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-X", "-q", "-A", "-t", "-F", "\t", "-h", host, "-U", "postgres", "-d", db,
		"-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose")
	cmd.Stdin = strings.NewReader(sql)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("psql: %w: %s", err, out)
	}
	return string(out), nil
}

// psqlSplit runs SQL with psql, not stopping at errors, and returns its
// output and its errors apart.
func psqlSplit(tb testing.TB, host, db, sql string) (stdout, stderr string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-X", "-q", "-A", "-t", "-F", "\t", "-h", host, "-U", "postgres", "-d", db,
		"-v", "VERBOSITY=verbose")
	cmd.Stdin = strings.NewReader(sql)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		tb.Fatalf("psql: %v\n%s", err, e.String())
	}
	return o.String(), e.String()
}

// cut splits psql output at "@@k" marker lines into n parts.
func cut(out string, n int) [][]string {
	parts := make([][]string, n)
	cur := -1
	for _, line := range strings.Split(out, "\n") {
		if m, ok := strings.CutPrefix(line, "@@"); ok {
			cur = -1
			fmt.Sscan(m, &cur)
			continue
		}
		if cur >= 0 && cur < n {
			parts[cur] = append(parts[cur], line)
		}
	}
	return parts
}

// ddlType is the PostgreSQL type a test schema column is created with.
func ddlType(c snapshot.Column) string {
	if len(c.Enum) > 0 {
		return c.Type
	}
	low := strings.ToLower(c.Type)
	if serialTypes[low] {
		return low
	}
	if t := parseTypeText(c.Type); t.known() {
		return t.String()
	}
	return "text"
}

// createSchema creates a database holding the schema.
func createSchema(tb testing.TB, host, db string, s *snapshot.Snapshot) {
	tb.Helper()
	if out, err := psql(tb, host, "postgres", "DROP DATABASE IF EXISTS "+db+";\nCREATE DATABASE "+db+";"); err != nil {
		tb.Fatal(out)
	}
	var b strings.Builder
	enums := map[string]bool{}
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if len(c.Enum) > 0 && !enums[c.Type] {
				enums[c.Type] = true
				fmt.Fprintf(&b, "CREATE TYPE %s AS ENUM ('%s');\n", c.Type, strings.Join(c.Enum, "', '"))
			}
		}
	}
	for _, t := range s.Tables {
		fmt.Fprintf(&b, "CREATE TABLE %s (", dq(t.Name))
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", dq(c.Name), ddlType(c))
			if !c.Nullable {
				b.WriteString(" NOT NULL")
			}
			// A default of the column's kind, not the snapshot's text, which
			// may name sequences the test database lacks.
			if c.Default != "" && !serialTypes[strings.ToLower(c.Type)] {
				switch ty := ddlType(c); {
				case len(c.Enum) > 0:
					fmt.Fprintf(&b, " DEFAULT '%s'", c.Enum[0])
				case strings.Contains(ty, "time"):
					b.WriteString(" DEFAULT now()")
				case parseTypeText(c.Type).isNumeric():
					b.WriteString(" DEFAULT 0")
				default:
					b.WriteString(" DEFAULT ''")
				}
			}
		}
		if len(t.PrimaryKey) > 0 {
			fmt.Fprintf(&b, ", PRIMARY KEY (%s)", strings.Join(t.PrimaryKey, ", "))
		}
		for _, ix := range t.Indexes {
			if ix.Unique {
				fmt.Fprintf(&b, ", UNIQUE (%s)", strings.Join(ix.Columns, ", "))
			}
		}
		b.WriteString(");\n")
	}
	if out, err := psql(tb, host, db, b.String()); err != nil {
		tb.Fatalf("%v\n%s", err, out)
	}
}

// paramPGType maps a declared param type to the PostgreSQL type a Hub
// would bind it as ("" when the analysis gives it no kind: unknown).
func paramPGType(t string) string {
	pt := parseTypeText(t)
	switch paramKind(t) {
	case kindText:
		return "text"
	case kindNumber:
		if pt.known() {
			return pt.String()
		}
		return "numeric"
	case kindBool:
		return "boolean"
	case kindUUID:
		return "uuid"
	case kindJSON:
		return "jsonb"
	case kindTime:
		if pt.known() {
			return pt.String()
		}
		return "timestamp with time zone"
	}
	return ""
}

// sampleValue is a non-NULL value of a PostgreSQL type, to run statements.
func sampleValue(pgType string) string {
	switch {
	case pgType == "text" || pgType == "":
		return "'1'"
	case pgType == "boolean":
		return "true"
	case pgType == "uuid":
		return "gen_random_uuid()"
	case pgType == "jsonb":
		return "'{}'"
	case strings.Contains(pgType, "time") || pgType == "date":
		return "now()"
	}
	return "1"
}

var sqlstateRe = regexp.MustCompile(`ERROR:\s+([0-9A-Z]{5}):\s*(.*)`)

// pgVerdict is what PostgreSQL says of one logic.
type pgVerdict struct {
	state, message string      // the error of PREPARE (or of running it), "" when accepted
	cols           [][2]string // names and types of the result, from \gdesc
	nulls          []bool      // for each result column, whether a NULL came back
	ran            bool        // the statement ran on the seeded rows
}

// askPostgres prepares each logic with its declared param types,
// describes its result and runs it once (in a transaction rolled back)
// with sample values: three psql sessions for all the logics.
func askPostgres(tb testing.TB, a *Analyzer, host, db string, logics []snapshot.Logic) []pgVerdict {
	tb.Helper()
	type stmt struct{ sql, prep, exec, desc string }
	stmts := make([]stmt, len(logics))
	for k, l := range logics {
		rw, err := a.Rewrite(context.Background(), l.SQL, nil)
		if err != nil {
			tb.Fatal(err)
		}
		types := make([]string, len(rw.Names))
		values := make([]string, len(rw.Names))
		for i, name := range rw.Names {
			types[i], values[i] = "unknown", "'1'"
			for _, p := range l.Params {
				if p.Name == name {
					if t := paramPGType(p.Type); t != "" {
						types[i], values[i] = t, sampleValue(t)
					}
				}
			}
		}
		st := stmt{sql: rw.SQL, prep: "PREPARE p", exec: "EXECUTE p"}
		if len(types) > 0 {
			st.prep += "(" + strings.Join(types, ", ") + ")"
			st.exec += "(" + strings.Join(values, ", ") + ")"
		}
		st.prep += " AS " + rw.SQL + ";"
		// Describe with each $n as a typed NULL (\gdesc cannot bind params).
		st.desc = rw.SQL
		for n := len(rw.Names); n >= 1; n-- {
			t := types[n-1]
			if t == "unknown" {
				t = "text"
			}
			st.desc = strings.ReplaceAll(st.desc, "$"+itoa(n), "(NULL::"+t+")")
		}
		stmts[k] = st
	}
	// session runs one statement per logic in one psql; each statement's
	// output (stdout) and errors (stderr) are cut at markers written to both.
	session := func(each func(st stmt) string) (outs, errs [][]string) {
		var b strings.Builder
		b.WriteString("\\set ON_ERROR_STOP 0\n\\pset null NULL\u00b7MARK\nSET statement_timeout = '5s';\n")
		for k, st := range stmts {
			fmt.Fprintf(&b, "\\echo @@%d\n\\warn @@%d\n%s\n", k, k, each(st))
		}
		stdout, stderr := psqlSplit(tb, host, db, b.String())
		return cut(stdout, len(stmts)), cut(stderr, len(stmts))
	}
	errorOf := func(lines []string) (string, string) {
		for _, line := range lines {
			if m := sqlstateRe.FindStringSubmatch(line); m != nil {
				return m[1], m[2]
			}
		}
		return "", ""
	}
	_, prepared := session(func(st stmt) string { return st.prep + "\nDEALLOCATE p;" })
	described, _ := session(func(st stmt) string { return st.desc + "\n\\gdesc" })
	ran, ranErrs := session(func(st stmt) string { return "BEGIN;\n" + st.prep + "\n" + st.exec + ";\nROLLBACK;\nDEALLOCATE p;" })
	verdicts := make([]pgVerdict, len(stmts))
	for k := range stmts {
		v := &verdicts[k]
		if v.state, v.message = errorOf(prepared[k]); v.state != "" {
			continue
		}
		for _, line := range described[k] {
			if f := strings.SplitN(line, "\t", 2); len(f) == 2 {
				v.cols = append(v.cols, [2]string{f[0], f[1]})
			}
		}
		if v.state, v.message = errorOf(ranErrs[k]); v.state != "" {
			continue
		}
		v.ran = true
		v.nulls = make([]bool, len(v.cols))
		for _, line := range ran[k] {
			f := strings.Split(line, "\t")
			if len(f) != len(v.cols) {
				continue
			}
			for i, x := range f {
				if x == "NULL\u00b7MARK" {
					v.nulls[i] = true
				}
			}
		}
	}
	return verdicts
}

// codeOf maps a SQLSTATE to the problem code that stands for it.
var codeOf = map[string]string{
	"42601": snapshot.CodeSyntax,
	"42P01": snapshot.CodeUnknownTable,
	"42703": snapshot.CodeUnknownColumn,
	"42702": snapshot.CodeAmbiguousColumn,
	"42883": snapshot.CodeParamType,
	"42804": snapshot.CodeParamType,
	"23502": snapshot.CodeMissingColumn,
}

// seedShop inserts rows with NULLs where the schema allows them and rows
// an outer join leaves unmatched.
const seedShop = `INSERT INTO users (id, email, name, settings) VALUES (1, 'a@x', NULL, NULL), (2, 'b@x', 'Bob', '{"theme":"dark","a":{"b":1}}');
INSERT INTO orders (id, user_id, total, note, tags) VALUES (1, 1, 10, NULL, '{a,NULL}'), (2, 1, 0, 'n', NULL), (3, 99, 5, NULL, '{}');
INSERT INTO items (order_id, sku, qty, price) VALUES (1, 'a', 1, NULL), (1, 'b', 2, 3.5), (7, 'c', 0, 1);
SELECT setval('orders_id_seq', 100);`

// TestAgainstPostgres compares every test logic over shopSchema with
// PostgreSQL: a logic it accepts gets no problem (UNDECLARED_PARAM and
// UNUSED_PARAM aside, which PostgreSQL cannot see); a problem's code is
// the one PostgreSQL's SQLSTATE stands for; names are PostgreSQL's; a type
// that is not unknown is PostgreSQL's; a column said never NULL never
// holds one on the seeded rows.
func TestAgainstPostgres(t *testing.T) {
	host := pgHost(t)
	a := testAnalyzer(t)
	s := shopSchema()
	createSchema(t, host, "hubsnap_analysis", s)
	if out, err := psql(t, host, "hubsnap_analysis", seedShop); err != nil {
		t.Fatal(out)
	}
	c := NewTables(s)
	var logics []snapshot.Logic
	for _, list := range [][]analyzeCase{constructCases, problemCases} {
		for _, tt := range list {
			if tt.schema == nil {
				logics = append(logics, snapshot.Logic{Name: tt.name, SQL: tt.sql, Params: tt.params})
			}
		}
	}
	for _, sql := range validSQL {
		logics = append(logics, snapshot.Logic{Name: sql, SQL: sql})
	}
	var agreeNames, agreeTypes, typed, cols int
	// SQL PostgreSQL's lexer rejects (an unterminated string) would swallow
	// the next statements of a psql session: ask about those one by one.
	verdicts := make([]pgVerdict, len(logics))
	var batch []snapshot.Logic
	var at []int
	for k, l := range logics {
		if r, err := a.Rewrite(context.Background(), l.SQL, nil); err == nil && r.Complete {
			batch = append(batch, l)
			at = append(at, k)
			continue
		}
		verdicts[k] = askPostgres(t, a, host, "hubsnap_analysis", []snapshot.Logic{l})[0]
	}
	for i, v := range askPostgres(t, a, host, "hubsnap_analysis", batch) {
		verdicts[at[i]] = v
	}
	for k, l := range logics {
		got := a.Analyze(context.Background(), c, l)
		v := verdicts[k]
		var codes []string
		for _, p := range got.Problems {
			if p.Code != snapshot.CodeUndeclaredParam && p.Code != snapshot.CodeUnusedParam {
				codes = append(codes, p.Code)
			}
		}
		switch {
		case v.state == "" && len(codes) > 0:
			t.Errorf("%s: PostgreSQL accepts it, the analysis reports %v", l.Name, got.Problems)
		case v.state != "" && len(codes) > 0 && codes[0] != codeOf[v.state]:
			t.Errorf("%s: PostgreSQL says %s %s, the analysis %v", l.Name, v.state, v.message, got.Problems)
		case v.state != "" && len(codes) == 0:
			t.Logf("%s: PostgreSQL says %s %s, the analysis finds nothing", l.Name, v.state, v.message)
		}
		if v.state != "" || got.Result == nil || len(v.cols) != len(got.Result) {
			continue
		}
		for i, r := range got.Result {
			cols++
			if r.Name == v.cols[i][0] {
				agreeNames++
			} else {
				t.Errorf("%s: column %d named %q, PostgreSQL says %q", l.Name, i+1, r.Name, v.cols[i][0])
			}
			mine := r.Type
			if pt := parseTypeText(mine); pt.known() {
				mine = pt.String()
			}
			if mine != "unknown" && r.Type != "string" {
				typed++
				if mine == v.cols[i][1] {
					agreeTypes++
				} else {
					t.Errorf("%s: column %q of type %q, PostgreSQL says %q", l.Name, r.Name, r.Type, v.cols[i][1])
				}
			}
			if v.ran && !r.Nullable && v.nulls[i] {
				t.Errorf("%s: column %q said never NULL, PostgreSQL returned NULL", l.Name, r.Name)
			}
		}
	}
	t.Logf("%d logics; %d result columns: %d names agree; %d typed, %d types agree", len(logics), cols, agreeNames, typed, agreeTypes)
}
