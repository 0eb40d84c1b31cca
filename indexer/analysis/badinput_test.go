package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// badInputs are SQL at the 48 KiB limit shaped to hurt: each must be
// analysed in bounded time, without a crash, judged or not.
func badInputs() map[string]string {
	fill := func(prefix, unit, suffix string) string {
		n := (MaxSQL - len(prefix) - len(suffix)) / len(unit)
		return prefix + strings.Repeat(unit, n) + suffix
	}
	var in strings.Builder
	in.WriteString("SELECT id FROM orders WHERE id IN (")
	for i := 0; in.Len() < MaxSQL-16; i++ {
		if i > 0 {
			in.WriteString(",")
		}
		fmt.Fprintf(&in, "%d", i)
	}
	in.WriteString(")")
	var ph strings.Builder
	ph.WriteString("SELECT id FROM orders WHERE id IN (")
	for i := 0; ph.Len() < MaxSQL-16; i++ {
		if i > 0 {
			ph.WriteString(",")
		}
		fmt.Fprintf(&ph, ":p%d", i)
	}
	ph.WriteString(")")
	var ctes strings.Builder
	ctes.WriteString("WITH c0 AS (SELECT 1 AS x)")
	for i := 1; ctes.Len() < MaxSQL-64; i++ {
		fmt.Fprintf(&ctes, ", c%d AS (SELECT x FROM c%d)", i, i-1)
	}
	ctes.WriteString(" SELECT x FROM c0")
	depth := (MaxSQL - 64) / 40
	nested := strings.Repeat("WITH a AS (", depth) + "SELECT 1 AS x" + strings.Repeat(") SELECT x FROM a", depth)
	half := MaxSQL / 2 / len("(SELECT ")
	return map[string]string{
		"10,000 nested parentheses": "SELECT " + strings.Repeat("(", 10_000) + "1" + strings.Repeat(")", 10_000),
		"parentheses to the limit":  fill("SELECT ", "(", "") + "",
		"a chain of 24,000 +":       fill("SELECT 1", "+1", ""),
		"nested subqueries":         "SELECT " + strings.Repeat("(SELECT ", half) + "1" + strings.Repeat(")", half),
		"a huge IN list":            in.String(),
		"thousands of placeholders": ph.String(),
		"thousands of CTEs":         ctes.String(),
		"deeply nested CTEs":        nested,
		"a long OR chain":           fill("SELECT id FROM users WHERE ", "id = 1 OR ", "false"),
		"a long string":             "SELECT '" + strings.Repeat("x", MaxSQL-12) + "'",
		"a long comment":            "SELECT 1 /*" + strings.Repeat(" :p", (MaxSQL-16)/3) + " */",
	}
}

// TestBadInputBounded analyses each bad input with the default time limit:
// never a crash, never more than the limit (plus a margin for a loaded
// machine), and any problem reported is one PostgreSQL raises too.
func TestBadInputBounded(t *testing.T) {
	a := testAnalyzer(t)
	c := NewTables(shopSchema())
	for name, sql := range badInputs() {
		t.Run(name, func(t *testing.T) {
			if len(sql) > MaxSQL {
				t.Fatalf("input is %d bytes, over %d", len(sql), MaxSQL)
			}
			var params []snapshot.Param
			if strings.Contains(name, "placeholders") {
				for i := range 10_000 {
					params = append(params, snapshot.Param{Name: fmt.Sprintf("p%d", i), Type: "integer"})
				}
			}
			start := time.Now()
			got := a.Analyze(context.Background(), c, snapshot.Logic{SQL: sql, Params: params})
			if d := time.Since(start); d > DefaultTimeout+10*time.Second {
				t.Errorf("took %v", d)
			}
			if strings.HasPrefix(got.Unjudged, "analysis failed") {
				t.Errorf("Unjudged = %q", got.Unjudged)
			}
			for _, p := range got.Problems {
				if p.Code != snapshot.CodeSyntax && p.Code != snapshot.CodeUnusedParam {
					t.Errorf("problem %v", p)
				}
			}
			t.Logf("%d bytes: %d problems, unjudged %q", len(sql), len(got.Problems), got.Unjudged)
		})
	}
}

// TestBadInputVerdicts pins what the analysis makes of some bad inputs.
func TestBadInputVerdicts(t *testing.T) {
	// The verdicts, not their speed (the benchmarks' job), are checked
	// here: a minute a logic rather than DefaultTimeout, which thousands
	// of CTEs can pass under -race on a busy machine.
	a := &Analyzer{p: testAnalyzer(t).p, timeout: time.Minute}
	c := NewTables(shopSchema())
	in := badInputs()
	// PostgreSQL's own answer (checked with psql): 42601, memory exhausted.
	got := a.Analyze(context.Background(), c, snapshot.Logic{SQL: in["10,000 nested parentheses"]})
	want := []snapshot.Problem{{Code: snapshot.CodeSyntax, Message: `memory exhausted at or near "("`, Position: 10_004}}
	if fmt.Sprint(got.Problems) != fmt.Sprint(want) {
		t.Errorf("nested parentheses: problems %v, want %v", got.Problems, want)
	}
	// Too deep to judge; PostgreSQL itself stops with 54001 (stack depth).
	got = a.Analyze(context.Background(), c, snapshot.Logic{SQL: in["a chain of 24,000 +"]})
	if got.Unjudged == "" || len(got.Problems) > 0 {
		t.Errorf("+ chain: unjudged %q, problems %v; want unjudged and none", got.Unjudged, got.Problems)
	}
	// A huge IN list is judged, and every placeholder bound.
	got = a.Analyze(context.Background(), c, snapshot.Logic{SQL: in["a huge IN list"]})
	if got.Unjudged != "" || len(got.Problems) > 0 || len(got.Result) != 1 {
		t.Errorf("IN list: unjudged %q, problems %v, result %v", got.Unjudged, got.Problems, got.Result)
	}
	got = a.Analyze(context.Background(), c, snapshot.Logic{SQL: in["thousands of CTEs"]})
	if got.Unjudged != "" || len(got.Problems) > 0 || len(got.Result) != 1 {
		t.Errorf("CTEs: unjudged %q, problems %v, result %v", got.Unjudged, got.Problems, got.Result)
	}
}

// TestTimeout leaves a logic unjudged when its time is up.
func TestTimeout(t *testing.T) {
	a, err := New(context.Background(), Options{Timeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := a.Analyze(context.Background(), NewTables(shopSchema()), snapshot.Logic{SQL: "SELECT id FROM users"})
	if want := "timed out after 1ns"; got.Unjudged != want {
		t.Errorf("Unjudged = %q, want %q", got.Unjudged, want)
	}
	if len(got.Problems) != 0 {
		t.Errorf("problems %v", got.Problems)
	}
}

// TestClosedAnalyzer leaves logics unjudged after Close.
func TestClosedAnalyzer(t *testing.T) {
	a, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got := a.Analyze(context.Background(), NewTables(shopSchema()), snapshot.Logic{SQL: "SELECT 1"})
	if got.Unjudged == "" {
		t.Error("Analyze after Close was judged")
	}
}
