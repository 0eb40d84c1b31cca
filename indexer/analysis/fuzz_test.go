package analysis

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

var fuzzSeeds = []string{
	"SELECT * FROM users WHERE id = :id",
	"SELECT ':a', \":b\", $$ :c $$, $t$ :d $t$, :e::int -- :f\n/* :g */ FROM t",
	"SELECT a:b, x[1:n], x[lo:hi], :: , : x, :=:y",
	"INSERT INTO orders (user_id, total) VALUES (:uid, :total) RETURNING id",
	"SELECT 'unterminated :x",
	"SELECT E'\\':x', U&'\\0041:y', B'01', X'1F' || :z",
	"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT * FROM r WHERE n < :max",
	"SELECT $1, :a, $3",
	"SELECT 'é', :ü, :_x$y",
	"UPDATE users u SET name = o.note FROM orders o WHERE o.user_id = u.id AND u.id = :id",
}

// FuzzPlaceholders checks the rewriting: no panic; the rewritten SQL maps
// back to the original, byte for byte outside the placeholders; every
// placeholder PostgreSQL's scanner reads back as a $n parameter, so none
// was inside a string, a comment, a quoted identifier or a dollar quote.
func FuzzPlaceholders(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	a := testAnalyzer(f)
	f.Fuzz(func(t *testing.T, sql string) {
		if len(sql) > 4096 {
			return
		}
		r, err := a.Rewrite(context.Background(), sql, nil)
		if err != nil {
			t.Skip(err) // the parser itself failed (a trap): nothing to check
		}
		// Round trip: rebuild the original from the rewritten SQL.
		var b strings.Builder
		last := 0
		for _, e := range r.edits {
			b.WriteString(r.SQL[last:e.rewStart])
			b.WriteString(sql[e.origStart:e.origEnd])
			last = e.rewEnd
		}
		b.WriteString(r.SQL[last:])
		if b.String() != sql {
			t.Fatalf("round trip of %q gives %q", sql, b.String())
		}
		// Offsets outside placeholders map to the same byte.
		inEdit := make([]bool, len(r.SQL)+1)
		for _, e := range r.edits {
			for i := e.rewStart; i < e.rewEnd; i++ {
				inEdit[i] = true
			}
		}
		for i := range len(r.SQL) {
			if o := r.OriginalOffset(i); !inEdit[i] && sql[o] != r.SQL[i] {
				t.Fatalf("offset %d of %q maps to %d of %q", i, r.SQL, o, sql)
			}
		}
		if p := r.Position(len(r.SQL)); p != utf8.RuneCountInString(sql)+1 {
			t.Fatalf("Position(end) = %d, want %d", p, utf8.RuneCountInString(sql)+1)
		}
		if !r.Complete || len(r.Placeholders) == 0 {
			return
		}
		// Each $n is a parameter token of the rewritten SQL.
		toks, err := a.p.Scan(context.Background(), r.SQL)
		if err != nil {
			return // rewritten SQL the scanner rejects: a $n glued to something
		}
		params := map[int]bool{}
		for _, tk := range toks {
			if tk.Kind == pgparse.TokParam {
				params[tk.Start] = true
			}
		}
		for _, e := range r.edits {
			start := e.rewStart
			if r.SQL[start] == ' ' {
				start++
			}
			if !params[start] {
				t.Fatalf("$n at %d of %q is not a parameter token (from %q)", start, r.SQL, sql)
			}
		}
	})
}

// FuzzAnalyze checks that any SQL is analysed without a panic and within
// bounds: problems have positions inside the SQL, results have names.
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "id")
	}
	for _, s := range validSQL[:20] {
		f.Add(s, "")
	}
	a := testAnalyzer(f)
	c := NewTables(shopSchema())
	f.Fuzz(func(t *testing.T, sql, params string) {
		if len(sql) > 8192 {
			return
		}
		var ps []snapshot.Param
		for _, p := range strings.Fields(params) {
			ps = append(ps, snapshot.Param{Name: p, Type: "integer"})
		}
		got := a.Analyze(context.Background(), c, snapshot.Logic{SQL: sql, Params: ps})
		if strings.HasPrefix(got.Unjudged, "analysis failed") {
			t.Fatalf("Analyze(%q): %s", sql, got.Unjudged)
		}
		chars := utf8.RuneCountInString(sql)
		for _, p := range got.Problems {
			if p.Position < 0 || p.Position > chars+1 || p.Code == "" || p.Message == "" {
				t.Fatalf("Analyze(%q): bad problem %+v", sql, p)
			}
		}
		for _, r := range got.Result {
			if r.Name == "" || r.Type == "" {
				t.Fatalf("Analyze(%q): bad result column %+v", sql, r)
			}
		}
	})
}
