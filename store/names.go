package store

import (
	"fmt"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// How names are written: checked as the tools take them, quoted in
// messages (short, nameList), and as SQL that a model copies (sqlName).

// LogicNameProblem explains why name is not a valid logic name, or returns
// "" when it is one: snapshot.LogicNameProblem, the rule of the release
// model, named here for the tools that check a logic name argument.
func LogicNameProblem(name string) string { return snapshot.LogicNameProblem(name) }

// short quotes s for a message, cutting very long values.
func short(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// maxListed bounds the names a message lists: names may take 1 KiB each,
// and a name can be in up to 4,096 connections.
const maxListed = 4 << 10

// nameList joins names for a message, "a, b, c", as many as fit in 4 KiB
// (always one), then " and N more" for the rest of total.
func nameList(names []string, total int) string {
	var b strings.Builder
	shown := 0
	for _, n := range names {
		if shown > 0 && b.Len()+2+len(n) > maxListed {
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		shown++
	}
	if total > shown {
		fmt.Fprintf(&b, " and %d more", total-shown)
	}
	return b.String()
}

// sqlName writes a table or column name as it must appear in SQL that a
// model copies: as it is when it is a plain identifier, else in double
// quotes (a double quote inside doubled).
//
// A plain identifier is lower-case ASCII letters, digits and underscores,
// not starting with a digit, and not a reserved word. Upper-case letters
// are quoted because PostgreSQL and the SQL standard fold unquoted names
// (PostgreSQL to lower case: an unquoted tenantId names tenantid), and the
// index holds names exactly as the schema spells them. Reserved words
// ("order", "user", "group") are quoted because most engines refuse them
// as bare names. Quoting a name that did not need it is harmless, so the
// list is generous: PostgreSQL's reserved key words and the SQL standard's
// and MySQL's that are likely names of tables or columns.
func sqlName(name string) string {
	if plainName(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func plainName(name string) bool {
	if name == "" || reserved[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// reserved are the words sqlName quotes.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		all analyse analyze and any array as asc asymmetric authorization binary both case cast check
		collate collation column concurrently constraint create cross current_catalog current_date
		current_role current_schema current_time current_timestamp current_user default deferrable desc
		distinct do else end except false fetch for foreign freeze from full grant group having ilike in
		initially inner intersect into is isnull join lateral leading left like limit localtime
		localtimestamp natural not notnull null offset on only or order outer overlaps placing primary
		references returning right select session_user similar some symmetric system_user table
		tablesample then to trailing true union unique user using variadic verbose when where window with
		add alter between by database delete drop exists index insert interval key keys match partition
		range rank row rows schema set update values`) {
		m[w] = true
	}
	return m
}()
