package analysis

import "strings"

// kind is the family a param's declared type or a column's type belongs
// to, for PARAM_TYPE.
type kind string

// Kinds.
const (
	kindUnknown kind = ""
	kindText    kind = "text"
	kindNumber  kind = "number"
	kindBool    kind = "boolean"
	kindTime    kind = "time"
	kindJSON    kind = "json"
	kindUUID    kind = "uuid"
	kindBinary  kind = "binary"
	kindEnum    kind = "enum"
)

// paramKinds maps declared param types (a Hub's vocabulary and
// PostgreSQL's names) to kinds. Anything else is unknown.
var paramKinds = map[string]kind{
	"string": kindText, "text": kindText, "varchar": kindText, "character varying": kindText,
	"char": kindText, "character": kindText, "citext": kindText, "str": kindText,
	"number": kindNumber, "integer": kindNumber, "int": kindNumber, "int2": kindNumber,
	"int4": kindNumber, "int8": kindNumber, "smallint": kindNumber, "bigint": kindNumber,
	"float": kindNumber, "float4": kindNumber, "float8": kindNumber, "double": kindNumber,
	"double precision": kindNumber, "real": kindNumber, "decimal": kindNumber, "numeric": kindNumber,
	"long":    kindNumber,
	"boolean": kindBool, "bool": kindBool,
	"date": kindTime, "datetime": kindTime, "timestamp": kindTime, "timestamptz": kindTime,
	"timestamp with time zone": kindTime, "timestamp without time zone": kindTime,
	"json": kindJSON, "jsonb": kindJSON, "object": kindJSON,
	"uuid":  kindUUID,
	"bytea": kindBinary, "binary": kindBinary, "bytes": kindBinary, "blob": kindBinary,
}

// paramKind is the kind of a declared param type.
func paramKind(declared string) kind {
	return paramKinds[strings.Join(strings.Fields(strings.ToLower(declared)), " ")]
}

// typeKind is the kind of a column's type.
func typeKind(t typ) kind {
	if t.enum {
		return kindEnum
	}
	switch {
	case !t.known() || t.isArray():
		return kindUnknown
	case t.isNumeric():
		return kindNumber
	case t.isString():
		return kindText
	}
	switch t.base {
	case "boolean":
		return kindBool
	case "date", "timestamp without time zone", "timestamp with time zone":
		return kindTime
	case "json", "jsonb":
		return kindJSON
	case "uuid":
		return kindUUID
	case "bytea":
		return kindBinary
	}
	return kindUnknown
}

// paramTypeClash reports whether a param of kind p certainly does not fit
// a column of kind c: compared with it (assign false) or assigned to it
// (assign true). A string param fits every kind written as a string
// (time, json, uuid, enum, binary); anything can be assigned to a text
// column (PostgreSQL's assignment casts to text).
func paramTypeClash(p, c kind, assign bool) bool {
	if p == kindUnknown || c == kindUnknown || p == c {
		return false
	}
	if p == kindText {
		return c == kindNumber || c == kindBool
	}
	if c == kindText {
		return !assign
	}
	return true
}
