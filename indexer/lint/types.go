package lint

import (
	"strconv"
	"strings"
)

// Column types as FK_TYPE_MISMATCH compares them. A snapshot writes a
// column's type as its database spells it, and PostgreSQL has several
// spellings of one type: int4 and integer, varchar(20) and character
// varying(20), timestamptz and timestamp with time zone, _int4 and
// integer[]. CanonicalType brings each to one spelling, so that two
// columns are of another type only when their database says so.

// typeAliases maps PostgreSQL's other spellings of a type (after
// CanonicalType has lowered and spaced it) to the name PostgreSQL itself
// prints (format_type). serial, bigserial and smallserial are integer,
// bigint and smallint with a sequence default: a key column of type
// integer referencing a serial column is of the same type.
var typeAliases = map[string]string{
	"int": "integer", "int4": "integer", "serial": "integer", "serial4": "integer",
	"int8": "bigint", "bigserial": "bigint", "serial8": "bigint",
	"int2": "smallint", "smallserial": "smallint", "serial2": "smallint",
	"float8": "double precision", "float4": "real",
	"decimal": "numeric",
	"bool":    "boolean",
	"varchar": "character varying", "char varying": "character varying",
	"char": "character", "bpchar": "character",
	"timestamp": "timestamp without time zone", "timestamptz": "timestamp with time zone",
	"time": "time without time zone", "timetz": "time with time zone",
	"varbit": "bit varying",
}

// integerTypes have no modifier in PostgreSQL; int(11) is MySQL's display
// width, which is not part of the type either.
var integerTypes = map[string]bool{"integer": true, "bigint": true, "smallint": true, "tinyint": true, "mediumint": true}

// CanonicalType returns the one spelling of a column type: lower case
// (a double-quoted name keeps its case), single spaces, no spaces inside
// the modifier, PostgreSQL's own name for the base type, and "[]" for an
// array (PostgreSQL ignores an array's declared sizes and dimensions). "" stays
// "": a type not given.
func CanonicalType(t string) string {
	t = strings.TrimSpace(t)
	if t == "" {
		return ""
	}
	if strings.HasPrefix(t, `"`) {
		return t // a quoted name is exact
	}
	t = strings.Join(strings.Fields(strings.ToLower(t)), " ")
	t = strings.TrimPrefix(t, "pg_catalog.")

	// Arrays: int4[], integer[3][3], integer array, integer array[3], _int4.
	dims := 0
	for {
		if strings.HasSuffix(t, "]") {
			if i := strings.LastIndexByte(t, '['); i > 0 {
				t, dims = strings.TrimSpace(t[:i]), dims+1
				continue
			}
		}
		if strings.HasSuffix(t, " array") {
			t, dims = strings.TrimSuffix(t, " array"), dims+1
			continue
		}
		break
	}
	if dims == 0 && strings.HasPrefix(t, "_") && !strings.ContainsAny(t, " (") {
		if _, known := typeAliases[t[1:]]; known || builtinType(t[1:]) {
			t, dims = t[1:], 1
		}
	}

	// The modifier, wherever it stands: varchar(20), timestamp(3) with
	// time zone, numeric( 10 , 2 ).
	base, mods := t, ""
	if i := strings.IndexByte(t, '('); i >= 0 {
		if j := strings.IndexByte(t[i:], ')'); j > 0 {
			mods = strings.ReplaceAll(t[i+1:i+j], " ", "")
			base = strings.Join(strings.Fields(t[:i]+" "+t[i+j+1:]), " ")
		}
	}
	if a, ok := typeAliases[base]; ok {
		base = a
	}
	switch {
	case base == "float":
		// float is double precision; float(p) is real up to 24 bits of
		// precision, double precision above.
		base = "double precision"
		if p, err := strconv.Atoi(mods); err == nil && p <= 24 {
			base = "real"
		}
		mods = ""
	case base == "character" && mods == "":
		mods = "1" // char is char(1)
	case integerTypes[base]:
		mods = ""
	}
	if mods != "" {
		if base == "timestamp with time zone" || base == "timestamp without time zone" ||
			base == "time with time zone" || base == "time without time zone" {
			// PostgreSQL prints the precision after the name's first word.
			word, rest, _ := strings.Cut(base, " ")
			base = word + "(" + mods + ") " + rest
		} else {
			base += "(" + mods + ")"
		}
	}
	if dims > 0 {
		base += "[]" // PostgreSQL ignores the number of dimensions too
	}
	return base
}

// builtinType reports whether name is a PostgreSQL type whose array type
// is written _name, besides those in typeAliases.
func builtinType(name string) bool {
	switch name {
	case "text", "numeric", "uuid", "json", "jsonb", "date", "bytea", "inet", "cidr", "macaddr", "money",
		"interval", "xml", "bit", "oid", "name":
		return true
	}
	return false
}
