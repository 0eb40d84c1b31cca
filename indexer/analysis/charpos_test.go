package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

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
