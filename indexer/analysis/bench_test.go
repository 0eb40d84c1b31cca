package analysis

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// benchSchema is a realistic release: 60 tables of 8 to 20 columns, keys
// and foreign-key-like columns, over one postgres connection.
func benchSchema() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}}}
	types := []string{"text", "integer", "bigint", "timestamptz", "boolean", "numeric(12,2)", "jsonb", "varchar(255)", "uuid", "date"}
	defaults := []string{"''::text", "0", "0", "now()", "false", "0", "'{}'::jsonb", "''::character varying", "gen_random_uuid()", "CURRENT_DATE"}
	for t := range 60 {
		tb := snapshot.Table{Connection: "main", Name: fmt.Sprintf("t%d", t), PrimaryKey: []string{"id"}}
		tb.Columns = append(tb.Columns, snapshot.Column{Name: "id", Type: "bigint", Default: fmt.Sprintf("nextval('t%d_id_seq'::regclass)", t)})
		if t > 0 {
			tb.Columns = append(tb.Columns, snapshot.Column{Name: "parent_id", Type: "bigint"})
		}
		for c := range 8 + t%13 {
			col := snapshot.Column{Name: fmt.Sprintf("c%d", c), Type: types[(t+c)%len(types)], Nullable: c%3 == 0}
			if c > 4 {
				col.Default = defaults[(t+c)%len(types)]
			}
			tb.Columns = append(tb.Columns, col)
		}
		s.Tables = append(s.Tables, tb)
	}
	return s
}

// benchLogics returns n logics of realistic shapes over benchSchema.
func benchLogics(n int) []snapshot.Logic {
	shapes := []func(i int) snapshot.Logic{
		func(i int) snapshot.Logic {
			return snapshot.Logic{SQL: fmt.Sprintf("SELECT id, c0, c1, c2 FROM t%d WHERE id = :id", i%60), Params: []snapshot.Param{{Name: "id", Type: "integer"}}}
		},
		func(i int) snapshot.Logic {
			a, b := 1+i%59, 1+(i+7)%59
			return snapshot.Logic{SQL: fmt.Sprintf(`SELECT a.id, a.c1, b.c2, count(*) OVER (PARTITION BY a.parent_id) AS n
FROM t%d a JOIN t%d b ON b.parent_id = a.id
LEFT JOIN t0 p ON p.id = a.parent_id
WHERE a.c3 IS NOT NULL AND b.id > :after
ORDER BY a.id DESC LIMIT :limit`, a, b), Params: []snapshot.Param{{Name: "after", Type: "integer"}, {Name: "limit", Type: "integer"}}}
		},
		func(i int) snapshot.Logic {
			t := 1 + i%59
			return snapshot.Logic{SQL: fmt.Sprintf(`INSERT INTO t%d (parent_id, c1, c2, c4) VALUES (:parent, :c1, :c2, :c4)
ON CONFLICT (id) DO UPDATE SET c1 = EXCLUDED.c1, c2 = EXCLUDED.c2 RETURNING id, c1`, t),
				Params: []snapshot.Param{{Name: "parent", Type: "integer"}, {Name: "c1"}, {Name: "c2"}, {Name: "c4"}}}
		},
		func(i int) snapshot.Logic {
			t := i % 60
			return snapshot.Logic{SQL: fmt.Sprintf(`WITH recent AS (
  SELECT id, c0, c2 FROM t%d WHERE c1 IS NOT NULL ORDER BY id DESC LIMIT 100
), totals AS (
  SELECT r.id, sum(x.id) AS s FROM recent r JOIN t%d x ON x.id = r.id GROUP BY r.id
)
SELECT r.*, coalesce(t.s, 0) AS total, (SELECT count(*) FROM t0 z WHERE z.id = r.id) AS zs
FROM recent r LEFT JOIN totals t USING (id)`, t, (t+3)%60)}
		},
		func(i int) snapshot.Logic {
			t := 1 + i%59
			return snapshot.Logic{SQL: fmt.Sprintf(`UPDATE t%d SET c1 = :v, c2 = c2 WHERE id = :id AND parent_id IN (SELECT id FROM t0 WHERE c0 = :k) RETURNING *`, t),
				Params: []snapshot.Param{{Name: "v"}, {Name: "id", Type: "integer"}, {Name: "k"}}}
		},
		func(i int) snapshot.Logic {
			t := i % 60
			return snapshot.Logic{SQL: fmt.Sprintf(`DELETE FROM t%d WHERE id = :id`, t), Params: []snapshot.Param{{Name: "id", Type: "integer"}}}
		},
	}
	out := make([]snapshot.Logic, n)
	for i := range out {
		out[i] = shapes[i%len(shapes)](i)
		out[i].Name = fmt.Sprintf("logic_%d", i)
	}
	return out
}

// analyseAll analyses logics on GOMAXPROCS goroutines.
func analyseAll(a *Analyzer, c *Tables, logics []snapshot.Logic) (problems, unjudged int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan snapshot.Logic)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for l := range next {
				r := a.Analyze(context.Background(), c, l)
				mu.Lock()
				problems += len(r.Problems)
				if r.Unjudged != "" {
					unjudged++
				}
				mu.Unlock()
			}
		})
	}
	for _, l := range logics {
		next <- l
	}
	close(next)
	wg.Wait()
	return problems, unjudged
}

// BenchmarkAnalyze10k analyses 10,000 logics of realistic shapes, after the
// parser is ready, on all cores. Issue 25 asks for <= 2 s.
func BenchmarkAnalyze10k(b *testing.B) {
	a := testAnalyzer(b)
	c := NewTables(benchSchema())
	logics := benchLogics(10_000)
	if p, u := analyseAll(a, c, logics[:60]); p != 0 || u != 0 {
		b.Fatalf("warm-up: %d problems, %d unjudged", p, u)
	}
	b.ResetTimer()
	st := cpuTime()
	for range b.N {
		analyseAll(a, c, logics)
	}
	reportCPU(b, st)
}

// BenchmarkAnalyzeOne is one logic of each shape, one goroutine.
func BenchmarkAnalyzeOne(b *testing.B) {
	a := testAnalyzer(b)
	c := NewTables(benchSchema())
	logics := benchLogics(6)
	b.ResetTimer()
	for i := range b.N {
		a.Analyze(context.Background(), c, logics[i%len(logics)])
	}
}

// BenchmarkAnalyzeManyProblems is one logic near MaxSQL naming 2,000
// columns the table does not have, one problem each: the cost of a
// problem must not grow with the SQL's length or the problems before it.
func BenchmarkAnalyzeManyProblems(b *testing.B) {
	a := testAnalyzer(b)
	c := NewTables(benchSchema())
	var sql strings.Builder
	sql.WriteString("SELECT ")
	for i := range 2000 {
		if i > 0 {
			sql.WriteString(", ")
		}
		fmt.Fprintf(&sql, "u.missing_col_%04d", i)
	}
	sql.WriteString(" FROM t1 u WHERE u.id = :id")
	l := snapshot.Logic{Name: "wide", SQL: sql.String()}
	if n := len(a.Analyze(context.Background(), c, l).Problems); n < 2000 {
		b.Fatalf("%d problems, want at least 2000 (%d bytes of SQL)", n, sql.Len())
	}
	b.ResetTimer()
	for range b.N {
		a.Analyze(context.Background(), c, l)
	}
}
