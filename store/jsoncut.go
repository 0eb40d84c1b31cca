package store

import (
	"database/sql/driver"
	"fmt"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// json_quote_cut(text, bytes) is json_quote(text) held to a size: the JSON
// string of text when it takes at most bytes bytes, quotes included, and
// otherwise of the longest prefix of text that fits with a closing '…'.
// The cut answers of schema_get_table and logic_get use it for comments,
// defaults, descriptions and SQL: a cut by characters would not bound the
// answer, since JSON writes a control character in up to six bytes, a
// quote in two, and a Hangul syllable takes three. NULL stays NULL.
//
// The function is registered on modernc's driver for every connection of
// the process; the index's schema does not use it, so the index still
// opens in any sqlite3.
//
// Its arguments are SQLite's own memory (VolatileArgs): without that the
// driver would copy a text only up to its first NUL. jsonQuoteCut keeps
// nothing of them past its return.
func init() {
	sqlite.MustRegisterFunction("json_quote_cut", &sqlite.FunctionImpl{
		NArgs: 2, Deterministic: true, VolatileArgs: true, Scalar: jsonQuoteCut})
}

// minCut is the smallest size json_quote_cut accepts: two quotes, the
// longest escape and the ellipsis.
const minCut int64 = 2 + 6 + 3 // 3: len("…")

func jsonQuoteCut(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var s string
	switch v := args[0].(type) {
	case nil:
		return nil, nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		s = fmt.Sprint(v)
	}
	max, ok := args[1].(int64)
	if !ok || max < minCut {
		return nil, fmt.Errorf("json_quote_cut: size %v: want an integer of at least %d", args[1], minCut)
	}
	return string(appendQuoteCut(nil, s, int(max))), nil
}

// appendQuoteCut appends to b the JSON string of s, or of its longest
// prefix that fits in max bytes with '…' (see json_quote_cut). Escapes
// are SQLite's json_quote's: \" \\ \b \f \n \r \t, and \u00XX for the
// other control characters.
func appendQuoteCut(b []byte, s string, max int) []byte {
	n, whole := 0, len(s)
	for i := 0; i < len(s); i++ {
		n += escapedLen(s[i])
	}
	if n+2 > max {
		n, whole = 0, 0
		room := max - 2 - len("…")
		for whole < len(s) {
			_, size := utf8.DecodeRuneInString(s[whole:])
			w := 0
			for j := whole; j < whole+size; j++ {
				w += escapedLen(s[j])
			}
			if n+w > room {
				break
			}
			n, whole = n+w, whole+size
		}
	}
	b = append(b, '"')
	for i := 0; i < whole; i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case shortEscape[c] != 0:
			b = append(b, '\\', shortEscape[c])
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
	}
	if whole < len(s) {
		b = append(b, "…"...)
	}
	return append(b, '"')
}

// escapedLen is how many bytes byte c of a UTF-8 text takes in a JSON
// string.
func escapedLen(c byte) int {
	switch {
	case c == '"' || c == '\\':
		return 2
	case c >= 0x20:
		return 1
	case shortEscape[c] != 0:
		return 2
	}
	return 6
}

var shortEscape = [0x20]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

const hexDigits = "0123456789abcdef"
