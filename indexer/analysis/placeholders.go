package analysis

import (
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
)

// Placeholder is one `:name` of a logic's SQL.
type Placeholder struct {
	Name       string // as written, without the colon
	Number     int    // its $n in the rewritten SQL
	Start, End int    // byte offsets of ":name" in the original SQL
}

// Rewrite is a logic's SQL with every `:name` placeholder replaced by
// `$n` for PostgreSQL's parser, and the way back to the original text.
// The same name always gets the same number.
type Rewrite struct {
	// SQL is the text handed to the parser.
	SQL string
	// Placeholders lists every placeholder in order of appearance.
	Placeholders []Placeholder
	// Names holds the name of each $n: Names[n-1]. Numbers up to
	// Positional belong to the SQL's own $n and have no name.
	Names []string
	// Positional is the highest $n the original SQL writes itself (0 when
	// it writes none); placeholders are numbered after it.
	Positional int
	// Complete is false when PostgreSQL's scanner rejected the SQL: only the
	// part before the rejected token was searched; the rest is unchanged.
	Complete bool

	original string
	edits    []edit                    // sorted by position
	chars    atomic.Pointer[charIndex] // of original, made by the first Position
}

// edit is one replaced span: [rewStart, rewEnd) of SQL stands for
// [origStart, origEnd) of the original.
type edit struct {
	rewStart, rewEnd, origStart, origEnd int
}

// OriginalOffset maps a byte offset in r.SQL to the byte offset in the
// original SQL; an offset inside a `$n` maps to the start of its `:name`.
func (r *Rewrite) OriginalOffset(offset int) int {
	if offset < 0 {
		return 0
	}
	i := sort.Search(len(r.edits), func(i int) bool { return r.edits[i].rewStart > offset }) - 1
	var orig int
	switch {
	case i < 0:
		orig = offset
	case offset < r.edits[i].rewEnd:
		orig = r.edits[i].origStart
	default:
		orig = offset - r.edits[i].rewEnd + r.edits[i].origEnd
	}
	return min(orig, len(r.original))
}

// Position maps a byte offset in r.SQL to a 1-based character offset in
// the original SQL, the unit of a problem's position.
func (r *Rewrite) Position(offset int) int {
	x := r.chars.Load()
	if x == nil || x.s != r.original {
		x = newCharIndex(r.original)
		r.chars.Store(x)
	}
	return x.position(r.OriginalOffset(offset))
}

// byteOffset is the byte offset of the 1-based character position pos in s
// (PostgreSQL reports error cursors in characters).
func byteOffset(s string, pos int) int {
	if pos <= 1 {
		return 0
	}
	n := 1
	for i := range s {
		if n == pos {
			return i
		}
		n++
	}
	return len(s)
}

// maxParams is the most parameters PostgreSQL binds to a statement (its
// protocol counts them in 16 bits).
const maxParams = 65535

// rewriteTokens replaces placeholders among the scanner's tokens of sql.
// A placeholder is a ':' token immediately followed by a word (an
// identifier or a keyword, unquoted): never a `::` cast (one TYPECAST
// token), nor anything inside a string, a quoted identifier, a comment or
// a dollar-quoted body (each one token, or none). Between square brackets
// `[lo:hi]` is an array slice, so there a word counts only when it is a
// declared param.
func rewriteTokens(sql string, toks []pgparse.Token, declared func(string) bool) *Rewrite {
	r := &Rewrite{original: sql, Complete: true}
	for _, t := range toks {
		if t.Kind == pgparse.TokParam && t.End <= len(sql) && t.Start+1 < t.End {
			if n, err := strconv.Atoi(sql[t.Start+1 : t.End]); err == nil && n > r.Positional {
				if n > maxParams {
					// No such parameter can be bound, and naming the
					// numbers below it would take memory in proportion.
					n, r.Complete = maxParams, false
				}
				r.Positional = n
			}
		}
	}
	for range r.Positional {
		r.Names = append(r.Names, "")
	}
	numbers := map[string]int{}
	var b strings.Builder
	last, depth := 0, 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.Kind {
		case pgparse.TokLBracket:
			depth++
		case pgparse.TokRBracket:
			depth = max(depth-1, 0)
		}
		if t.Kind != pgparse.TokColon || i+1 >= len(toks) {
			continue
		}
		w := toks[i+1]
		if w.Start != t.End || (w.Kind != pgparse.TokIdent && !w.Keyword) || w.End > len(sql) {
			continue
		}
		name := sql[w.Start:w.End]
		if !isPlainWord(name) || (depth > 0 && (declared == nil || !declared(name))) {
			continue
		}
		n, ok := numbers[name]
		if !ok {
			n = len(r.Names) + 1
			numbers[name] = n
			r.Names = append(r.Names, name)
		}
		r.Placeholders = append(r.Placeholders, Placeholder{Name: name, Number: n, Start: t.Start, End: w.End})
		b.WriteString(sql[last:t.Start])
		e := edit{rewStart: b.Len(), origStart: t.Start, origEnd: w.End}
		if t.Start > 0 && isIdentByte(sql[t.Start-1]) {
			b.WriteByte(' ') // keep `a:b` from becoming the identifier a$1
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
		e.rewEnd = b.Len()
		r.edits = append(r.edits, e)
		last = w.End
		i++
	}
	if len(r.edits) == 0 {
		r.SQL = sql
		return r
	}
	b.WriteString(sql[last:])
	r.SQL = b.String()
	return r
}

// isPlainWord reports whether s is an unquoted identifier: a letter or _
// then letters, digits, _ or $ (bytes >= 0x80 count as letters, as in
// PostgreSQL's scanner).
func isPlainWord(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// charIndex turns byte offsets of a text into 1-based character offsets,
// the unit of a problem's position, without counting from the start of the
// text each time: a logic of 48 KiB can have thousands of problems, and
// counting from the start for each made its analysis quadratic in the
// SQL's size (a third of the time of importing such logics).
type charIndex struct {
	s string
	// marks holds, for every charStep-th byte, the first character that
	// starts at or after it, as `for i := range s` finds them: counting
	// on from one gives the count from the start, invalid bytes included.
	marks []charMark
}

// charMark is a character's byte offset and the characters before it.
type charMark struct{ off, count int }

// charStep is the distance in bytes between two marks.
const charStep = 512

func newCharIndex(s string) *charIndex {
	x := &charIndex{s: s, marks: make([]charMark, 0, len(s)/charStep+1)}
	n := 0
	for i := range s {
		for len(x.marks)*charStep <= i {
			x.marks = append(x.marks, charMark{i, n})
		}
		n++
	}
	return x
}

// position is the 1-based character offset of byte offset off, which is
// clamped to the text: utf8.RuneCountInString(s[:off]) + 1.
func (x *charIndex) position(off int) int {
	off = min(max(off, 0), len(x.s))
	k := min(off/charStep, len(x.marks)-1)
	if k < 0 {
		return 1 // an empty text
	}
	for k > 0 && x.marks[k].off > off {
		k-- // off is inside the character the mark names
	}
	m := x.marks[k]
	return m.count + utf8.RuneCountInString(x.s[m.off:off]) + 1
}
