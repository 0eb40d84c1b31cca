package lint

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Messages. Names are written as they are, or double-quoted when they hold
// anything but letters, digits, _ and $; a list of columns shows its first
// four; a message is at most maxMessage bytes. So a finding fits in a page
// whatever the names (each at most 1 KiB).

const maxMessage = 2048

// keyText writes a foreign key of t: "foreign key name (columns) to
// table (columns)", without the name when it has none, the referenced
// table qualified by its connection when that is not t's.
func keyText(t *snapshot.Table, fk snapshot.ForeignKey) string {
	label := "foreign key "
	if fk.Name != "" {
		label += msgName(fk.Name) + " "
	}
	return label + columnList(fk.Columns) + " to " + refName(t, fk) + " " + columnList(fk.RefColumns)
}

// keyName names the foreign key at position i of its table: by its name,
// else by its place ("the 1st foreign key").
func keyName(fk snapshot.ForeignKey, i int) string {
	if fk.Name != "" {
		return "foreign key " + msgName(fk.Name)
	}
	return fmt.Sprintf("the %s foreign key", ordinal(i+1))
}

// crossConnection reports whether a foreign key of t references a table
// of another connection.
func crossConnection(t *snapshot.Table, fk snapshot.ForeignKey) bool {
	return fk.RefConnection != "" && fk.RefConnection != t.Connection
}

// refName is the table a foreign key of t references, qualified by its
// connection when that is not t's.
func refName(t *snapshot.Table, fk snapshot.ForeignKey) string {
	if crossConnection(t, fk) {
		return msgName(fk.RefConnection) + "." + msgName(fk.RefTable)
	}
	return msgName(fk.RefTable)
}

// keyColumn is the column a finding about a key is on: the key's column
// when it has one, else "" (the finding is on the table).
func keyColumn(cols []string) string {
	if len(cols) == 1 {
		return cols[0]
	}
	return ""
}

// columnList writes names as "(a, b)", at most four of them.
func columnList(names []string) string {
	var sb strings.Builder
	sb.WriteByte('(')
	for i, n := range names {
		if i == 4 {
			fmt.Fprintf(&sb, ", and %d more", len(names)-4)
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(msgName(n))
	}
	sb.WriteByte(')')
	return sb.String()
}

// msgName writes a name in a message.
func msgName(name string) string {
	for _, r := range name {
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// msgText writes a type in a message: as it is, at most 200 bytes.
func msgText(s string) string {
	if len(s) <= 200 {
		return s
	}
	return truncateUTF8(s, 200) + "…"
}

// cutMessage bounds a message to maxMessage bytes.
func cutMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	return truncateUTF8(msg, maxMessage-len("…")) + "…"
}

// truncateUTF8 cuts s to at most n bytes, on a character boundary.
func truncateUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ordinal writes n as 1st, 2nd, 3rd, 4th ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
