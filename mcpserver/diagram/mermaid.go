package diagram

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mermaid writes a diagram as a Mermaid erDiagram, valid for any names.
//
// Mermaid's grammar restricts names (see docs/tools.md, "schema_diagram"),
// so nothing of a name is written where the grammar would read it:
//
//   - Each table is an entity with a made-up id, t0, t1, ... in diagram
//     order, and the table's name as its alias: t0["users"]. Two names
//     that differ only in case, or that would read the same once cleaned,
//     are still two entities.
//   - Quoted text (aliases, comments, relationship labels) may hold any
//     character but the quote: ", and the characters Mermaid reads
//     specially (#, %, \, <, >, &, `) are written as Mermaid's entity codes,
//     #34; and so on, which Mermaid turns back into the characters in the
//     picture.
//   - An attribute's type and name are words: a character Mermaid does not
//     allow in one becomes _, a word that would start badly (a digit, or
//     PK, FK or UK read as a key) gets a leading _, and an attribute whose
//     name had to change carries the real name as its comment.
//   - Names are cut to 64 characters (types to 32), with a closing …, so
//     that 1 KiB names stay readable and the text stays small.
//
// Each foreign key is one relationship, from the referenced table to the
// table that holds the key, labelled with the key's name (or its columns):
// the referenced end is || when the key's columns are NOT NULL and |o when
// one may be NULL; the holding end is o| when the key's columns are unique
// and o{ when not.
//
// The text stays under maxMermaid bytes: when the columns would pass it,
// every table shows fewer of them (the count of the others is its last
// line).
func Mermaid(d *Diagram) string {
	var s string
	for _, limit := range []int{-1, 12, 6, 3, 1, 0} {
		if s = mermaid(d, limit); len(s) <= maxMermaid {
			break
		}
	}
	return s
}

// maxMermaid bounds the Mermaid text: under Mermaid's own default
// maxTextSize (50,000 characters; a longer text is refused) and the 64 KiB
// rule of every answer.
const maxMermaid = 48_000

// Rune limits of the names written.
const (
	maxLabel = 64 // a table's name, a column's name, a label
	maxType  = 32 // a column's type
)

// mermaid writes d, each table with at most limit columns (all when
// limit < 0).
func mermaid(d *Diagram, limit int) string {
	var b strings.Builder
	b.WriteString("erDiagram\n")
	ids := make(map[string]string, len(d.Tables))
	for i, t := range d.Tables {
		id := "t" + strconv.Itoa(i)
		ids[t.Table] = id
		fmt.Fprintf(&b, "    %s[\"%s\"]", id, quoted(t.Table, maxLabel))
		cols := t.Columns
		if limit >= 0 && len(cols) > limit {
			cols = cols[:limit]
		}
		more := max(t.ColumnsTotal, len(t.Columns)) - len(cols)
		if len(cols) == 0 && more == 0 {
			b.WriteString("\n")
			continue
		}
		b.WriteString(" {\n")
		for _, c := range cols {
			name, renamed := word(c.Name, maxLabel)
			typ, _ := word(c.Type, maxType)
			fmt.Fprintf(&b, "        %s %s", typ, name)
			if c.Key != "" {
				b.WriteString(" " + strings.ReplaceAll(c.Key, ",", ", "))
			}
			if renamed {
				fmt.Fprintf(&b, " \"%s\"", quoted(c.Name, maxLabel))
			}
			b.WriteString("\n")
		}
		if more > 0 {
			fmt.Fprintf(&b, "        … more \"%d more %s\"\n", more, plural(more, "column", "columns"))
		}
		b.WriteString("    }\n")
	}
	for _, e := range d.Edges {
		from, ok1 := ids[e.From]
		to, ok2 := ids[e.To]
		if !ok1 || !ok2 {
			continue
		}
		parent, child := "||", "o{"
		if e.Nullable {
			parent = "|o"
		}
		if e.Unique {
			child = "o|"
		}
		label := e.Name
		if label == "" {
			label = strings.Join(e.FromColumns, ", ")
		}
		fmt.Fprintf(&b, "    %s %s--%s %s : \"%s\"\n", to, parent, child, from, quoted(label, maxLabel))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cut shortens s to at most n runes, ending a cut one with ….
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// quoted is s, cut to n runes, for a Mermaid quoted string: the quote and
// the characters Mermaid reads specially become entity codes (#34;), which
// Mermaid turns back into the characters when it draws. Names hold no
// control characters (the snapshot decoder refuses them); any other
// character is written as it is.
func quoted(s string, n int) string {
	s = cut(s, n)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"', '#', '%', '\\', '<', '>', '&', '`':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			if unicode.IsControl(r) {
				b.WriteRune(' ')
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// word is s, cut to n runes, as a word Mermaid reads as an attribute's
// type or name (its lexer: [*A-Za-z_\u00C0-\uFFFF][A-Za-z0-9\-_\[\]().,
// \u00C0-\uFFFF*]*): other characters become _, spaces and invisible
// characters included; a word that would start with a digit or another
// character a word cannot start with, or with PK, FK or UK as a word of
// its own (which Mermaid reads as a key), gets a leading _. changed says
// the word is not s.
func word(s string, n int) (w string, changed bool) {
	c := cut(s, n)
	var b strings.Builder
	for _, r := range c {
		switch {
		case r < 0x80 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("-_[]().,", r)):
			b.WriteRune(r)
		case r >= 0xC0 && !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Co, r) &&
			r != utf8.RuneError && r != 0xFFFE && r != 0xFFFF:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	w = b.String()
	if w == "" || !startsWord(w) || keyPrefix(w) {
		w = "_" + w
	}
	return w, w != s
}

// startsWord says Mermaid's attribute words may start with w's first
// character.
func startsWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= 0xC0
}

// keyPrefix says Mermaid would read the start of w as PK, FK or UK: its
// lexer tries \b(PK|FK|UK)\b, case-insensitive, before a word, and a
// JavaScript \b falls between K and any character but an ASCII letter,
// digit or _.
func keyPrefix(w string) bool {
	if len(w) < 2 {
		return false
	}
	switch strings.ToUpper(w[:2]) {
	case "PK", "FK", "UK":
	default:
		return false
	}
	if len(w) == 2 {
		return true
	}
	c := w[2]
	return !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')
}
