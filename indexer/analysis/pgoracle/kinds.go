package pgoracle

import "strings"

// Kinds group types the way a caller passes values: a param declared
// "string" may be bound to a text, varchar or enum column, but not to an
// integer one. §11's PARAM_TYPE is a declared type of another kind than
// its column.

// baseType strips a type modifier: "character varying(100)" is
// "character varying", "numeric(10,2)[]" is "numeric[]".
func baseType(t string) string {
	if i := strings.IndexByte(t, '('); i >= 0 {
		if j := strings.IndexByte(t[i:], ')'); j >= 0 {
			t = t[:i] + t[i+j+1:]
		}
	}
	return strings.TrimSpace(t)
}

// pgKind is the kind of a type as PostgreSQL spells it; enums are the
// release's enum type names.
func pgKind(t string, enums map[string]bool) string {
	t = baseType(strings.ToLower(t))
	if elem, ok := strings.CutSuffix(t, "[]"); ok {
		return "array:" + pgKind(elem, enums)
	}
	switch t {
	case "text", "character varying", "character", "name", `"char"`, "citext":
		return "string"
	case "smallint", "integer", "bigint":
		return "integer"
	case "numeric", "real", "double precision":
		return "number"
	case "boolean":
		return "boolean"
	case "uuid":
		return "uuid"
	case "date":
		return "date"
	case "timestamp with time zone", "timestamp without time zone":
		return "timestamp"
	case "time with time zone", "time without time zone":
		return "time"
	case "interval":
		return "interval"
	case "json", "jsonb":
		return "json"
	case "bytea":
		return "bytes"
	case "inet", "cidr":
		return "inet"
	}
	if enums[t] {
		return "string"
	}
	return "other:" + t
}

// declaredKind is the kind of a param's declared type, or "" when the
// oracle cannot tell.
func declaredKind(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if elem, ok := strings.CutSuffix(t, "[]"); ok {
		if k := declaredKind(elem); k != "" {
			return "array:" + k
		}
		return ""
	}
	switch t {
	case "string", "text":
		return "string"
	case "integer", "int", "bigint":
		return "integer"
	case "number", "numeric", "decimal", "float":
		return "number"
	case "boolean", "bool":
		return "boolean"
	case "uuid":
		return "uuid"
	case "date":
		return "date"
	case "timestamp", "datetime", "timestamptz":
		return "timestamp"
	case "time":
		return "time"
	case "interval", "duration":
		return "interval"
	case "json", "object":
		return "json"
	case "bytes":
		return "bytes"
	}
	return ""
}

// Kind relations.
const (
	kindsSame      = iota // the same kind
	kindsClose            // near enough that neither verdict is wrong
	kindsDifferent        // clearly another kind
)

// relateKinds says how a declared kind relates to PostgreSQL's: the same,
// close (an integer for a number, a uuid or a date passed as a string, or
// a kind the oracle cannot tell), or different.
func relateKinds(declared, pg string) int {
	if declared == "" || strings.HasPrefix(pg, "other:") {
		return kindsClose
	}
	if declared == pg {
		return kindsSame
	}
	de, dArr := strings.CutPrefix(declared, "array:")
	pe, pArr := strings.CutPrefix(pg, "array:")
	if strings.HasPrefix(pe, "other:") {
		return kindsClose
	}
	if dArr != pArr {
		return kindsDifferent
	}
	pair := func(a, b string) bool { return de == a && pe == b || de == b && pe == a }
	switch {
	case pair("integer", "number"), pair("date", "timestamp"):
		return kindsClose
	case de == "string" || pe == "string":
		other := de
		if de == "string" {
			other = pe
		}
		switch other {
		case "uuid", "date", "timestamp", "time", "interval", "inet", "json", "bytes":
			return kindsClose
		}
	}
	return kindsDifferent
}
