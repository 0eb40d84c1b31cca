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

// normType spells a type as PostgreSQL's format_type does: through
// spelled (the truth's map from every type the releases spell to
// PostgreSQL's spelling), else by PostgreSQL's own aliases (int4 is
// integer, varchar(n) is character varying(n), timestamptz is timestamp
// with time zone, decimal is numeric, ...). Anything else is kept,
// lower-cased.
func normType(t string, spelled map[string]string) string {
	t = strings.TrimSpace(t)
	if s, ok := spelled[t]; ok {
		return s
	}
	t = strings.Join(strings.Fields(strings.ToLower(t)), " ")
	if s, ok := spelled[t]; ok {
		return s
	}
	if elem, ok := strings.CutSuffix(t, "[]"); ok {
		return normType(elem, spelled) + "[]"
	}
	name, mod := t, ""
	if i := strings.IndexByte(t, '('); i >= 0 {
		name, mod = strings.TrimSpace(t[:i]), strings.ReplaceAll(t[i:], " ", "")
	}
	if alias, ok := typeAliases[name]; ok {
		name = alias
	}
	switch {
	case mod == "":
	case strings.HasPrefix(name, "timestamp ") || strings.HasPrefix(name, "time "):
		// timestamp(3) with time zone is spelled with the modifier inside
		with, _ := strings.CutPrefix(name, "timestamp")
		if with == name {
			with, _ = strings.CutPrefix(name, "time")
			return "time" + mod + with
		}
		return "timestamp" + mod + with
	default:
		name += mod
	}
	return name
}

// typeAliases are PostgreSQL's other names of built-in types.
var typeAliases = map[string]string{
	"int": "integer", "int4": "integer", "int8": "bigint", "int2": "smallint",
	"serial": "integer", "bigserial": "bigint", "smallserial": "smallint", "serial4": "integer", "serial8": "bigint",
	"bool": "boolean", "float8": "double precision", "float4": "real", "float": "double precision",
	"varchar": "character varying", "char": "character", "bpchar": "character",
	"decimal": "numeric", "dec": "numeric",
	"timestamptz": "timestamp with time zone", "timestamp": "timestamp without time zone",
	"timetz": "time with time zone", "time": "time without time zone",
	"varbit": "bit varying",
}
