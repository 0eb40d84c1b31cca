package analysis

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestRewritePlaceholders(t *testing.T) {
	a := testAnalyzer(t)
	declared := func(name string) bool { return name == "hi" }
	tests := []struct {
		name, sql, want string
		names           []string
	}{
		{"plain", "SELECT * FROM t WHERE a = :a AND b = :b", "SELECT * FROM t WHERE a = $1 AND b = $2", []string{"a", "b"}},
		{"repeated name keeps its number", "SELECT :x, :y, :x", "SELECT $1, $2, $1", []string{"x", "y"}},
		{"cast is not a placeholder", "SELECT a::int, :p::text FROM t", "SELECT a::int, $1::text FROM t", []string{"p"}},
		{"spaced cast", "SELECT a :: int", "SELECT a :: int", nil},
		{"string literal", "SELECT ':a', E'\\':b', :c", "SELECT ':a', E'\\':b', $1", []string{"c"}},
		{"quoted identifier", `SELECT ":a" FROM t WHERE x = :b`, `SELECT ":a" FROM t WHERE x = $1`, []string{"b"}},
		{"line comment", "SELECT 1 -- :a\n, :b", "SELECT 1 -- :a\n, $1", []string{"b"}},
		{"block comment", "SELECT /* :a /* :nested */ */ :b", "SELECT /* :a /* :nested */ */ $1", []string{"b"}},
		{"dollar quote", "SELECT $$ :a $$, $tag$ :b $tag$, :c", "SELECT $$ :a $$, $tag$ :b $tag$, $1", []string{"c"}},
		{"keyword name", "SELECT * FROM t LIMIT :limit OFFSET :offset", "SELECT * FROM t LIMIT $1 OFFSET $2", []string{"limit", "offset"}},
		{"mixed case name kept", "SELECT :userId", "SELECT $1", []string{"userId"}},
		{"colon equals", "SELECT f(a := :v)", "SELECT f(a := $1)", []string{"v"}},
		{"slice bound is not a param", "SELECT arr[lo:hi], arr[1:n] FROM t", "SELECT arr[lo $1], arr[1:n] FROM t", []string{"hi"}},
		{"after an identifier", "SELECT a:b", "SELECT a $1", []string{"b"}},
		{"positional params come first", "SELECT $2, :a", "SELECT $2, $3", []string{"", "", "a"}},
		{"colon then space", "SELECT : a", "SELECT : a", nil},
		{"unicode before", "SELECT 'é', :p", "SELECT 'é', $1", []string{"p"}},
		{"escape string", `SELECT E'\\', :p`, `SELECT E'\\', $1`, []string{"p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := a.Rewrite(context.Background(), tt.sql, declared)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.SQL; got != tt.want {
				t.Errorf("SQL = %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.names, r.Names); diff != "" {
				t.Errorf("Names (-want +got):\n%s", diff)
			}
			if !r.Complete {
				t.Error("Complete = false")
			}
		})
	}
}

func TestRewritePositions(t *testing.T) {
	a := testAnalyzer(t)
	sql := "SELECT 'é', :first, x FROM t WHERE y = :second"
	r, err := a.Rewrite(context.Background(), sql, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every byte of the rewritten SQL outside a $n maps to the same text.
	for _, p := range r.Placeholders {
		got := r.OriginalOffset(strings.Index(r.SQL, "$"+itoa(p.Number)))
		if got != p.Start {
			t.Errorf("$%d maps to %d, want %d", p.Number, got, p.Start)
		}
	}
	x := strings.Index(r.SQL, "x FROM")
	if got, want := r.OriginalOffset(x), strings.Index(sql, "x FROM"); got != want {
		t.Errorf("OriginalOffset(x) = %d, want %d", got, want)
	}
	// é is two bytes but one character: "x" is the 21st character.
	if got, want := r.Position(x), 21; got != want {
		t.Errorf("Position(x) = %d, want %d", got, want)
	}
}

func TestRewriteScannerRejects(t *testing.T) {
	a := testAnalyzer(t)
	sql := "SELECT :a, 'unterminated :b"
	r, err := a.Rewrite(context.Background(), sql, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete {
		t.Error("Complete = true for SQL the scanner rejects")
	}
	if got, want := r.SQL, "SELECT $1, 'unterminated :b"; got != want {
		t.Errorf("SQL = %q, want %q", got, want)
	}
}

// TestCharIndex: the index's position of every byte offset is the count
// of characters before it plus one, as utf8.RuneCountInString counts them
// (an invalid byte is one character), over texts of ASCII, of 2-, 3- and
// 4-byte characters straddling the marks, and of invalid bytes, with
// offsets out of range clamped.
func TestCharIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "SELECT ", "é", "한", "𝄞", "\xff", "\xe2\x82", "\n"}
	texts := []string{"", "a", "한", strings.Repeat("é", charStep), strings.Repeat("x", charStep-1) + "𝄞" + "y"}
	for range 200 {
		var b strings.Builder
		for b.Len() < rng.IntN(4*charStep) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		x := newCharIndex(s)
		for off := -1; off <= len(s)+1; off++ {
			want := utf8.RuneCountInString(s[:min(max(off, 0), len(s))]) + 1
			if got := x.position(off); got != want {
				t.Fatalf("%q: position(%d) = %d, want %d", s, off, got, want)
			}
		}
	}
}

// BenchmarkPosition: a problem's position in a 48 KiB logic costs the
// same wherever it is, not in proportion to the offset.
func BenchmarkPosition(b *testing.B) {
	sql := strings.Repeat("SELECT 한글 FROM t WHERE x = 1;\n", 48<<10/36)
	r := &Rewrite{SQL: sql, original: sql}
	b.ResetTimer()
	for i := range b.N {
		r.Position(len(sql) - 1 - i%1000)
	}
}
