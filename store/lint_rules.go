package store

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The schema rules of `hubsnap snapshot check` (SPEC §12), run when a
// release is indexed. Each is a small function: those that judge a table
// by itself see it as the snapshot gives it (ReleaseWriter.Table), and
// FK_TYPE_MISMATCH, which needs the referenced table too, judges the
// pairs of columns that SQL reads once every table is written
// (lint_write.go). Their findings become rows of schema_findings.

// The stored rules, in the order their findings are listed: the rule
// column of schema_findings.
const (
	ruleNoPrimaryKey        = 1
	ruleFKWithoutIndex      = 2
	ruleFKTypeMismatch      = 3
	ruleDuplicateForeignKey = 4
)

// storedRules are the codes of the stored rules, by rule.
var storedRules = map[int]string{ruleNoPrimaryKey: CodeNoPrimaryKey, ruleFKWithoutIndex: CodeFKWithoutIndex,
	ruleFKTypeMismatch: CodeFKTypeMismatch, ruleDuplicateForeignKey: CodeDuplicateForeignKey}

// A finding is what a rule found about a table: a row of schema_findings
// without the release and table.
type finding struct {
	rule    int
	item    int    // the foreign key's position in the table; 0 for the table
	part    int    // the key column's place in the key; 0 when not about one
	code    string // the rule's code
	column  string // the column it is about; "" for the table or a key of several columns
	message string
}

// tableRules are the rules that judge a table by itself, in rule order.
var tableRules = []func(t *snapshot.Table) []finding{noPrimaryKey, foreignKeysWithoutIndex, duplicateForeignKeys}

// noPrimaryKey is NO_PRIMARY_KEY: a table without a primary key, whose
// rows nothing identifies (replication, updates by key and most ORMs need
// one).
func noPrimaryKey(t *snapshot.Table) []finding {
	if len(t.PrimaryKey) > 0 {
		return nil
	}
	return []finding{{rule: ruleNoPrimaryKey, code: CodeNoPrimaryKey, message: "table has no primary key"}}
}

// foreignKeysWithoutIndex is FK_WITHOUT_INDEX: a foreign key whose columns
// are not the leading columns of the primary key or of an index. A delete
// from (or a key update of) the referenced table must find the rows that
// point at it, and so must a join from it: without such an index, each
// scans the whole referencing table.
//
// The key's columns must be the first columns of the index, in any order:
// PostgreSQL looks the referencing rows up with an equality on every key
// column, and a B-tree whose leading columns are exactly those answers it
// with one range, whatever their order. An index that starts with only
// some of them (a, for a key (a, b)) narrows the scan but still reads
// every row of each a; one that holds them after another column does not
// help at all. Both count as no index.
func foreignKeysWithoutIndex(t *snapshot.Table) []finding {
	var out []finding
	for i, fk := range t.ForeignKeys {
		if len(fk.Columns) == 0 || leads(fk.Columns, t.PrimaryKey) {
			continue
		}
		covered := false
		for _, ix := range t.Indexes {
			if leads(fk.Columns, ix.Columns) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		out = append(out, finding{rule: ruleFKWithoutIndex, item: i, code: CodeFKWithoutIndex, column: keyColumn(fk.Columns),
			message: cutMessage(keyText(t, fk) + " has no index that starts with its columns")})
	}
	return out
}

// leads reports whether the first columns of index, as many as cols holds
// distinct names, are those names, in any order.
func leads(cols, index []string) bool {
	if len(cols) == 1 { // most keys: no allocation
		return len(index) > 0 && index[0] == cols[0]
	}
	want := make(map[string]bool, len(cols))
	for _, c := range cols {
		want[c] = true
	}
	if len(index) < len(want) {
		return false
	}
	for _, c := range index[:len(want)] {
		if !want[c] {
			return false
		}
		delete(want, c) // a name twice in the index's prefix leaves another out
	}
	return len(want) == 0
}

// duplicateForeignKeys is DUPLICATE_FOREIGN_KEY: a foreign key with the
// same columns and target as an earlier key of the table: the same pairs
// of a column and the column it references, in any order, to the same
// table. The second is checked on every write for nothing. Each later one
// is reported, naming the first.
func duplicateForeignKeys(t *snapshot.Table) []finding {
	if len(t.ForeignKeys) < 2 {
		return nil
	}
	var out []finding
	var first map[string]int // by keySignature, for a table of many keys
	if len(t.ForeignKeys) > 8 {
		first = make(map[string]int, len(t.ForeignKeys))
	}
	for i, fk := range t.ForeignKeys {
		j := -1
		if first != nil {
			k := keySignature(t, fk)
			if seen, ok := first[k]; ok {
				j = seen
			} else {
				first[k] = i
			}
		} else {
			for e := range i {
				if sameKey(t, t.ForeignKeys[e], fk) {
					j = e
					break
				}
			}
		}
		if j < 0 {
			continue
		}
		out = append(out, finding{rule: ruleDuplicateForeignKey, item: i, code: CodeDuplicateForeignKey,
			column:  keyColumn(fk.Columns),
			message: cutMessage(keyText(t, fk) + " repeats " + keyName(t.ForeignKeys[j], j))})
	}
	return out
}

// sameKey reports whether two foreign keys of t constrain the same: the
// same target and pairs of columns.
func sameKey(t *snapshot.Table, a, b snapshot.ForeignKey) bool {
	if a.RefTable != b.RefTable || len(a.Columns) != len(b.Columns) {
		return false
	}
	if len(a.Columns) == 1 && len(a.RefColumns) == 1 && len(b.RefColumns) == 1 {
		return a.Columns[0] == b.Columns[0] && a.RefColumns[0] == b.RefColumns[0] &&
			cmp.Or(a.RefConnection, t.Connection) == cmp.Or(b.RefConnection, t.Connection)
	}
	return keySignature(t, a) == keySignature(t, b)
}

// keySignature identifies what a foreign key constrains: its target and
// its sorted pairs of columns.
func keySignature(t *snapshot.Table, fk snapshot.ForeignKey) string {
	pairs := make([]string, len(fk.Columns))
	for i, c := range fk.Columns {
		ref := ""
		if i < len(fk.RefColumns) {
			ref = fk.RefColumns[i]
		}
		pairs[i] = c + "\x00" + ref
	}
	slices.Sort(pairs)
	conn := fk.RefConnection
	if conn == "" {
		conn = t.Connection
	}
	return conn + "\x01" + fk.RefTable + "\x01" + strings.Join(pairs, "\x01")
}

// A typePair is a column of a foreign key and the column it references,
// with their types, as keyTypes.mismatches finds them.
type typePair struct {
	tableID                  int64
	position, part           int // the key's position in its table, the column's place in the key
	keyName                  string
	column, columnType       string
	refConnection, refTable  string
	refColumn, refColumnType string
	connection, tableName    string
}

// typeMismatch is FK_TYPE_MISMATCH: a key column of another type than the
// column it references, after canonicalType (int4 is integer, varchar(20)
// is character varying(20), serial is integer). Values then compare
// through a cast, which can stop an index from being used, and a value of
// one may not fit the other. A referenced table that is not in the
// release, a referenced column it lacks, and a type not given are not
// judged: qTypePairs does not return them.
func typeMismatch(p typePair) (finding, bool) {
	if p.columnType == "" || p.refColumnType == "" || sameType(p.columnType, p.refColumnType) {
		return finding{}, false
	}
	ref := msgName(p.refTable) + "." + msgName(p.refColumn)
	if p.refConnection != p.connection {
		ref = msgName(p.refConnection) + "." + ref
	}
	key := "an unnamed foreign key"
	if p.keyName != "" {
		key = "foreign key " + msgName(p.keyName)
	}
	return finding{rule: ruleFKTypeMismatch, item: p.position, part: p.part, code: CodeFKTypeMismatch, column: p.column,
		message: cutMessage(fmt.Sprintf("type %s, but it references %s of type %s (%s)", msgText(p.columnType), ref,
			msgText(p.refColumnType), key))}, true
}

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
